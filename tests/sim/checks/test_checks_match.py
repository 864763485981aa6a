"""sim/checks/match.py: each true event is paired with one detection by time,
so a miss and a phantom never cancel, and a detection credited to another
owner is a wrong owner, not a miss plus a phantom."""
from hauntbox_sim.checks.match import Found, Truth, match


def test_a_miss_and_a_phantom_on_one_staircase_do_not_cancel():
    # Net counts per staircase would say 2 released, 2 detected: all well.
    truth = [Truth(1, 1_000_000, 0, 50_000), Truth(1, 2_000_000, 0, 50_000)]
    found = [Found(1, 1_004_000, 0), Found(1, 2_900_000, 0)]   # the second is 900 ms late
    r = match(truth, found)
    assert (r.matched, r.missed, r.phantom, r.wrong_owner) == (1, 1, 1, 0)


def test_same_key_other_owner_is_a_wrong_owner():
    r = match([Truth(("m", "bob"), 10, 2, 1000)], [Found(("m", "bob"), 500, 3)])
    assert (r.matched, r.missed, r.phantom, r.wrong_owner) == (1, 0, 0, 1)


def test_each_detection_pairs_with_one_event_only():
    truth = [Truth(2, 0, 0, 100_000), Truth(2, 60_000, 0, 100_000)]
    r = match(truth, [Found(2, 4_000, 0)])
    assert (r.matched, r.missed, r.phantom) == (1, 1, 0)
    assert r.latencies_us == [4_000]


def test_another_key_never_matches():
    r = match([Truth(1, 0, 0, 100_000)], [Found(2, 1_000, 0)])
    assert (r.missed, r.phantom) == (1, 1)
