"""Starfleet Academy table rules and the rulebook's worked examples.

Sections cited: "Starfleet Academy Special Rules", "Example Turns", "Nudging",
"Tilting", "Skill Shot Set", "Flippers", "Moving to the Same or Between Flippers".
"""
import json
from pathlib import Path

import pytest

from rules.errors import CHANCE, RuleError
from rules.superskill import START, SuperSkillGame

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/superskill/starfleet_academy.json").read_text())


def new(n=1):
    return SuperSkillGame(CFG, n)


def setup(g, p=0, **fields):
    d = g.to_dict()
    if fields.pop("next_roll", False):   # abandon the current roll's choices
        d["cur"] = CHANCE
        for q in d["players"]:
            q["todo"], q["used"], q["nudged"], q["queue"] = [], [], False, []
    pd = d["players"][p]
    for k, v in fields.items():
        if k == "filled":
            for fid, row in v.items():
                pd["filled"][fid] = list(row)
        else:
            pd[k] = v
    return SuperSkillGame.from_dict(CFG, d)


def plain(g):
    return [a for a in g.legal_actions() if a[0] == "fill" and a[3] == 0 and a[4] == 0]


def dests(g, value=None):
    return {a[5] for a in plain(g) if value is None or g.dice[a[2]] == value}


def km_actions(g):
    return [a for a in g.legal_actions() if a[0] == "fill" and a[5] == "km"]


# ---- table data --------------------------------------------------------------------

def test_table_contents_match_rulebook():
    """Starfleet Academy: Start Arrow, Command (3), Bumpers (12), KM (7), Engineering (3), Science (3)."""
    t = new().table
    sizes = {s.id: sum(t.fmap[f].nbox for f in s.features) for s in t.sets}
    assert sizes == {"command": 3, "bumpers": 12, "km": 7, "engineering": 3, "science": 3}
    row = [f.id for f in t.features if f.zone == "flipper"]
    assert row == ["outlane_l", "inlane_l", "flipper_red", "flipper_yellow", "inlane_r",
                   "outlane_r"]
    assert t.fmap["outlane_l"].faces == [(1,)] and t.fmap["outlane_r"].faces == [(6,)]
    assert t.fmap["inlane_l"].faces == [(2,)] and t.fmap["inlane_r"].faces == [(5,)]
    assert t.fmap["flipper_red"].faces[1] == (4, 5)
    assert t.fmap["flipper_yellow"].faces[1] == (2, 3)
    assert t.rounds == 3


def test_table_line_styles():
    """Solid, Dash, and Double-Lines: sets solid, flipper zone dashed."""
    t = new().table
    for fid in ("command", "bumper12", "km", "engineering", "science"):
        assert set(t.fmap[fid].lines) == {"solid"}
    for fid in ("outlane_l", "inlane_l", "flipper_red", "flipper_yellow", "inlane_r",
                "outlane_r"):
        assert set(t.fmap[fid].lines) == {"dashed"}


# ---- Command -----------------------------------------------------------------------------

def test_command_start_arrow_launches_into_command_and_below():
    """Starfleet Academy Special Rules - Command: the Start Arrow launches the ball into Command."""
    g = new()
    act = g.apply
    act(("roll", 1, 3))
    assert "command" in dests(g)
    assert "km" not in dests(g)


def test_command_reachable_from_yellow_flipper_not_red():
    """Command: the Yellow Flipper can shoot the ball back into Command."""
    g = setup(new(), balls=["flipper_yellow", None])
    g.apply(("roll", 1, 5))
    assert "command" in dests(g)
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 1, 5))
    assert "command" not in dests(g)


def test_command_completion_gives_skill_shot():
    """Command: filling all three boxes allows you to circle a Skill Shot number."""
    g = setup(new(), filled={"command": [0, 1, 1]})
    g.apply(("roll", 2, 6))
    g.apply(("fill", 0, 0, 0, 0, "command", 0))
    assert g.phase == "skill"
    g.apply(("skill", 4))
    ps = g.players[0]
    assert ps.skills == [4] and ps.filled["command"] == [0, 0, 0]


# ---- Bumpers ---------------------------------------------------------------------------

def test_bumpers_each_box_one_star_either_flipper():
    """Bumpers: each Bumper box is worth one star; either Flipper can hit a Bumper."""
    for flip in ("flipper_red", "flipper_yellow"):
        g = setup(new(), balls=[flip, None])
        g.apply(("roll", 3, 3))
        eff = g.apply(("fill", 0, 0, 0, 0, "bumper34", 0))
        assert ("stars", 0, 1, "bumper34") in eff and g.players[0].stars == 1


def test_bumpers_white_arrows_one_way_cycle():
    """Bumpers: white arrows 1/2 -> 3/4 (not the other way to 5/6); 5/6 -> 1/2."""
    t = new().table
    assert t.arrows == {"bumper12": ["bumper34"], "bumper34": ["bumper56"],
                        "bumper56": ["bumper12"]}
    g = setup(new(), balls=["bumper34", None])
    g.apply(("roll", 5, 1))
    d = dests(g)
    assert "bumper56" in d and "bumper12" not in d


def test_bumpers_erased_when_all_twelve_filled():
    """Bumpers: you erase the Bumpers when all 12 boxes are filled."""
    g = setup(new(), balls=["bumper56", None],
              filled={"bumper12": [1, 1, 0, 1], "bumper34": [1, 1, 1, 1],
                      "bumper56": [1, 1, 1, 1]})
    g.apply(("roll", 1, 4))
    eff = g.apply(("fill", 0, 0, 0, 0, "bumper12", 2))
    assert ("set_complete", 0, "bumpers") in eff
    for fid in ("bumper12", "bumper34", "bumper56"):
        assert g.players[0].filled[fid] == [0, 0, 0, 0]
    assert g.players[0].stars == 1


def test_bumper_streak_counter_for_achievement():
    """Starfleet Academy Achievements: 12 bumper boxes without leaving the zone (counter)."""
    g = setup(new(), balls=["bumper56", None])
    seq = [(1, "bumper12", 0), (3, "bumper34", 0), (5, "bumper56", 0), (2, "bumper12", 1),
           (4, "bumper34", 1), (6, "bumper56", 1)]
    for v, fid, i in seq:
        g.apply(("roll", v, v))
        g.apply(("fill", 0, 0, 0, 0, fid, i))
    assert g.players[0].x["streak"][0] == 6 and g.players[0].x["best"] == 6
    g.apply(("roll", 1, 1))
    g.apply(("fill", 0, 0, 0, 0, "engineering", 0))
    assert g.players[0].x["streak"][0] == 0 and g.players[0].x["best"] == 6


# ---- Kobayashi Maru ------------------------------------------------------------------------

def test_km_only_from_red_flipper_same_zone_as_bumpers():
    """Kobayashi Maru: same Zone as the Bumpers, reached only from the Red Flipper."""
    t = new().table
    assert t.fmap["km"].zone == t.fmap["bumper12"].zone
    for pos in (START, "command", "bumper12", "bumper34", "bumper56", "flipper_yellow"):
        g = setup(new(), balls=[pos, None])
        g.apply(("roll", 1, 1))
        assert not km_actions(g), pos


def test_km_sequence_example():
    """Kobayashi Maru example: roll 1 and 3 on the Red Flipper, first box filled - no KM hit."""
    g = setup(new(), balls=["flipper_red", None], filled={"km": [1, 0, 0, 0, 0, 0, 0]})
    g.apply(("roll", 1, 3))
    assert km_actions(g) == [a for a in km_actions(g) if a[4] != 0]   # only with a nudge
    assert not [a for a in plain(g) if a[5] == "km"]
    # the 2 hits the second target
    g = setup(new(), balls=["flipper_red", None], filled={"km": [1, 0, 0, 0, 0, 0, 0]})
    g.apply(("roll", 2, 3))
    assert ("fill", 0, 0, 0, 0, "km", 1) in plain(g)
    assert ("fill", 0, 1, 0, 0, "km", 2) not in g.legal_actions()


def test_km_star_values_rise_from_zero_to_fifty():
    """Kobayashi Maru: each target a different star value, from zero to fifty."""
    st = new().table.fmap["km"].stars
    assert st[0] == 0 and st[-1] == 50 and len(set(st)) == 7
    assert st == sorted(st)
    total = 0
    g = setup(new(), balls=["flipper_red", None])
    for i in range(6):
        g = setup(g, balls=["flipper_red", None])
        g.apply(("roll", i + 1, i + 1))
        eff = g.apply(("fill", 0, 0, 0, 0, "km", i))
        total += st[i]
        assert g.players[0].stars == total
        assert [e for e in eff if e[0] == "stars"] == ([("stars", 0, st[i], "km")] if st[i] else [])


def test_km_last_target_needs_seven_no_nudge_or_skill_to_seven():
    """Kobayashi Maru: the final target needs a 7; no die may be nudged to a 7."""
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            g = setup(new(), balls=["flipper_red", None], skills=[1, 2, 3, 4, 5, 6],
                      filled={"km": [1, 1, 1, 1, 1, 1, 0]})
            g.apply(("roll", d1, d2))
            assert not km_actions(g)
    assert new().table.fmap["km"].faces[6] == (7,)


def test_km_after_a_target_ball_must_go_down():
    """Kobayashi Maru: on the turn after a KM target is hit the ball must move down."""
    g = setup(new(), balls=["flipper_red", None], filled={"km": [1, 0, 0, 0, 0, 0, 0]})
    g.apply(("roll", 2, 2))
    g.apply(("fill", 0, 0, 0, 0, "km", 1))
    assert g.players[0].balls[0] == "km"
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            g2 = g.clone()
            g2.apply(("roll", d1, d2))
            zones = {g2.table.fmap[a[5]].zone for a in g2.legal_actions() if a[0] == "fill"}
            assert zones <= {"drop", "flipper"}


def test_km_completion_erases_and_counts():
    """Kobayashi Maru: like most Sets all seven are erased when complete."""
    g = setup(new(), balls=["flipper_yellow", None],
              filled={"km": [1, 1, 1, 1, 1, 0, 0], "engineering": [1, 1, 0]})
    g.apply(("roll", 5, 5))
    g.apply(("fill", 0, 0, 0, 0, "engineering", 2))
    before = g.players[0].stars
    eff = g.apply(("bonus", "engineering", "fill_km"))
    assert ("fill", 0, -1, "km", 5, 6) in eff and ("fill", 0, -1, "km", 6, 7) in eff
    assert ("set_complete", 0, "km") in eff
    assert g.players[0].stars - before == 10 + 50
    assert g.players[0].filled["km"] == [0] * 7
    assert g.players[0].x["km"] == 1 and g.players[0].x["km_mb"] == 0


# ---- Drop Targets and their bonuses ----------------------------------------------------------

def test_drop_targets_one_star_each():
    """Drop Targets: Yellow Engineering and Red Science, each Target worth one star."""
    g = setup(new(), balls=["bumper12", None])
    g.apply(("roll", 4, 4))
    eff = g.apply(("fill", 0, 0, 0, 0, "science", 1))
    assert ("stars", 0, 1, "science") in eff
    t = g.table
    assert set(t.fmap["engineering"].colours) == {"yellow"}
    assert set(t.fmap["science"].colours) == {"red"}


def _complete(menu, **fields):
    g = setup(new(), balls=["bumper12", None], filled={menu: [1, 0, 1]}, **fields)
    g.apply(("roll", 3, 3))
    g.apply(("fill", 0, 0, 0, 0, menu, 1))
    return g


def test_engineering_bonus_fill_two_km_targets():
    """Engineering Bonuses: fill the next two Kobayashi Maru Targets and score them."""
    g = _complete("engineering", stars=0)
    eff = g.apply(("bonus", "engineering", "fill_km"))
    assert g.players[0].filled["km"] == [1, 1, 0, 0, 0, 0, 0]
    assert g.players[0].stars == 1 + 0 + 1
    assert ("stars", 0, 1, "km") in eff
    assert "engineering.fill_km" in g.players[0].taken


def test_engineering_bonus_flipper_pass_until_round_end():
    """Engineering Bonuses: Flipper Pass - both flippers hit any feature until round end."""
    g = _complete("engineering")
    g.apply(("bonus", "engineering", "flipper_pass"))
    g = setup(g, balls=["flipper_yellow", None])
    g.apply(("roll", 1, 1))
    d = dests(g)
    assert "science" in d and "km" in d
    g = setup(g, balls=["flipper_red", None], next_roll=True)
    g.apply(("roll", 1, 1))
    assert "command" in dests(g) and "engineering" in dests(g)
    # gone after the round
    g = setup(g, balls=["engineering", None], nudges=3, next_roll=True,
              filled={"flipper_red": [1, 1, 1], "flipper_yellow": [1, 1, 1],
                      "inlane_l": [1], "inlane_r": [1]})
    g.apply(("roll", 3, 4))
    g.apply(("drain", 0))
    assert g.players[0].flags == []
    g = setup(g, balls=["flipper_yellow", None])
    g.apply(("roll", 1, 1))
    assert "science" not in dests(g)


def test_engineering_bonus_two_stars_repeatable_not_filled():
    """Engineering Bonuses: 2 stars may be taken instead of another bonus; no box filled."""
    g = _complete("engineering", stars=0)
    g.apply(("bonus", "engineering", "stars2"))
    assert g.players[0].stars == 3 and g.players[0].taken == []


def test_science_bonus_bumpers_x3_until_round_end():
    """Science Bonuses: Bumpers x3 - bumper scores tripled until the end of the Round."""
    g = _complete("science")
    g.apply(("bonus", "science", "bumpers_x3"))
    g.apply(("roll", 3, 3))
    eff = g.apply(("fill", 0, 0, 0, 0, "flipper_red", 0))
    g.apply(("roll", 3, 3))
    eff = g.apply(("fill", 0, 0, 0, 0, "bumper34", 0))
    assert ("stars", 0, 3, "bumper34") in eff


def test_science_bonus_multiball_doubles_stars():
    """Science Bonuses: Multiball - while active all stars are doubled."""
    g = _complete("science")
    g.apply(("bonus", "science", "multiball"))
    assert g.players[0].mb and g.players[0].balls == ["science", START]
    g.apply(("roll", 2, 6))
    eff = g.apply(("fill", 1, 1, 0, 0, "bumper56", 1))
    assert ("stars", 0, 2, "bumper56") in eff


def test_science_bonus_outlanes_x2_stacks_with_multiball():
    """Science Bonuses: Outlanes x2 - four stars per filled Flipper box; stacks with Multiball."""
    g = setup(new(), balls=["engineering", "command"], mb=True,
              flags=["science.outlanes_x2"], filled={"flipper_red": [1, 1, 1]})
    g.apply(("roll", 1, 2))
    eff = g.apply(("fill", 0, 0, 0, 0, "outlane_l", 0))
    assert ("stars", 0, 3 * 4 * 2, "outlane_l") in eff


def test_science_bonus_three_stars():
    """Science Bonuses: 3 stars instead of another Science bonus."""
    g = _complete("science", stars=5)
    g.apply(("bonus", "science", "stars3"))
    assert g.players[0].stars == 5 + 1 + 3


def test_drop_target_bonus_once_per_game_across_rounds():
    """Drop Targets: bonuses only once per game (double lines), even in a later round."""
    g = _complete("engineering")
    g.apply(("bonus", "engineering", "flipper_pass"))
    g = setup(g, round=2, flags=[], balls=["bumper12", None], filled={"engineering": [1, 0, 1]})
    g.apply(("roll", 3, 3))
    g.apply(("fill", 0, 0, 0, 0, "engineering", 1))
    assert {a[2] for a in g.legal_actions()} == {"fill_km", "multiball", "stars2"}


# ---- the rulebook's worked examples -----------------------------------------------------

def test_example_start_of_game_roll_1_and_4():
    """Step 2 example: at the start, dice 1 and 4 - the features each die can reach."""
    g = new()
    g.apply(("roll", 1, 4))
    assert dests(g, 1) == {"command", "bumper12", "engineering", "science", "flipper_yellow",
                           "outlane_l"}
    assert dests(g, 4) == {"command", "bumper34", "engineering", "science", "flipper_red",
                           "flipper_yellow"}


def test_example_turns_1_to_4():
    """Example Turns 1-4 (Starfleet Academy), reproduced move by move."""
    g = new()
    # Turn 1: roll 1 and 3; start in Command with the 3 in the 3/4 box.
    g.apply(("roll", 1, 3))
    assert ("fill", 0, 0, 0, 0, "command", 0) in plain(g)
    g.apply(("fill", 0, 1, 0, 0, "command", 1))
    ps = g.players[0]
    assert ps.balls[0] == "command" and ps.filled["command"] == [0, 1, 0] and ps.stars == 0
    # Turn 2: roll 4 and 5; must move down; the 5 on the Bumper scores a star.
    g.apply(("roll", 4, 5))
    assert "command" not in dests(g)
    g.apply(("fill", 0, 1, 0, 0, "bumper56", 0))
    assert ps.stars == 1 and ps.balls[0] == "bumper56"
    # Turn 3: roll 1 and 6; the 6 cannot stay on the same Bumper, the 1 follows the arrow.
    g.apply(("roll", 1, 6))
    six = dests(g, 6)
    assert "bumper56" not in six and six <= {"engineering", "science", "flipper_red",
                                             "outlane_r"}
    assert ("fill", 0, 0, 0, 0, "bumper12", 0) in plain(g)
    g.apply(("fill", 0, 0, 0, 0, "bumper12", 0))
    assert ps.stars == 2 and ps.balls[0] == "bumper12"
    # Turn 4: roll 2 and 5; no 3/4 Bumper box, no skipping to 5/6, must go down.
    g.apply(("roll", 2, 5))
    d = dests(g)
    assert not d & {"bumper12", "bumper34", "bumper56", "command", "km"}
    assert {"engineering", "science"} <= d
    assert ("fill", 0, 0, 0, 0, "engineering", 0) in plain(g)
    assert ("fill", 0, 1, 0, 0, "engineering", 2) in plain(g)
    g.apply(("fill", 0, 0, 0, 0, "engineering", 0))
    assert ps.stars == 3 and ps.filled["engineering"] == [1, 0, 0]


def test_example_nudge_1_and_3_want_4():
    """Nudging example: roll 1 and 3, nudge the 3 into a 4, Nudge amount 1."""
    g = new()
    g.apply(("roll", 1, 3))
    assert ("fill", 0, 1, 0, 1, "flipper_yellow", 2) in g.legal_actions()
    g.apply(("fill", 0, 1, 0, 1, "flipper_yellow", 2))
    assert g.players[0].namt == 1 and g.players[0].nudges == 1
    tilts = []
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            g2 = g.clone()
            eff = g2.apply(("roll", d1, d2))
            if any(e[0] == "tilt" for e in eff):
                tilts.append((d1, d2))
            assert g2.players[0].namt == 0
    assert tilts == [(v, v) for v in range(1, 7)]


def test_example_skill_shot_circle_3_then_use_it_on_6_and_2():
    """Example of a Skill Shot: 1 and 5 circled, circle 3; roll 6 and 2, use the 3."""
    g = setup(new(), balls=["flipper_yellow", None], skills=[1, 5], filled={"command": [1, 1, 0]})
    g.apply(("roll", 5, 4))
    g.apply(("fill", 0, 0, 0, 0, "command", 2))
    assert ("skill", 1) not in g.legal_actions() and ("skill", 5) not in g.legal_actions()
    g.apply(("skill", 3))
    assert g.players[0].skills == [1, 3, 5]
    g.apply(("roll", 6, 2))
    assert not [a for a in plain(g) if 3 in g.table.fmap[a[5]].faces[a[6]]
                and 6 not in g.table.fmap[a[5]].faces[a[6]]
                and 2 not in g.table.fmap[a[5]].faces[a[6]]]
    eff = g.apply(("fill", 0, 0, 3, 0, "bumper34", 0))
    assert ("skill_used", 0, 3, 6) in eff
    assert g.players[0].skills == [1, 5]


def test_example_nudging_a_skill_shot_1_and_1_want_4():
    """Example of Nudging a Skill Shot: roll 1 and 1, Skill Shot 5, nudge down to 4 (amount 1)."""
    g = setup(new(), skills=[5])
    g.apply(("roll", 1, 1))
    acts = g.legal_actions()
    assert ("fill", 0, 0, 0, 3, "flipper_yellow", 2) in acts     # risky nudge of 3
    eff = g.apply(("fill", 0, 0, 5, -1, "flipper_yellow", 2))
    assert ("skill_used", 0, 5, 1) in eff and ("nudge", 0, 5, 4, 1) in eff
    ps = g.players[0]
    assert ps.skills == [] and ps.namt == 1 and ps.filled["flipper_yellow"][2] == 1


def test_example_flipper_fall_back_to_yellow_flipper():
    """Moving to the Same or Between Flippers example: roll 1 and 3 on the Red Flipper."""
    g = setup(new(), balls=["flipper_red", None],
              filled={"bumper12": [1, 0, 1, 0], "bumper34": [1, 0, 1, 0],
                      "km": [1, 0, 0, 0, 0, 0, 0], "science": [1, 1, 0],
                      "flipper_red": [1, 0, 0]})
    g.apply(("roll", 1, 3))
    assert dests(g) == {"flipper_yellow"}
    g.apply(("fill", 0, 0, 0, 0, "flipper_yellow", 0))
    assert g.players[0].balls[0] == "flipper_yellow"
    # the same flipper is allowed when it has a box for the roll
    g = setup(new(), balls=["flipper_red", None],
              filled={"bumper12": [1, 0, 1, 0], "bumper34": [1, 0, 1, 0],
                      "km": [1, 0, 0, 0, 0, 0, 0], "science": [1, 1, 0]})
    g.apply(("roll", 1, 3))
    assert dests(g) == {"flipper_yellow", "flipper_red"}


def test_two_players_share_the_example_roll():
    """Example Turn 1: other players are not affected by your choice to use the 3."""
    g = new(2)
    g.apply(("roll", 1, 3))
    g.apply(("fill", 0, 1, 0, 0, "command", 1))
    assert g.to_act == 1
    assert ("fill", 0, 0, 0, 0, "command", 0) in g.legal_actions()
    assert ("fill", 0, 1, 0, 0, "command", 1) in g.legal_actions()
    g.apply(("fill", 0, 0, 0, 0, "command", 0))
    assert g.to_act == CHANCE


def test_illegal_km_hit_raises_and_changes_nothing():
    """Kobayashi Maru: must be hit in sequence - an out-of-order hit is refused."""
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 3, 3))
    before = g.to_dict()
    with pytest.raises(RuleError):
        g.apply(("fill", 0, 0, 0, 0, "km", 2))
    assert g.to_dict() == before
