"""The simulator side of `make bench` (sim/bench/sim_figures.py) measures what it says: every
ball and every standee/clue hit of a busy game (host on the serial link) is found
on its LED chain, and the recorder leaves the chains as it found them. The figures
themselves (the 20 ms budget) are the bench's job, not a test's."""
from hauntbox_sim.bench import sim_figures as bench_sim


def test_roller_every_ball_is_shown_and_the_link_was_busy():
    r = bench_sim.roller(7)
    lat = r["latency"]
    assert lat["n"] + lat["skipped"] >= 10 and lat["missed"] == 0
    assert 0 < lat["avg_ms"] <= lat["max_ms"]
    assert r["link"]["lines"] > r["link"]["events"] > 100 and r["link"]["blocked_ms"] > 0
    assert r["chains"][0]["writes"] > 0 and r["events"] > 0


def test_haunted_every_hit_is_shown_on_the_spot_chain():
    r = bench_sim.haunted(7)
    lat = r["latency"]
    assert lat["n"] > 20 and lat["missed"] == 0
    names = [c["name"] for c in r["chains"]]
    assert names == ["score panel", "spot chain"] and all(c["writes"] for c in r["chains"])


def test_frame_recorder_puts_back_each_chains_own_write():
    from hauntbox_sim.boards.haunted import HauntedSim
    s = HauntedSim(players=2, seed=1)
    spot = s.controller.build.spot_strip.np
    own = spot.__dict__.get("write")            # HauntedSim's interrupts-off wrapper
    assert own is not None
    plain = s.controller.build.score_strip.np
    del plain.write                             # as a chain nobody wrapped
    with bench_sim.FrameRecorder(spot, plain) as rec:
        spot.write()
        plain.write()
    assert len(rec.frames) == 2
    assert spot.__dict__.get("write") is own and "write" not in plain.__dict__
