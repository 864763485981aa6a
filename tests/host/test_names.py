"""Names instead of internal codes in what people read (issue 20, item 11);
the codes stay in the JSON. Charts: values on the bars, small bars visible,
the games' names in the titles."""
import json

from hauntbox import stats_beetlejuice, stats_superskill
from hauntbox.build import FIRMWARE_DIR
from hauntbox.monitor import format_event
from hauntbox.names import beetlejuice_card, space_name, winners
from sim.companion_log import BeetlejuiceLog, SuperSkillLog
from sim.roller_log import RollerLog


def test_roller_spaces_in_words():
    # Rulebook, "the board": each staircase has a wall path, an outer path and a trench.
    assert space_name("1o2") == "staircase 1, outer step 2"
    assert space_name("3w5") == "staircase 3, wall step 5"
    assert space_name("4T") == "trench 4"
    assert space_name("2*") == "the star of staircase 2"
    assert [space_name(x) for x in ("start", "last", "top")] == ["the start", "the last step",
                                                                  "the top"]
    assert space_name("weird") == "weird"
    out = []
    RollerLog(["red", "blue"], out=out.append)(("hit", 1, "2o1", "2T"))
    assert out == ["  blue is knocked off staircase 2, outer step 1 into trench 2"]
    msg = {"ev": "climb", "data": [0, "1T", "1o1"]}
    assert format_event(msg) == "  red climbs out of trench 1 onto staircase 1, outer step 1"
    assert msg["data"] == [0, "1T", "1o1"]           # the event itself keeps the codes


def test_winners_are_said_in_the_right_number():
    assert winners(["blue"]) == "BLUE wins!"
    assert winners(["red", "blue"]) == "RED and BLUE win!"
    out = []
    SuperSkillLog(["red", "blue"], out=out.append)(("game_over", [1]))
    assert out == ["Game over: BLUE wins!"]


def test_beetlejuice_cards_in_words():
    raw = json.loads((FIRMWARE_DIR / "data" / "beetlejuice.json").read_text())
    from rules.beetlejuice_cards import Config

    cfg = Config(raw)
    assert beetlejuice_card(cfg.card["b10"], "b10") == "a 1-skull Beetlejuice card: remove 2 dice"
    out = []
    BeetlejuiceLog(["red", "blue"], cfg, out=out.append)(("bj_card", 0, "b01"))
    assert out == ["  red draws a 1-skull Beetlejuice card: one roll fewer"]
    out.clear()
    BeetlejuiceLog(["red", "blue"], cfg, out=out.append)(("took", 1, "r01"))
    assert out == ["  blue takes a Resident (3 roach, 3 pts)"]
    assert "b10" not in beetlejuice_card(cfg.card["b10"], "b10")


def test_superskill_report_uses_the_tables_names_and_keeps_the_codes():
    st = stats_superskill.run("starfleet-academy", 6, 1, "greedy")
    text = stats_superskill.format_report(st)
    assert text.startswith("Star Trek: Super-Skill Pinball - Starfleet Academy")
    assert "engineering." not in text and "Engineering Bonuses: " in text
    assert any(k.startswith("engineering.") for k in st["bonuses"])     # codes in the data


def test_charts_small_bars_are_visible_and_labelled(tmp_path, monkeypatch):
    assert stats_beetlejuice.visible([75.0, 0.5, 0.0]) == [75.0, 1.125, 0.0]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    saved = []
    monkeypatch.setattr(plt, "close", lambda fig: saved.append(fig))
    s = stats_beetlejuice.run(30, players=2, policies=["heuristic", "random"])
    stats_beetlejuice.write_png(s, str(tmp_path / "bj.png"))
    fig = saved[0]
    titles = [ax.get_title() for ax in fig.axes]
    assert all(t.startswith("Watch Out Beetlejuice: ") for t in titles), titles
    labels = [t.get_text() for t in fig.axes[0].texts]
    want = [f"{100 * v:.1f}%" for v in s["win_rate_by_policy"].values()]
    assert labels == want + [f"{100 * s['bj_win_rate']:.1f}%"]
    heights = [b.get_height() for b in fig.axes[0].patches]
    assert all(h > 0 for h, v in zip(heights, want + ["x"]) if v != "0.0%")
    assert (tmp_path / "bj.png").stat().st_size > 1000


def test_the_console_words_companion_and_haunted_events_as_their_games_do():
    from hauntbox.console import ConsoleCore

    core = ConsoleCore()
    core.set_hello({"game": "beetlejuice"})
    core.on_event({"ev": "bj_card", "data": [1, "b06", 2], "seq": 5})
    core.on_event({"ev": "game_over", "data": ["players", [0]], "seq": 6})
    assert list(core.log) == ["  blue draws a 1-skull Beetlejuice card: remove 1 die",
                              "Game over: RED wins!"]
    core.set_hello({"game": "haunted-house"})
    core.on_event({"ev": "monster_hit", "data": [0, "bob", 1], "seq": 7})
    assert "bob" not in core.log[-1] and "Bob" in core.log[-1], core.log[-1]
