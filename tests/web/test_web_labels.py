"""The page's words: the same as the console's for Roller Ghoster, the other
games' prompts and events in words, and the Beetlejuice points from the rules."""
from __future__ import annotations

from hauntbox.web import labels

COLS = ["red", "blue", "orange", "yellow"]


def test_roller_ghoster_speaks_as_the_console():
    from hauntbox.monitor import describe_option, format_event

    for o in (["roll"], ["move", "wall"], ["ghost", 1, "outer"], ["pass"]):
        assert labels.option_label("roller-ghoster", o, COLS) == describe_option(o, COLS)
    ev = {"ev": "hit", "data": [1, "2o1", "2T"], "seq": 9}
    assert labels.event_text("roller-ghoster", ev, COLS) == format_event(ev, COLS)


def test_haunted_house_round_end_entry_in_words():
    # Rulebook, end of a round: each die is scored by the face it shows and the
    # realm it lies in (or lost); the board asks for both, one die at a time.
    assert labels.prompt_title("haunted-house", "face", 1, COLS).startswith("round-end entry, blue")
    assert labels.option_label("haunted-house", ["face", 4], COLS) == "face 4"
    assert labels.option_label("haunted-house", ["lost"], COLS) == "lost (off the table)"
    assert labels.option_label("haunted-house", ["realm", "ravens", 5], COLS) == "ravens (x5)"
    assert labels.option_label("haunted-house", ["realm", "none", 1], COLS) == "no realm (x1)"
    assert labels.event_text("haunted-house", {"ev": "monster_hit", "data": [2, "bob", 1]},
                             COLS) == "  HIT bob: credited to orange"
    assert labels.event_text("haunted-house", {"ev": "seen", "data": ["bob_bottom", "spot"]},
                             COLS) is None


def test_companions_in_words():
    assert labels.option_label("beetlejuice", ["reroll", [2, 3, 7]], COLS) == "roll dice 3, 4, 8 again"
    assert labels.option_label("superskill", ["round_over", 1], COLS) == \
        "blue's ball drained: round over"
    assert labels.event_text("superskill", {"ev": "tilt", "data": [0, 5, 2]}, COLS) == \
        "  red TILTS: difference 2 is below the nudge 5"
    # A malformed event is shown raw, not dropped and not raised.
    assert labels.event_text("superskill", {"ev": "tilt", "data": []}, COLS) == "tilt []"


def test_beetlejuice_points_come_from_the_rules():
    import json

    from hauntbox_fw.build import FIRMWARE_DIR
    from hauntbox.console import _repo_paths

    _repo_paths()
    from rules.beetlejuice import BeetlejuiceGame
    from rules.beetlejuice_cards import Config

    cfg = Config(json.loads((FIRMWARE_DIR / "data" / "beetlejuice.json").read_text()))
    g = BeetlejuiceGame(cfg, 2, None, {})
    d = g.to_dict()
    card = d["house"].pop()                 # red has won a Resident card
    d["won"] = [[card], []]
    s = labels.summary("beetlejuice", {"game": d, "keep": 0})
    assert s is not None
    assert s["points"] == [cfg.points(card), 0] and cfg.points(card) > 0
    assert labels.summary("beetlejuice", {"game": {"bad": 1}}) is None
