"""Lower Decks: special rules and the rulebook's worked examples.

Sections cited: "Lower Decks Special Rules" (SINGLE ROUND and Tilt, GRAVITY
with its examples, START OF GAME, CREWMEMBERS, BUMPERS, Drop Targets,
PROMOTION Targets with the 87 -> 91 -> 182 example, Bar Bonuses, Bridge
Bonuses, Holodeck / Replicator) and the Score Board ("Lower Decks
Achievements"). Layout details the rulebook does not print are in
docs/assumptions/superskill.md.
"""
import json
from pathlib import Path

import pytest

from rules.errors import RuleError
from rules.superskill import START, SuperSkillGame
from rules.superskill import lower_decks as ld

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/superskill/lower_decks.json").read_text())


def new(n=1):
    return SuperSkillGame(CFG, n)


def setup(g, p=0, x=None, filled=None, **fields):
    d = g.to_dict()
    pd = d["players"][p]
    for fid, row in (filled or {}).items():
        pd["filled"][fid] = list(row)
    for k, v in (x or {}).items():
        pd["x"][k] = v
    for k, v in fields.items():
        pd[k] = v
    return SuperSkillGame.from_dict(CFG, d)


def where(g, plain=True):
    return {a[5] for a in g.legal_actions()
            if a[0] == "fill" and (not plain or (a[3] == 0 and a[4] == 0))}


def colours_of(g, fid):
    return set(g.table.fmap[fid].colours)


# ---- the table ------------------------------------------------------------------------

def test_table_contents_and_single_round():
    """Lower Decks: crew inlanes, Promotion, Bridge, Bar targets, Bumpers, Replicator and
    Holodeck (sets of six scoops); SINGLE ROUND."""
    t = new().table
    sizes = {s.id: sum(t.fmap[f].nbox for f in s.features) for s in t.sets}
    assert sizes == {"pro": 3, "mot": 3, "ion": 3, "bumpers": 12, "bar": 3, "bridge": 4,
                     "holodeck": 6, "replicator": 6}
    crew = sorted(f.data["crew"] for f in t.features if f.kind == "inlane")
    assert crew == ["boimler", "mariner", "rutherford", "tendi"]
    assert t.rounds == 1 and t.mb_factor == 1
    assert sorted(f.id for f in t.features if f.kind == "outlane") == [
        "outlane_gl", "outlane_gr", "outlane_rl", "outlane_rr"]
    # Holodeck and Replicator each in their own zone
    assert {t.fmap["holodeck"].zone, t.fmap["replicator"].zone}.isdisjoint(
        {f.zone for f in t.features if f.id not in ("holodeck", "replicator")})


def test_single_round_losing_the_ball_ends_the_game():
    """SINGLE ROUND: when you have no more balls on the Table, the game is over."""
    full = {f.id: [1] * f.nbox for f in new().table.features if f.zone == "ry_flip"}
    g = setup(new(), balls=["holodeck", None], filled=full)
    g.apply(("roll", 2, 3))
    g.apply(("drain", 0))
    assert g.is_over() and g.players[0].done


# ---- gravity --------------------------------------------------------------------------

def test_gravity_orientation_by_ten_star_blocks():
    """GRAVITY: each block of 10 stars has Red/Yellow or Green/Purple behind it; 9 stars
    Red/Yellow, 12 (and 11) Green/Purple; exactly 100, 200, 300 stay Green/Purple."""
    g = new()
    o = [ld.orientation_for(g, s) for s in (0, 9, 10, 11, 12, 20, 21, 99, 100, 101, 200, 300)]
    assert o == ["ry", "ry", "ry", "gp", "gp", "gp", "ry", "gp", "gp", "ry", "gp", "gp"]


def test_gravity_example_nine_plus_three_rotates_at_end_of_turn():
    """GRAVITY example: 9 stars, score 3 -> 12: the table turns Green/Purple at the
    bottom at the end of the turn and stays so until a turn ends in another block."""
    g = setup(new(), stars=9, balls=["pro", None])
    g.apply(("roll", 3, 3))
    eff = g.apply(("fill", 0, 0, 0, 0, "holodeck", 2))   # 3 stars -> 12
    assert g.players[0].stars == 12 and g.players[0].x["orient"] == "ry"  # not yet
    eff = g.apply(("roll", 1, 2))
    assert ("gravity", 0, "gp") in eff and g.players[0].x["orient"] == "gp"
    del eff


def test_gravity_tendi_example_ball_moves_down_from_the_top():
    """GRAVITY example: 9 stars on the Holodeck, roll 3 and 5, the 3 Inlane gives two stars
    and Tendi (11 stars, the table flips); the ball, not shot from the Red Flipper, moves
    down to the Holodeck or any feature below."""
    g = setup(new(), stars=9, balls=["holodeck", None])
    g.apply(("roll", 3, 5))
    eff = g.apply(("fill", 0, 0, 0, 0, "inlane_tendi", 0))
    assert ("stars", 0, 2, "inlane_tendi") in eff and ("crew", 0, "tendi") in eff
    assert g.players[0].balls[0] == "flipper_red" and g.players[0].stars == 11
    g.apply(("roll", 1, 2))
    assert g.players[0].x["orient"] == "gp"
    reach = where(g)
    assert "holodeck" in reach              # now directly below the Red Flipper
    # moving down, colours no longer matter: yellow, red and green features alike
    assert {"holodeck", "bar", "pro", "mot", "ion"} <= reach
    assert not reach & {"flipper_red", "flipper_yellow", "inlane_tendi"}


def test_gravity_only_bottom_flippers_active_colours_half_the_table():
    """GRAVITY: only the bottom Flippers are active; from them only matching colours and
    never past the centre Zone."""
    g = setup(new(), balls=["flipper_yellow", None])
    g.apply(("roll", 1, 4))
    reach = where(g)
    assert {"pro", "holodeck", "mot"} <= reach
    assert not reach & {"ion", "replicator", "bridge", "bar"}
    lv = g.table.level
    centre = lv("mot")
    for fid in reach:
        assert lv(fid) >= centre or g.table.fmap[fid].kind == "flipper"
    # the top (Green/Purple) flippers do nothing: a ball there just moves down
    g = setup(new(), balls=["flipper_green", None])
    g.apply(("roll", 1, 4))
    reach = where(g)
    assert {"replicator", "ion", "bridge", "pro", "bar", "holodeck"} <= reach
    assert not reach & {"flipper_green", "flipper_purple"}


def test_gravity_flipped_flippers_and_fall_back():
    """GRAVITY: with Green/Purple at the bottom their flippers are the active ones."""
    g = setup(new(), stars=15, x={"orient": "gp"}, balls=["flipper_green", None])
    g.apply(("roll", 1, 4))
    reach = where(g)
    assert {"ion", "replicator", "mot"} <= reach and "flipper_purple" in reach
    assert not reach & {"pro", "holodeck", "bar", "bridge"}


def test_outlane_five_stars_rotation_keeps_the_ball():
    """GRAVITY: Outlanes are worth five stars; if those stars rotate the table the ball is
    not lost and moves back down from the Flipper Zone next turn."""
    g = setup(new(), stars=8, balls=["holodeck", None])
    g.apply(("roll", 1, 2))
    eff = g.apply(("fill", 0, 0, 0, 0, "outlane_rl", 0))
    assert ("stars", 0, 5, "outlane_rl") in eff
    assert not [e for e in eff if e[0] == "ball_lost"]
    assert g.players[0].balls[0] == "outlane_rl" and not g.is_over()
    g.apply(("roll", 3, 4))
    assert g.players[0].x["orient"] == "gp"
    assert "holodeck" in where(g)
    # no rotation: the outlane loses the ball (and ends the game)
    g = setup(new(), stars=2, balls=["holodeck", None])
    g.apply(("roll", 1, 2))
    eff = g.apply(("fill", 0, 0, 0, 0, "outlane_rl", 0))
    assert ("ball_lost", 0, 0, "outlane") in eff and g.is_over()


# ---- start and bumpers ----------------------------------------------------------------

def test_start_of_game_to_bumpers_of_current_orientation():
    """START OF GAME: the ball first moves to one of the two Bumpers of the current
    orientation: the Red/Yellow ones on the first turn; a Multiball ball while flipped
    goes to the Green/Purple ones."""
    g = new()
    g.apply(("roll", 1, 4))
    assert where(g, plain=False) == {"bumper_a", "bumper_b"}
    g = setup(new(), stars=15, x={"orient": "gp"}, balls=["pro", START], mb=True)
    g.apply(("roll", 1, 4))
    starts = {a[5] for a in g.legal_actions() if a[0] == "fill" and a[1] == 1}
    assert starts == {"bumper_c", "bumper_d"}


def test_bumpers_each_flipper_two_of_four_arrows_any_orientation():
    """BUMPERS: each Flipper reaches two of the four Bumpers; from a Bumper the arrows are
    followed regardless of orientation; one star a box; erased after 12 boxes."""
    for flip in ("flipper_red", "flipper_yellow"):
        g = setup(new(), balls=[flip, None])
        g.apply(("roll", 1, 3))
        bumps = {f for f in where(g) if f.startswith("bumper")}
        assert bumps == {"bumper_a", "bumper_b"}
    for flip in ("flipper_green", "flipper_purple"):
        g = setup(new(), stars=15, x={"orient": "gp"}, balls=[flip, None])
        g.apply(("roll", 1, 3))
        assert {f for f in where(g) if f.startswith("bumper")} == {"bumper_c", "bumper_d"}
    g = setup(new(), balls=["bumper_b", None])
    g.apply(("roll", 1, 3))
    assert "bumper_c" in where(g)            # the arrow, Red/Yellow at the bottom
    full = {b: [1, 1, 1] for b in ("bumper_a", "bumper_b", "bumper_c")}
    full["bumper_d"] = [1, 1, 0]
    g = setup(new(), balls=["bumper_c", None], filled=full)
    g.apply(("roll", 5, 5))
    eff = g.apply(("fill", 0, 0, 0, 0, "bumper_d", 2))
    assert ("stars", 0, 1, "bumper_d") in eff and ("set_complete", 0, "bumpers") in eff


# ---- tilt --------------------------------------------------------------------------------

def test_tilt_escalation_outlanes_inlanes_game_over():
    """SINGLE ROUND / Tilt: the first Tilt fills the four Outlanes, the second the four
    Inlanes (no stars, the round goes on), the third ends the game."""
    g = setup(new(), balls=["pro", None], namt=2, nudges=1)
    eff = g.apply(("roll", 3, 4))            # difference 1 < 2: tilt
    ps = g.players[0]
    assert ("tilt", 0, 2, 1) in eff
    assert all(ps.filled[f] == [1] for f in ("outlane_gl", "outlane_gr", "outlane_rl", "outlane_rr"))
    assert ps.stars == 0 and not [e for e in eff if e[0] == "stars"]
    assert g.phase == "move" and ps.balls[0] == "pro"     # still playing this roll
    assert "outlanes4" not in ld.achievements(ps.x)       # a tilt's outlanes do not count
    g = setup(g, namt=3, nudges=2, x={"tilts": 1})
    d = g.to_dict()
    d["cur"] = -1
    d["players"][0].update({"todo": [], "used": [], "nudged": False})
    g = SuperSkillGame.from_dict(CFG, d)
    eff = g.apply(("roll", 2, 2))
    ps = g.players[0]
    assert all(ps.filled[f.id] == [1] for f in g.table.features if f.kind == "inlane")
    assert ps.x["tendi"] == 0 and ps.skills == []   # nobody recruited
    assert not g.is_over()
    d = g.to_dict()
    d["cur"] = -1
    d["players"][0].update({"todo": [], "used": [], "nudged": False, "namt": 1, "nudges": 3})
    g = SuperSkillGame.from_dict(CFG, d)
    eff = g.apply(("roll", 4, 4))
    assert ("tilt", 0, 1, 0) in eff and g.is_over()


def test_tilt_third_actual_tilt_not_third_nudge():
    """Tilt note: "tilting a third time" means a third actual Tilt, not a third Nudge."""
    g = setup(new(), balls=["pro", None], namt=1, nudges=3, x={"tilts": 0})
    eff = g.apply(("roll", 1, 5))
    assert ("nudge_clear", 0, 1, 4) in eff and g.players[0].x["tilts"] == 0
    assert not g.is_over()


# ---- crew -----------------------------------------------------------------------------------

def test_crew_tendi_holodeck_double_until_set_complete():
    """CREWMEMBERS - Tendi: Holodeck Scoops (not Replicator) worth 2x until the Set is complete."""
    g = setup(new(), x={"tendi": 1}, balls=["pro", None],
              filled={"holodeck": [1, 1, 1, 1, 0, 0]})
    g.apply(("roll", 5, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "holodeck", 4))
    assert ("stars", 0, 10, "holodeck") in eff
    g = setup(new(), x={"tendi": 1}, balls=["pro", None],
              filled={"holodeck": [1, 1, 1, 1, 1, 0]})
    g.apply(("roll", 6, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "holodeck", 5))
    assert ("stars", 0, 12, "holodeck") in eff           # the completing scoop still doubled
    assert g.players[0].x["tendi"] == 2
    assert g.legal_actions() == [("choose", "holo", "tendi"), ("choose", "holo", "")]
    g.apply(("choose", "holo", ""))                      # the Holodeck reset kept for later
    assert g.players[0].x["tendi"] == 2 and g.players[0].x["holo"] == 0
    g = setup(new(), x={"tendi": 1}, balls=["flipper_green", None])
    g.apply(("roll", 5, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "replicator", 4))
    assert ("stars", 0, 5, "replicator") in eff


def test_crew_mariner_changes_a_die_three_times():
    """CREWMEMBERS - Mariner: change any die to any value by filling one of her boxes,
    three times."""
    g = setup(new(), x={"mariner": 1, "mboxes": 2})
    g.apply(("roll", 1, 1))
    wild = [a for a in g.legal_actions() if a[0] == "wild"]
    assert {a[4] for a in wild} == {2, 3, 4, 5, 6}
    eff = g.apply(("wild", 0, 0, "mariner", 4, "bumper_b", 1))
    assert ("wild", 0, "mariner", 1, 4) in eff
    assert g.players[0].x["mboxes"] == 3
    g.apply(("roll", 2, 3))
    assert not [a for a in g.legal_actions() if a[0] == "wild"]


def test_crew_mariner_cannot_prevent_a_tilt():
    """CREWMEMBERS - Mariner: may not be used to prevent a Tilt (checked before any choice)."""
    g = setup(new(), balls=["pro", None], namt=3, nudges=1, x={"mariner": 1})
    eff = g.apply(("roll", 2, 3))
    assert ("tilt", 0, 3, 1) in eff and g.players[0].x["tilts"] == 1


def test_crew_rutherford_six_skill_shots():
    """CREWMEMBERS - Rutherford: upon activating him you gain six Skill Shots, one per number."""
    g = setup(new(), balls=["holodeck", None])
    g.apply(("roll", 4, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "inlane_rutherford", 0))
    assert ("crew", 0, "rutherford") in eff
    assert g.players[0].skills == [1, 2, 3, 4, 5, 6]
    assert g.players[0].balls[0] == "flipper_yellow"


def test_crew_boimler_from_the_green_purple_end():
    """CREWMEMBERS - Boimler (and Mariner) are recruited at the Green/Purple end."""
    g = setup(new(), stars=15, x={"orient": "gp"}, balls=["replicator", None])
    g.apply(("roll", 5, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "inlane_boimler", 0))
    assert ("crew", 0, "boimler") in eff and g.players[0].x["boimler"] == 1
    assert g.players[0].balls[0] == "flipper_purple"


# ---- PROMOTION ----------------------------------------------------------------------------

def promotion_game(**x):
    xs = {"ind": [1, 1, 0]}
    xs.update(x)
    return setup(new(), stars=87, x=xs, balls=["replicator", None],
                 filled={"ion": [1, 1, 0]})


def test_promotion_example_87_91_182():
    """PROMOTION example: 87 stars, the last I-O-N target: one star for the target, three
    for the set: 91; PROMOTION doubles it: 182."""
    g = promotion_game()
    g.apply(("roll", 5, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "ion", 2))
    st = [e for e in eff if e[0] == "stars"]
    assert st == [("stars", 0, 1, "ion"), ("stars", 0, 3, "ion"), ("stars", 0, 91, "promotion")]
    x = g.players[0].x
    assert g.players[0].stars == 182 and x["ind"] == [0, 0, 0] and x["promos"] == 1
    assert g.players[0].filled["ion"] == [0, 0, 0]


def test_promotion_example_with_boimler_eight_stars():
    """PROMOTION example: with Boimler active you score eight stars instead of four before
    doubling (87 -> 95 -> 190); Boimler's bonus ends with the PROMOTION."""
    g = promotion_game(boimler=1)
    g.apply(("roll", 5, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "ion", 2))
    st = [e for e in eff if e[0] == "stars"]
    assert st == [("stars", 0, 2, "ion"), ("stars", 0, 6, "ion"), ("stars", 0, 95, "promotion")]
    assert g.players[0].stars == 190 and g.players[0].x["boimler"] == 2


def test_promotion_set_of_three_sets_indicator_and_three_stars():
    """PROMOTION Targets: completing one set of three fills its indicator, clears the
    targets and scores three stars."""
    g = setup(new(), balls=["flipper_yellow", None], filled={"pro": [1, 0, 1]})
    g.apply(("roll", 3, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "pro", 1))
    assert ("indicator", 0, "pro") in eff and ("stars", 0, 3, "pro") in eff
    assert g.players[0].x["ind"] == [1, 0, 0] and g.players[0].stars == 4


def test_promotion_replicator_doubles_targets_not_the_doubling():
    """Holodeck / Replicator: the Replicator doubling stacks with all bonuses except the
    PROMOTION bonus (the Promotion target and set stars are still doubled)."""
    g = promotion_game(rep=1)
    g.apply(("roll", 5, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "ion", 2))
    st = [e for e in eff if e[0] == "stars"]
    assert st == [("stars", 0, 2, "ion"), ("stars", 0, 6, "ion"), ("stars", 0, 95, "promotion")]


# ---- Bar and Bridge -------------------------------------------------------------------------

def test_bar_bonuses_and_multiball_without_doubling():
    """Bar Bonuses: Multiball (stars NOT doubled), Bumper x2, Replicator x2, 2 stars."""
    g = setup(new(), balls=["flipper_red", None], filled={"bar": [1, 1, 0]})
    g.apply(("roll", 5, 2))
    g.apply(("fill", 0, 0, 0, 0, "bar", 2))
    assert [a[2] for a in g.legal_actions()] == ["multiball", "bumper_x2", "replicator_x2", "stars2"]
    g.apply(("bonus", "bar", "multiball"))
    assert g.players[0].mb and g.players[0].balls[1] == START
    g.apply(("roll", 1, 3))
    eff = g.apply(("fill", 1, 0, 0, 0, "bumper_a", 0))
    assert [e[2] for e in eff if e[0] == "stars"] == [1]
    eff = g.apply(("fill", 0, 1, 0, 0, "holodeck", 2))
    assert [e[2] for e in eff if e[0] == "stars"] == [3]
    g = setup(new(), flags=["bar.bumper_x2", "bar.replicator_x2"], balls=["flipper_green", None])
    g.apply(("roll", 2, 3))
    eff = g.apply(("fill", 0, 1, 0, 0, "replicator", 2))
    assert ("stars", 0, 6, "replicator") in eff
    g = setup(new(), flags=["bar.replicator_x2"], balls=["pro", None])
    g.apply(("roll", 2, 3))
    eff = g.apply(("fill", 0, 1, 0, 0, "holodeck", 2))
    assert ("stars", 0, 3, "holodeck") in eff            # Replicator only, not Holodeck


def test_bridge_bonuses_reset_crew_and_fill_two_promotion_targets():
    """Bridge Bonuses: Bridge x2, Reset Crewmen (e.g. Rutherford: all six Skill Shots again),
    Fill two Promotion Targets (scored), 3 stars."""
    g = setup(new(), stars=15, x={"orient": "gp", "ruth": 1}, skills=[2],
              balls=["flipper_purple", None], filled={"bridge": [1, 1, 1, 0]})
    g.apply(("roll", 6, 1))
    g.apply(("fill", 0, 0, 0, 0, "bridge", 3))
    assert [a[2] for a in g.legal_actions()] == ["bridge_x2", "reset_crew", "fill_promo", "stars3"]
    eff = g.apply(("bonus", "bridge", "reset_crew"))
    assert ("crew_reset", 0, "rutherford") in eff and g.players[0].skills == [1, 2, 3, 4, 5, 6]
    g = setup(new(), stars=15, x={"orient": "gp"}, balls=["flipper_purple", None],
              filled={"bridge": [1, 1, 1, 0], "mot": [1, 1, 0]})
    g.apply(("roll", 6, 1))
    g.apply(("fill", 0, 0, 0, 0, "bridge", 3))
    assert ("bonus", "bridge", "reset_crew") not in g.legal_actions()   # nobody to reset
    g.apply(("bonus", "bridge", "fill_promo"))
    assert g.phase == "choice"
    before = g.players[0].stars
    g.apply(("choose", "promo", "mot", 2))
    assert g.players[0].x["ind"] == [0, 1, 0] and g.players[0].stars == before + 1 + 3
    g.apply(("choose", "promo", "pro", 0))
    assert g.players[0].filled["pro"] == [1, 0, 0] and g.phase == "roll"


def test_bridge_x2_targets_worth_two():
    """Bridge Bonuses: Bridge x2 makes Bridge targets worth two stars."""
    g = setup(new(), stars=15, x={"orient": "gp"}, flags=["bridge.bridge_x2"],
              balls=["flipper_purple", None])
    g.apply(("roll", 6, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "bridge", 3))
    assert ("stars", 0, 2, "bridge") in eff


# ---- Holodeck and Replicator ----------------------------------------------------------------

def test_holodeck_complete_reset_crewmen_once_per_game():
    """Holodeck: completing the set resets one Crewman (Tendi: Holodeck doubled again);
    only once per game."""
    g = setup(new(), x={"tendi": 2}, balls=["pro", None],
              filled={"holodeck": [1, 1, 1, 1, 1, 0]})
    g.apply(("roll", 6, 1))
    g.apply(("fill", 0, 0, 0, 0, "holodeck", 5))
    eff = g.apply(("choose", "holo", "tendi"))
    assert ("crew_reset", 0, "tendi") in eff and g.players[0].x["tendi"] == 1
    assert g.players[0].x["holo"] == 1
    g = setup(new(), x={"tendi": 2, "holo": 1}, balls=["pro", None],
              filled={"holodeck": [1, 1, 1, 1, 1, 0]})
    g.apply(("roll", 6, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "holodeck", 5))
    assert g.players[0].x["tendi"] == 2 and not [e for e in eff if e[0] == "crew_reset"]
    assert g.phase == "roll"


def test_replicator_doubles_all_stars_until_next_flip():
    """Replicator: completing it doubles all stars until the next time the table flips;
    it may be gained any number of times."""
    g = setup(new(), stars=1, balls=["flipper_green", None],
              filled={"replicator": [1, 1, 1, 1, 1, 0]})
    g.apply(("roll", 6, 1))
    eff = g.apply(("fill", 0, 0, 0, 0, "replicator", 5))     # 6 stars -> 7, no flip
    assert ("replicator", 0, 1) in eff and g.players[0].x["rep"] == 1
    g.apply(("roll", 1, 2))
    eff = g.apply(("fill", 0, 1, 0, 0, "holodeck", 1))
    assert ("stars", 0, 4, "holodeck") in eff                  # 2 doubled -> 11 stars
    eff = g.apply(("roll", 3, 4))
    assert ("gravity", 0, "gp") in eff and g.players[0].x["rep"] == 0


def test_replicator_flip_on_last_spot_starts_with_new_orientation():
    """Replicator: if filling the last Replicator spot flips the table, the bonus begins
    with the new orientation."""
    g = setup(new(), stars=5, balls=["flipper_green", None],
              filled={"replicator": [1, 1, 1, 1, 1, 0]})
    g.apply(("roll", 6, 1))
    g.apply(("fill", 0, 0, 0, 0, "replicator", 5))           # 11 stars: a flip is coming
    assert g.players[0].x["rep"] == 2
    eff = g.apply(("roll", 2, 3))
    assert ("gravity", 0, "gp") in eff and g.players[0].x["rep"] == 1


# ---- achievements -----------------------------------------------------------------------------

def test_achievements_score_board():
    """Score Board - Lower Decks Achievements: all four outlanes, 100+ and 200+ stars on a
    PROMOTION, PROMOTION twice."""
    assert [a["name"] for a in CFG["achievements"]] == [
        "Fill all four outlanes", "Gain 100+ stars on a PROMOTION",
        "Gain 200+ stars on a PROMOTION", "Get PROMOTION twice"]
    g = setup(new(), stars=196, x={"ind": [1, 1, 0], "promos": 1, "orient": "gp"},
              balls=["pro", None], filled={"ion": [0, 1, 1]})
    g.apply(("roll", 1, 4))
    g.apply(("fill", 0, 0, 0, 0, "ion", 0))
    x = g.players[0].x
    assert x["best"] == 200 and g.players[0].stars == 400
    assert ld.achievements(x) == ["promo100", "promo200", "promo_twice"]
    outl = {f: [1] for f in ("outlane_gl", "outlane_gr", "outlane_rl")}
    g = setup(new(), stars=2, balls=["holodeck", None], filled=outl)
    g.apply(("roll", 6, 6))
    g.apply(("fill", 0, 0, 0, 0, "outlane_rr", 0))
    assert ld.achievements(g.players[0].x) == ["outlanes4"]


def test_state_validation():
    """Details of Play: bad Lower Decks extra state is refused."""
    g = new()
    d = json.loads(json.dumps(g.to_dict()))
    assert SuperSkillGame.from_dict(CFG, d).to_dict() == d
    for bad in ({"orient": "up"}, {"tilts": 4}, {"ind": [1, 2, 0]}, {"mboxes": 4}):
        d2 = json.loads(json.dumps(d))
        d2["players"][0]["x"].update(bad)
        with pytest.raises(RuleError):
            SuperSkillGame.from_dict(CFG, d2)
    d2 = json.loads(json.dumps(d))
    d2["players"][0]["balls"] = ["inlane_tendi", None]
    with pytest.raises(RuleError):
        SuperSkillGame.from_dict(CFG, d2)
