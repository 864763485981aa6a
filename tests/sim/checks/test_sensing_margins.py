"""The decoders against the edges of the physical envelope (hardware/sensing-envelope.md),
with the load on (LED frames with interrupts off, a host, saves): exact at the
edges, and just past a threshold the miscounts are reported so the players
are asked. Short runs of what `hauntbox check beams|hits --sweep` sweeps."""
from hauntbox_sim.checks.accuracy import beam_accuracy, hit_accuracy
from hauntbox_sim.checks.load import Load
from hauntbox_sim.models.table import noise_config as table_noise
from hauntbox_sim.boards.roller import noise_config


def beams(rotations=40, **cfg):
    c = noise_config("all")
    for k, v in cfg.items():
        setattr(c, k, v)
    return beam_accuracy(rotations, seed=3, load=Load(), tower_cfg=c)


def test_beams_at_the_envelope_edges_are_exact():
    # The shortest ball at the receiver (7 ms, seen as 5.5 ms behind a frame)...
    r = beams(pulse_ms=(7.0, 7.3))
    assert r.released >= 30 and r.ok and r.doubted == 0, r.lines()
    # ...the longest glitches at the highest rate (they stack to 2.5 ms)...
    r = beams(glitch_us=(400, 500), glitches_per_s=10.0)
    assert r.glitches_rejected > 2000 and r.ok and r.doubted == 0, r.lines()
    # ...and two balls as close as they come down one staircase.
    r = beams(min_gap_ms=40.0, follow_p=1.0)
    assert r.ok and r.doubted == 0, r.lines()


def test_beams_just_past_the_thresholds_are_reported_and_asked():
    # Balls of 3.5 ms: below min_pulse, so the counts miss them; but no glitch
    # is that long, so the staircase is doubtful and the players answer.
    r = beams(pulse_ms=(3.3, 3.7))
    assert r.missed > 20
    assert r.doubted >= r.missed * 0.8 and r.stairs_wrong <= r.rotations // 10, r.lines()
    # A beam blocked 300 ms (two balls run together, a hand): counted, and asked.
    r = beams(rotations=20, pulse_ms=(300.0, 320.0))
    assert r.doubted >= r.released * 0.8 and r.stairs_wrong == 0, r.lines()


def test_knocks_at_the_envelope_edge_are_exact_and_shorter_ones_are_asked():
    c = table_noise("all")
    c.impact_ms = (25.0, 27.0)
    rep, _, _ = hit_accuracy(60, seed=5, players=2, load=Load(), table_cfg=c)
    assert rep.true_hits > 30 and rep.ok and rep.doubted == 0
    c = table_noise("all")
    c.impact_ms = (3.4, 4.0)            # neither a glitch nor a knock of the envelope
    rep, _, _ = hit_accuracy(60, seed=5, players=2, load=Load(), table_cfg=c)
    assert rep.doubted > 5 and rep.missed <= rep.true_hits // 10
