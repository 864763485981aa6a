"""Star Trek: Super-Skill Pinball general rules (rulebook sections cited per test).

Played on the Starfleet Academy table data; the layout details the rulebook
does not print are listed in docs/assumptions/superskill.md.
"""
import json
from pathlib import Path

import pytest

from rules.errors import CHANCE, RuleError
from rules.superskill import START, SuperSkillGame

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/superskill/starfleet_academy.json").read_text())


# flipper boxes and inlanes all filled: a 3 or 4 coming down cannot stay
FULL = {"flipper_red": [1, 1, 1], "flipper_yellow": [1, 1, 1], "inlane_l": [1], "inlane_r": [1]}


def new(n=1):
    return SuperSkillGame(CFG, n)


def setup(g, p=0, **fields):
    """Rebuild the game from its saved state with player fields changed."""
    d = g.to_dict()
    pd = d["players"][p]
    for k, v in fields.items():
        if k == "filled":
            for fid, row in v.items():
                pd["filled"][fid] = list(row)
        else:
            pd[k] = v
    return SuperSkillGame.from_dict(CFG, d)


def fills(g, plain=True):
    out = []
    for a in g.legal_actions():
        if a[0] == "fill" and (not plain or (a[3] == 0 and a[4] == 0)):
            out.append(a)
    return out


def dests(g, value=None, plain=True):
    """Features reachable with the plain die showing `value` (or any die)."""
    out = set()
    for a in fills(g, plain):
        v = (a[3] or g.dice[a[2]]) + a[4]
        if value is None or v == value:
            out.add(a[5])
    return out


def act(g, a):
    return g.apply(a)


def kinds(effects):
    return [e[0] for e in effects]


# ---- Rounds and Turns / Step 1: Roll the Dice --------------------------------

def test_step1_shared_roll_is_chance_then_each_player_in_turn():
    """Step 1: Roll the Dice - one shared roll; every player uses it."""
    g = new(3)
    assert g.to_act == CHANCE and g.phase == "roll"
    assert len(g.legal_actions()) == 36
    eff = act(g, ("roll", 2, 5))
    assert eff[0] == ("roll", 2, 5)
    seen = []
    while g.to_act != CHANCE:
        seen.append(g.to_act)
        assert g.phase == "move"
        assert {g.dice[a[2]] for a in fills(g)} == {2, 5}
        act(g, fills(g)[0])
    assert seen == [0, 1, 2]
    assert g.phase == "roll"


def test_step1_players_choose_dice_independently():
    """Step 1: Players do not need to use the same die as the others."""
    g = new(2)
    act(g, ("roll", 1, 3))
    act(g, ("fill", 0, 0, 0, 0, "command", 0))
    act(g, ("fill", 0, 1, 0, 0, "command", 1))
    assert g.players[0].filled["command"] == [1, 0, 0]
    assert g.players[1].filled["command"] == [0, 1, 0]


def test_rounds_and_turns_players_in_different_rounds():
    """Rounds and Turns / Round Track: rounds may end at different times per player."""
    g = new(2)
    g = setup(g, 0, balls=["engineering", None], filled=FULL, nudges=3)
    act(g, ("roll", 3, 4))
    assert fills(g) == [] and g.legal_actions() == [("drain", 0)]
    eff = act(g, ("drain", 0))
    assert ("round_end", 0, 1) in eff and ("round_start", 0, 2) in eff
    act(g, fills(g)[0])
    assert g.players[0].round == 2 and g.players[1].round == 1
    assert g.players[0].balls == [START, None]
    # the new round starts with the next roll, not this one
    assert g.to_act == CHANCE


def test_end_of_game_three_rounds():
    """End of Game: the game lasts three Rounds."""
    g = new(1)
    assert g.table.rounds == 3
    for r in (1, 2, 3):
        assert g.players[0].round == r and not g.is_over()
        g = setup(g, balls=["engineering", None],
                  filled=FULL, nudges=3)
        act(g, ("roll", 3, 4))
        eff = act(g, ("drain", 0))
        assert ("round_end", 0, r) in eff
    assert g.is_over() and g.phase == "over" and g.to_act is None
    assert g.players[0].done and g.players[0].fin == 3
    assert g.legal_actions() == []
    assert g.winners() == [0] and g.winner == 0


def test_single_round_table_via_data():
    """Lower Decks SINGLE ROUND: the number of rounds comes from the table data."""
    cfg = dict(CFG, rounds=1)
    g = SuperSkillGame(cfg, 1)
    d = g.to_dict()
    d["players"][0]["balls"] = ["engineering", None]
    d["players"][0]["filled"].update(FULL)
    d["players"][0]["nudges"] = 3
    g = SuperSkillGame.from_dict(cfg, d)
    act(g, ("roll", 3, 4))
    act(g, ("drain", 0))
    assert g.is_over()


def _finish(g, p):
    return setup(g, p, round=3, balls=["engineering", None],
                 filled=FULL, nudges=3)


def test_ending_the_game_most_stars_wins():
    """Victory / Ending the Game: the player with the most stars wins."""
    g = new(2)
    g = _finish(g, 0)
    g = _finish(g, 1)
    g = setup(g, 0, stars=10)
    g = setup(g, 1, stars=12)
    act(g, ("roll", 3, 4))
    act(g, ("drain", 0))
    act(g, ("drain", 0))
    assert g.is_over() and g.winners() == [1] and g.winner == 1


def test_ending_the_game_tie_goes_to_earliest_finisher():
    """Ending the Game: tied players - whoever completed their third round earliest wins."""
    g = new(2)
    g = _finish(g, 0)
    g = setup(g, 0, stars=10)
    g = setup(g, 1, stars=9, round=3)
    act(g, ("roll", 3, 4))
    act(g, ("drain", 0))          # player 0 finishes on roll 1 with 10
    act(g, ("fill", 0, 0, 0, 0, "bumper34", 0))  # player 1 scores a star -> 10
    assert g.players[1].stars == 10
    g = _finish(g, 1)
    act(g, ("roll", 3, 4))
    act(g, ("drain", 0))          # player 1 finishes on roll 2
    assert g.is_over()
    assert g.players[0].fin == 1 and g.players[1].fin == 2
    assert g.winners() == [0]


def test_ending_the_game_tie_same_turn_is_shared():
    """Ending the Game: tied and finished on the same turn - the victory is shared."""
    g = new(2)
    g = _finish(g, 0)
    g = _finish(g, 1)
    g = setup(g, 0, stars=7)
    g = setup(g, 1, stars=7)
    act(g, ("roll", 3, 4))
    act(g, ("drain", 0))
    eff = act(g, ("drain", 0))
    assert eff[-1] == ("game_over", (0, 1))
    assert g.winners() == [0, 1] and g.winner is None


# ---- Step 2: Move Your Ball ---------------------------------------------------

def test_step2_normally_lower_zone_and_never_same_feature():
    """Step 2: Move Your Ball - normally to a lower Zone; never the same feature."""
    g = setup(new(), balls=["command", None])
    act(g, ("roll", 1, 2))
    d = dests(g)
    assert "command" not in d
    assert {"bumper12", "engineering", "science", "flipper_yellow"} <= d


def test_step2_skipping_zones_allowed():
    """Step 2: you may voluntarily skip Zones and move farther down the Table."""
    g = setup(new(), balls=["command", None])
    act(g, ("roll", 1, 3))
    d = dests(g)
    assert "flipper_yellow" in d and "outlane_l" in d and "flipper_red" in d


def test_step2_drop_target_zone_moves_only_to_flipper_zone():
    """Step 2: from the lowest playfield zone the only lower zone is the Flipper Zone."""
    g = setup(new(), balls=["engineering", None])
    act(g, ("roll", 1, 6))
    zones = {g.table.fmap[f].zone for f in dests(g)}
    assert zones == {"flipper"}


def test_step2_arrows_allow_moves_within_zone():
    """Step 2 / Bumper Sets: arrows let the ball move in the arrow's direction."""
    g = setup(new(), balls=["bumper12", None])
    act(g, ("roll", 3, 5))
    d = dests(g)
    assert "bumper34" in d          # 1/2 -> 3/4 along the arrow
    assert "bumper56" not in d      # cannot skip the next bumper
    g = setup(new(), balls=["bumper34", None])
    act(g, ("roll", 1, 2))
    assert "bumper12" not in dests(g)   # not against the arrow


def test_step2_features_reachable_only_on_conditions():
    """Step 2: some features are only accessible on conditions (Kobayashi Maru)."""
    for pos in (START, "command", "bumper56", "flipper_yellow"):
        g = setup(new(), balls=[pos, None])
        act(g, ("roll", 1, 1))
        assert "km" not in dests(g), pos
    g = setup(new(), balls=["flipper_red", None])
    act(g, ("roll", 1, 1))
    assert "km" in dests(g)


# ---- Step 3: Fill a Box ----------------------------------------------------------

def test_step3_fill_box_showing_chosen_value():
    """Step 3: fill an empty box showing the chosen die result."""
    g = new()
    act(g, ("roll", 4, 4))
    for a in fills(g):
        f = g.table.fmap[a[5]]
        assert 4 in f.faces[a[6]]
    with pytest.raises(RuleError):
        act(g, ("fill", 0, 0, 0, 0, "bumper12", 0))


def test_step3_combination_boxes_take_any_of_their_values():
    """Combination Boxes: Command 1/2, 3/4, 5/6; flipper middles 4/5 and 2/3."""
    for v, fid, idx in ((1, "command", 0), (2, "command", 0), (3, "command", 1),
                        (4, "command", 1), (5, "command", 2), (6, "command", 2),
                        (4, "flipper_red", 1), (5, "flipper_red", 1),
                        (2, "flipper_yellow", 1), (3, "flipper_yellow", 1)):
        g = new()
        act(g, ("roll", v, v))
        assert ("fill", 0, 0, 0, 0, fid, idx) in g.legal_actions()
    g = new()
    act(g, ("roll", 5, 5))
    eff = act(g, ("fill", 0, 0, 0, 0, "flipper_red", 1))
    assert ("fill", 0, 0, "flipper_red", 1, 5) in eff
    assert g.players[0].filled["flipper_red"] == [0, 1, 0]


def test_step3_cannot_stay_in_zone_without_fillable_box():
    """Step 3: if you cannot fill a box in a Zone the ball may not stay there."""
    g = setup(new(), balls=["command", None],
              filled={"bumper12": [1, 0, 1, 0], "engineering": [1, 0, 0], "science": [1, 0, 0]})
    act(g, ("roll", 1, 1))
    assert dests(g) == {"flipper_yellow", "outlane_l"}


def test_losing_a_ball_flipper_zone_without_box():
    """Losing a Ball: in the Flipper Zone with no box for either die the ball is lost."""
    g = setup(new(), balls=["engineering", None],
              filled=FULL, nudges=3)
    act(g, ("roll", 3, 4))
    assert g.legal_actions() == [("drain", 0)]
    eff = act(g, ("drain", 0))
    assert ("ball_lost", 0, 0, "drain") in eff
    assert g.players[0].round == 2


def test_step3_must_fill_a_box_when_one_is_possible():
    """Step 3: you MUST fill a box - draining is not offered while a plain move exists."""
    g = new()
    act(g, ("roll", 3, 4))
    assert ("drain", 0) not in g.legal_actions()
    with pytest.raises(RuleError):
        act(g, ("drain", 0))


# ---- Flippers ---------------------------------------------------------------------

def test_flippers_yellow_reaches_yellow_and_white():
    """Flippers: the Yellow Flipper reaches Bumpers, Engineering and Command."""
    g = setup(new(), balls=["flipper_yellow", None])
    up = set()
    for v in range(1, 7):
        g2 = setup(new(), balls=["flipper_yellow", None])
        act(g2, ("roll", v, v))
        up |= {f for f in dests(g2) if g2.table.fmap[f].zone != "flipper"}
    assert up == {"bumper12", "bumper34", "bumper56", "engineering", "command"}
    del g


def test_flippers_red_reaches_red_and_white():
    """Flippers: the Red Flipper reaches Bumpers, Kobayashi Maru and Science."""
    up = set()
    for v in range(1, 7):
        g = setup(new(), balls=["flipper_red", None])
        act(g, ("roll", v, v))
        up |= {f for f in dests(g) if g.table.fmap[f].zone != "flipper"}
    assert up == {"bumper12", "bumper34", "bumper56", "km", "science"}


def test_flippers_may_go_up_to_any_higher_zone():
    """Flippers: not required to reach the highest Zone; skipping allowed."""
    g = setup(new(), balls=["flipper_yellow", None])
    act(g, ("roll", 1, 3))
    d = dests(g)
    assert {"command", "bumper12", "bumper34", "engineering"} <= d


def test_flippers_never_to_lanes_only_fall_back_to_flipper_boxes():
    """Moving to the Same or Between Flippers: the ball falls back to a Flipper box."""
    g = setup(new(), balls=["flipper_red", None])
    act(g, ("roll", 1, 6))
    d = dests(g)
    assert "outlane_l" not in d and "outlane_r" not in d
    assert "flipper_yellow" in d and "flipper_red" in d   # same flipper allowed


# ---- Inlanes and Outlanes ------------------------------------------------------------

def test_inlanes_two_stars_then_onto_flipper_without_filling():
    """Inlanes: score two stars, then straight onto the Flipper without filling a box."""
    g = new()
    act(g, ("roll", 2, 6))
    eff = act(g, ("fill", 0, 0, 0, 0, "inlane_l", 0))
    ps = g.players[0]
    assert ps.stars == 2 and ("stars", 0, 2, "inlane_l") in eff
    assert ps.balls[0] == "flipper_red"
    assert ps.filled["flipper_red"] == [0, 0, 0]
    act(g, ("roll", 1, 1))
    assert "km" in dests(g)    # the ball is on the Red Flipper and shoots up


def test_outlanes_two_stars_per_filled_flipper_box_then_lost():
    """Outlanes: two stars for each filled Flipper box, then the ball is lost."""
    g = setup(new(), balls=["engineering", None], filled={"flipper_yellow": [1, 0, 1]})
    act(g, ("roll", 6, 6))
    eff = act(g, ("fill", 0, 0, 0, 0, "outlane_r", 0))
    assert ("stars", 0, 4, "outlane_r") in eff
    assert ("ball_lost", 0, 0, "outlane") in eff
    assert g.players[0].stars == 4 and g.players[0].round == 2


# ---- Solid, Dash and Double-Lines / round end -----------------------------------------

def test_lines_solid_boxes_erased_when_set_completes():
    """Solid Line: erased when every box of the Set is filled (Command)."""
    g = setup(new(), filled={"command": [1, 1, 0]})
    act(g, ("roll", 5, 5))
    eff = act(g, ("fill", 0, 0, 0, 0, "command", 2))
    assert ("set_complete", 0, "command") in eff
    assert g.players[0].filled["command"] == [0, 0, 0]


def test_lines_dashed_erased_at_round_end_solid_and_double_kept():
    """Dashed Line erased when the Round is complete; solid and double lines stay."""
    g = setup(new(), balls=["engineering", None], nudges=2,
              filled={"flipper_red": [1, 1, 0], "inlane_l": [1], "outlane_r": [0],
                      "flipper_yellow": [1, 1, 1], "bumper12": [1, 1, 0, 0],
                      "km": [1, 1, 0, 0, 0, 0, 0]},
              taken=["engineering.multiball"], flags=["science.bumpers_x3"])
    act(g, ("roll", 1, 6))
    act(g, ("fill", 0, 0, 0, 0, "outlane_l", 0))
    ps = g.players[0]
    assert ps.round == 2
    for fid in ("flipper_red", "flipper_yellow", "inlane_l", "outlane_l", "outlane_r"):
        assert sum(ps.filled[fid]) == 0, fid
    assert ps.filled["bumper12"] == [1, 1, 0, 0]
    assert ps.filled["km"][:2] == [1, 1]
    assert ps.nudges == 2                       # double-line nudge boxes
    assert ps.taken == ["engineering.multiball"]  # double-line bonus boxes
    assert ps.flags == []                        # round-long indicators (dashed)


def test_round_end_procedure():
    """Losing a Ball and Ending a Round: erase dashed, next round circle, ball on Start."""
    g = setup(new(), balls=["engineering", None], filled={"flipper_red": [1, 0, 0]})
    act(g, ("roll", 1, 1))
    eff = act(g, ("fill", 0, 0, 0, 0, "outlane_l", 0))
    assert kinds(eff)[-2:] == ["round_end", "round_start"]
    ps = g.players[0]
    assert ps.round == 2 and ps.balls == [START, None]
    assert g.to_act == CHANCE
    act(g, ("roll", 1, 3))
    assert "command" in dests(g)


# ---- Nudging and Tilting -------------------------------------------------------------

def test_nudge_fills_double_line_box_and_writes_amount():
    """Nudging: fill a double-line box, write the difference as the Nudge amount."""
    g = new()
    act(g, ("roll", 1, 3))
    eff = act(g, ("fill", 0, 1, 0, 1, "flipper_yellow", 2))   # the 3 nudged to a 4
    assert ("nudge", 0, 3, 4, 1) in eff
    ps = g.players[0]
    assert ps.nudges == 1 and ps.namt == 1 and ps.filled["flipper_yellow"][2] == 1


@pytest.mark.parametrize("d1", range(1, 7))
@pytest.mark.parametrize("d2", range(1, 7))
def test_tilting_example_nudge_of_one_tilts_only_on_doubles(d1, d2):
    """Tilting example: roll 1 and 3, nudge the 3 to a 4 (amount 1); only doubles tilt."""
    g = new()
    act(g, ("roll", 1, 3))
    act(g, ("fill", 0, 1, 0, 1, "flipper_yellow", 2))
    eff = act(g, ("roll", d1, d2))
    ps = g.players[0]
    assert ps.namt == 0        # erased after this roll either way
    if d1 == d2:
        assert ("tilt", 0, 1, 0) in eff
        assert ps.round == 2 and ps.balls == [START, None]
        assert g.to_act == CHANCE   # the tilted player does not use this roll
    else:
        assert "tilt" not in kinds(eff) and ps.round == 1
        assert g.to_act == 0


def test_tilting_ends_round_and_loses_all_balls_in_multiball():
    """Tilting: the Round immediately ends, all ball tokens lost (even in Multiball)."""
    g = setup(new(), balls=["bumper12", "command"], mb=True, namt=4, nudges=1)
    eff = act(g, ("roll", 2, 3))
    assert [e for e in eff if e[0] == "ball_lost"] == [("ball_lost", 0, 0, "tilt"),
                                                       ("ball_lost", 0, 1, "tilt")]
    assert g.players[0].round == 2 and not g.players[0].mb


def test_nudge_never_into_losing_a_ball():
    """Nudging: you MAY NOT Nudge a ball if Nudging would make you lose the ball."""
    g = setup(new(), balls=["engineering", None])
    act(g, ("roll", 2, 3))
    for a in g.legal_actions():
        if a[0] == "fill" and a[4]:
            assert g.table.fmap[a[5]].kind != "outlane"
    # a plain 1 or 6 may still go to the outlane
    g = setup(new(), balls=["engineering", None])
    act(g, ("roll", 1, 3))
    assert ("fill", 0, 0, 0, 0, "outlane_l", 0) in g.legal_actions()


def test_nudge_may_avoid_losing_a_ball():
    """Nudging: you may Nudge to AVOID losing a ball."""
    g = setup(new(), balls=["engineering", None],
              filled={"flipper_red": [1, 1, 0], "flipper_yellow": [1, 1, 1],
                      "inlane_l": [1], "inlane_r": [1]})
    act(g, ("roll", 3, 4))
    acts = g.legal_actions()
    assert ("drain", 0) in acts
    saves = [a for a in acts if a[0] == "fill"]
    assert saves and all(a[4] != 0 for a in saves)
    assert all(a[5] == "flipper_red" and a[6] == 2 for a in saves)
    act(g, ("fill", 0, 1, 0, 2, "flipper_red", 2))
    assert g.players[0].balls[0] == "flipper_red" and g.players[0].namt == 2


def test_nudge_and_skill_shot_cannot_avoid_tilt():
    """Nudging/Skill Shot: you may not Nudge (or use a Skill Shot) to avoid a Tilt."""
    g = setup(new(), balls=["bumper12", None], namt=2, nudges=1, skills=[1, 2, 3, 4, 5, 6])
    eff = act(g, ("roll", 4, 5))
    assert ("tilt", 0, 2, 1) in eff
    # the tilt is resolved with the roll, before any choice exists
    assert g.to_act == CHANCE and g.players[0].skills == [1, 2, 3, 4, 5, 6]


def test_nudge_boxes_run_out_and_one_nudge_per_roll():
    """Nudging: once all double-line Nudge boxes are used you can no longer Nudge."""
    g = setup(new(), nudges=CFG["nudge_boxes"])
    act(g, ("roll", 1, 3))
    assert all(a[4] == 0 for a in fills(g, plain=False))
    g = setup(new(), balls=["bumper12", "command"], mb=True)
    act(g, ("roll", 2, 5))
    act(g, ("fill", 0, 0, 0, 1, "bumper34", 0))   # 2 nudged to 3
    assert all(a[4] == 0 for a in fills(g, plain=False))


# ---- Skill Shot Set ------------------------------------------------------------------

def test_skill_shot_cannot_circle_an_already_circled_number():
    """Skill Shot Set: you may not circle a number that is already circled."""
    g = setup(new(), filled={"command": [1, 1, 0]}, skills=[1, 5])
    act(g, ("roll", 6, 2))
    act(g, ("fill", 0, 0, 0, 0, "command", 2))
    assert g.phase == "skill"
    assert g.legal_actions() == [("skill", 2), ("skill", 3), ("skill", 4), ("skill", 6)]
    with pytest.raises(RuleError):
        act(g, ("skill", 5))


def test_skill_shot_lost_when_all_numbers_circled():
    """Skill Shot Set: with every number circled there is nothing left to circle."""
    g = setup(new(), filled={"command": [1, 1, 0]}, skills=[1, 2, 3, 4, 5, 6])
    act(g, ("roll", 6, 2))
    eff = act(g, ("fill", 0, 0, 0, 0, "command", 2))
    assert ("skill_shot_lost", 0) in eff and g.phase == "roll"


def test_skill_shot_used_instead_of_die_and_erased():
    """Skill Shot Set: use a circled number instead of a die result, then erase it."""
    g = setup(new(), balls=["command", None], skills=[3])
    act(g, ("roll", 6, 6))
    eff = act(g, ("fill", 0, 0, 3, 0, "bumper34", 0))
    assert ("skill_used", 0, 3, 6) in eff
    assert g.players[0].skills == [] and g.players[0].balls[0] == "bumper34"


# ---- Multiball -----------------------------------------------------------------------

def _mb_game():
    return setup(new(), balls=["command", START], mb=True)


def test_multiball_each_die_to_one_ball():
    """Multiball: assign one die result to each ball; not the same result for both."""
    g = _mb_game()
    act(g, ("roll", 3, 5))
    first = {(a[1], a[2]) for a in fills(g)}
    assert first == {(0, 0), (0, 1), (1, 0), (1, 1)}
    act(g, ("fill", 0, 1, 0, 0, "bumper56", 0))   # ball 0 takes the 5
    assert g.to_act == 0
    rest = fills(g)
    assert rest and all(a[1] == 1 and a[2] == 0 for a in rest)
    act(g, ("fill", 1, 0, 0, 0, "command", 1))
    assert g.to_act == CHANCE


def test_multiball_doubles_and_same_feature_different_boxes():
    """Multiball: both balls may be on the same feature but fill different boxes."""
    g = setup(new(), balls=["command", START], mb=True)
    act(g, ("roll", 5, 5))
    act(g, ("fill", 0, 0, 0, 0, "bumper56", 0))
    act(g, ("fill", 1, 1, 0, 0, "bumper56", 2))
    assert g.players[0].filled["bumper56"] == [1, 0, 1, 0]
    assert g.players[0].balls == ["bumper56", "bumper56"]


def test_multiball_resolve_one_ball_then_the_other():
    """Multiball: move and collect bonuses from one ball before the second (Skill Shot)."""
    g = setup(new(), balls=["flipper_yellow", "bumper12"], mb=True,
              filled={"command": [1, 1, 0]}, skills=[1, 2, 3, 4, 6])
    act(g, ("roll", 5, 1))
    act(g, ("fill", 0, 0, 0, 0, "command", 2))   # completes Command: only 5 left to circle
    assert g.players[0].skills == [1, 2, 3, 4, 5, 6]
    # the second ball may use the fresh Skill Shot of 5 at once (instead of its 1)
    assert ("fill", 1, 1, 5, 0, "engineering", 2) in g.legal_actions()
    act(g, ("fill", 1, 1, 5, 0, "engineering", 2))
    assert 5 not in g.players[0].skills


def test_multiball_stars_doubled_and_ends_when_turn_starts_with_one_ball():
    """Multiball: doubled stars, still on the turn a ball is lost; ends next turn."""
    g = setup(new(), balls=["engineering", "command"], mb=True,
              filled=FULL, nudges=3)
    act(g, ("roll", 3, 5))
    act(g, ("drain", 0))
    eff = act(g, ("fill", 1, 1, 0, 0, "bumper56", 0))
    assert ("stars", 0, 2, "bumper56") in eff
    assert g.players[0].mb
    eff = act(g, ("roll", 1, 2))
    assert ("multiball_end", 0) in eff and not g.players[0].mb
    eff = act(g, ("fill", 1, 0, 0, 0, "bumper12", 0))
    assert ("stars", 0, 1, "bumper12") in eff


def test_multiball_cannot_start_again_while_active():
    """Multiball: if Multiball is already active you may not gain it again."""
    g = setup(new(), balls=["flipper_red", "command"], mb=True, filled={"science": [1, 1, 0]})
    act(g, ("roll", 6, 1))
    act(g, ("fill", 0, 0, 0, 0, "science", 2))
    assert g.phase == "bonus"
    opts = {a[2] for a in g.legal_actions()}
    assert opts == {"bumpers_x3", "outlanes_x2", "stars3"}
    # with one ball left it may be gained again
    g = setup(new(), balls=["flipper_red", None], mb=True, filled={"science": [1, 1, 0]})
    act(g, ("roll", 6, 1))
    act(g, ("fill", 0, 0, 0, 0, "science", 2))
    assert "multiball" in {a[2] for a in g.legal_actions()}


def test_multiball_second_ball_starts_at_start_arrow_next_roll():
    """Multiball: the second ball is placed on the Start Arrow and moves on the next roll."""
    g = setup(new(), balls=["flipper_yellow", None], filled={"engineering": [1, 1, 0]})
    act(g, ("roll", 5, 2))
    act(g, ("fill", 0, 0, 0, 0, "engineering", 2))
    eff = act(g, ("bonus", "engineering", "multiball"))
    assert ("multiball", 0, 1) in eff
    ps = g.players[0]
    assert ps.balls == ["engineering", START] and ps.mb
    assert g.to_act == CHANCE    # the new ball waits for the next roll
    act(g, ("roll", 1, 3))
    assert {a[1] for a in fills(g)} == {0, 1}
    assert "command" in {a[5] for a in fills(g) if a[1] == 1}


# ---- Sets and bonuses -----------------------------------------------------------------

def test_sets_completion_erases_and_offers_bonus_menu():
    """Sets / Drop Target Sets: completing a Set erases it and offers its bonuses."""
    g = setup(new(), balls=["bumper12", None], filled={"engineering": [1, 0, 1]})
    act(g, ("roll", 3, 3))
    eff = act(g, ("fill", 0, 0, 0, 0, "engineering", 1))
    assert ("set_complete", 0, "engineering") in eff
    assert g.players[0].filled["engineering"] == [0, 0, 0]
    assert g.phase == "bonus" and g.to_act == 0
    assert g.legal_actions() == [("bonus", "engineering", o) for o in
                                 ("fill_km", "multiball", "flipper_pass", "stars2")]


def test_bonuses_once_per_game_but_star_bonus_repeatable():
    """Drop Target Sets: most bonuses once per game; the infinity star bonus any number."""
    g = setup(new(), balls=["bumper12", None], filled={"science": [1, 0, 1]},
              taken=["science.bumpers_x3", "science.multiball"])
    act(g, ("roll", 3, 3))
    act(g, ("fill", 0, 0, 0, 0, "science", 1))
    assert {a[2] for a in g.legal_actions()} == {"outlanes_x2", "stars3"}
    act(g, ("bonus", "science", "stars3"))
    assert g.players[0].taken == ["science.bumpers_x3", "science.multiball"]
    # all once-options gone: the star bonus is the only one and is taken at once
    g = setup(new(), balls=["bumper12", None], filled={"science": [1, 0, 1]},
              taken=["science.bumpers_x3", "science.multiball", "science.outlanes_x2"])
    act(g, ("roll", 3, 3))
    eff = act(g, ("fill", 0, 0, 0, 0, "science", 1))
    assert ("bonus", 0, "science", "stars3") in eff and ("stars", 0, 3, "science.stars3") in eff


def test_all_multipliers_stack():
    """Earning Rewards: all bonuses stack (Multiball x2 with Bumpers x3 = x6)."""
    g = setup(new(), balls=["command", "engineering"], mb=True, flags=["science.bumpers_x3"])
    act(g, ("roll", 5, 1))
    eff = act(g, ("fill", 0, 0, 0, 0, "bumper56", 0))
    assert ("stars", 0, 6, "bumper56") in eff
