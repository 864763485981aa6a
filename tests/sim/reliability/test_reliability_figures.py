"""The reliability command's own machinery, on a small scale (the full figures come
from `make reliability`): the power-cut sweep, the fault matrix, the serial fuzzer."""
from hauntbox_sim.reliability import figures as reliability


def test_power_cut_sweep_finds_no_corrupt_or_lost_turn():
    rep = reliability.power_cuts(games=1, seed=4, random_cuts=10)
    assert rep.cuts > 500 and rep.resumed > 0
    assert (rep.corrupt, rep.lost_turns, rep.wrong_state) == (0, 0, 0), rep.problems[:3]


def test_power_cut_sweep_would_catch_a_store_without_rename(monkeypatch):
    # The check can fail: a store that writes the state file in place loses the
    # last turn (or corrupts it) when the power goes mid-write.
    import games.store as store_mod

    def unsafe_save(self, name, data):
        with store_mod.open(self.path(name), "w") as f:
            store_mod.json.dump(data, f)
    monkeypatch.setattr(store_mod.Store, "save", unsafe_save)
    rep = reliability.power_cuts(games=1, seed=4, torn=True, random_cuts=0)
    assert rep.corrupt > 0      # half-written state files found after a reboot


def test_every_injected_fault_is_handled():
    results = reliability.fault_matrix(seeds=1)
    assert len(results) == len(reliability.FAULTS)
    assert [r.name for r in results if not r.handled] == []


def test_fuzzed_serial_input_never_crashes_or_changes_state():
    rep = reliability.serial_fuzz(inputs=1600, seed=2)
    assert rep.inputs == 1600 and rep.replies > 1600
    assert rep.crashes == 0 and rep.state_changes == 0 and rep.problems == []
    assert set(rep.by_kind) == set(reliability.FUZZ_KINDS)
