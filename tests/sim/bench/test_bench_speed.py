"""`make bench-sim` (sim/bench/speed.py) writes what it prints: every game's simulator
speed and each stats policy's rate, with the goal a figure is held to and whether
it was met. Only the shape is checked (a short run): the figures are the bench's
job, never a timed test's."""
import json

from hauntbox_sim.bench import speed


def test_the_summary_has_every_figure_and_its_goal(tmp_path, capsys):
    out = tmp_path / "bench-sim.json"
    assert speed.main(["--seeds", "1", "--bj-games", "2", "--ss-games", "2", "--repeat", "2",
                       "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert [r["game"] for r in res["sim"]] == list(speed.GAMES)
    for r in res["sim"]:
        assert r["speed"] > 0 and r["goal"] == speed.SIM_GOAL and r["met"] == (r["speed"] >= 1000)
        assert r["repeat"] == 2 and 0 < r["worst"] <= r["speed"]
    for game, pols in speed.STATS_POLICIES.items():
        rows = res["stats"][game]
        assert [r["policy"] for r in rows] == list(pols)
        for r in rows:
            assert r["repeat"] == 2 and 0 < r["worst"] <= r["rate"]
            held = r["policy"] in speed.GOAL_POLICIES[game]
            assert r["goal"] == (speed.STATS_GOAL[game] if held else None)
            assert r["met"] == ((r["rate"] >= speed.STATS_GOAL[game]) if held else None)
    printed = capsys.readouterr().out
    assert "greedy" in printed and "goal >= 200 for greedy" in printed
