"""Borg Attack: special rules, the Borg Battle and the Extended Borg Battle Example.

Sections cited: "Borg Attack" (Prepare for Battle, START OF GAME, CIVILIAN
RESCUE TRACK, BUMPERS, BEACON, ARM, Drop Targets, Lab Bonuses, Starbase
Bonuses), "Borg Battle" (attacks, ATTACKING THE BORG CUBE, adaptations,
modulations, PHOTON TORPEDOES), "Destroying the Cube", "Extended Borg Battle
Example" and the Score Board ("Borg Attack Achievements"). Layout details the
rulebook does not print are in docs/assumptions/superskill.md.
"""
import json
from pathlib import Path

import pytest

from rules.errors import RuleError
from rules.superskill import START, SuperSkillGame
from rules.superskill import borg_attack as ba

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/superskill/borg_attack.json").read_text())
ROWS = CFG["borg"]["cube"]


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


def block(row, value, nth=0):
    """Flat index of the nth block showing `value` in cube row `row` (1 = bottom)."""
    k = sum(len(r) for r in ROWS[:row - 1])
    hits = [k + i for i, b in enumerate(ROWS[row - 1]) if b[0] == value]
    return hits[nth]


def where(g):
    return {a[5] for a in g.legal_actions() if a[0] == "fill" and a[3] == 0 and a[4] == 0}


def ships(*nums):
    return [1 if k in nums else 0 for k in range(1, 7)]


def battle(recruited, torps=(), mods=0, skills=(), pos=0, **x):
    """A player in the battle round with the ball at `pos`."""
    xs = {"battle": 1, "ships": ships(*recruited),
          "dead": [0 if k in recruited else 1 for k in range(1, 7)],
          "torp": ships(*torps), "mods": mods, "pos": pos}
    xs.update(x)
    # ready: the player has already passed the pre-roll decision for this roll
    return setup(new(), x=xs, round=3, skills=list(skills), ready=True)


FLIPZONE = {f: [1] * n for f, n in (("outlane_l", 1), ("inlane_l", 1), ("flipper_red", 3),
                                    ("flipper_yellow", 3), ("inlane_r", 1), ("outlane_r", 1))}


# ---- main table ------------------------------------------------------------------------

def test_table_contents():
    """Borg Attack: Start Arrow, BEACON (3), RESCUE, Yellow Bumpers (12 boxes), ARM (3),
    STARBASE (4), LAB (3); three rounds, the third on the Backglass."""
    t = new().table
    sizes = {s.id: sum(t.fmap[f].nbox for f in s.features) for s in t.sets}
    assert sizes == {"beacon": 3, "rescue": 3, "bumpers": 12, "arm": 3, "lab": 3, "starbase": 4}
    assert t.rounds == 3 and CFG["borg"]["battle_round"] == 3 and CFG["borg"]["ships"] == 6
    assert t.fmap["lab"].colour == "red" and t.fmap["starbase"].colour == "yellow"


def test_start_of_game_ships_slashed_start_into_bumpers():
    """START OF GAME: all six Ships slashed; the Start Arrow launches into either Bumper."""
    g = new()
    assert g.players[0].x["ships"] == [0] * 6
    g.apply(("roll", 1, 4))
    assert where(g) == {"bumper_star", "bumper_civ"}


def test_bumpers_star_or_civilian_yellow_flipper():
    """BUMPERS: a box gives one star or one civilian as shown; the Yellow Flipper hits them."""
    g = new()
    g.apply(("roll", 1, 4))
    eff = g.apply(("fill", 0, 0, 0, 0, "bumper_civ", 0))
    assert ("civilians", 0, 1, 1) in eff and g.players[0].stars == 0
    g = setup(new(), balls=["flipper_yellow", None])
    g.apply(("roll", 1, 4))
    assert {"bumper_star", "bumper_civ"} <= where(g)
    eff = g.apply(("fill", 0, 0, 0, 0, "bumper_star", 0))
    assert ("stars", 0, 1, "bumper_star") in eff
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 1, 4))
    assert not {"bumper_star", "bumper_civ"} & where(g)


def test_multiball_doubles_stars_and_civilians():
    """Lab/Starbase Multiball: while active all stars and civilian icons are doubled."""
    g = setup(new(), mb=True, balls=["flipper_yellow", "flipper_yellow"])
    g.apply(("roll", 1, 2))
    eff = g.apply(("fill", 0, 0, 0, 0, "bumper_civ", 0))
    assert ("civilians", 0, 2, 2) in eff
    eff = g.apply(("fill", 1, 1, 0, 0, "bumper_star", 1))
    assert ("stars", 0, 2, "bumper_star") in eff


def test_beacon_only_from_bumpers_following_arrows():
    """BEACON: only from a Yellow Bumper: star Bumper to BE or AC, civilian Bumper to AC or
    ON; from a target back to a Bumper or down as normal."""
    g = setup(new(), balls=["bumper_star", None])
    g.apply(("roll", 1, 3))
    assert {"be", "ac"} <= where(g) and "on" not in where(g)
    g = setup(new(), balls=["bumper_civ", None])
    g.apply(("roll", 3, 5))
    assert {"ac", "on"} <= where(g) and "be" not in where(g)
    g = setup(new(), balls=["ac", None])
    g.apply(("roll", 3, 5))
    assert {"bumper_star", "bumper_civ", "arm"} <= where(g)
    g = setup(new(), balls=["flipper_yellow", None], flags=["lab.flipper_pass"])
    g.apply(("roll", 1, 3))
    assert not {"be", "ac", "on"} & where(g)            # Flipper Pass: except BEACON
    assert "rescue" in where(g)


def test_beacon_complete_recruits_a_ship():
    """BEACON: completing it erases the targets and recruits a Ship (erase a slash)."""
    g = setup(new(), balls=["bumper_civ", None], filled={"be": [1], "ac": [1]})
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "on", 0))
    assert g.phase == "choice"
    assert g.legal_actions() == [("choose", "recruit", k) for k in range(1, 7)]
    eff = g.apply(("choose", "recruit", 4))
    assert ("recruit", 0, 4) in eff and g.players[0].x["ships"] == ships(4)
    assert all(g.players[0].filled[f] == [0] for f in ("be", "ac", "on"))


def test_rescue_two_stars_per_civilian_not_doubled():
    """CIVILIAN RESCUE TRACK: completing RESCUE (from the Red Flipper) scores two stars
    per civilian and erases the track; in Multiball the bonus is not doubled."""
    g = setup(new(), x={"civ": 7}, mb=True, balls=["flipper_red", None],
              filled={"rescue": [1, 1, 0]})
    g.apply(("roll", 6, 2))
    eff = g.apply(("fill", 0, 0, 0, 0, "rescue", 2))
    assert ("stars", 0, 14, "rescue") in eff
    assert g.players[0].x["civ"] == 0 and g.players[0].x["rescued"] == 7


def test_civilian_track_kept_between_rounds_one_and_two():
    """CIVILIAN RESCUE TRACK: the track is not erased between the first and second rounds."""
    g = setup(new(), x={"civ": 5}, balls=["lab", None], filled=FLIPZONE)
    g.apply(("roll", 2, 3))
    g.apply(("drain", 0))
    assert g.players[0].round == 2 and g.players[0].x["civ"] == 5


def test_arm_skill_shot_and_torpedo_any_ship_one_each():
    """ARM: reached from either Flipper; complete: a Skill Shot and a Photon Torpedo,
    at most one per Ship, also into a Ship not yet recruited."""
    for flip in ("flipper_red", "flipper_yellow"):
        g = setup(new(), balls=[flip, None])
        g.apply(("roll", 1, 2))
        assert "arm" in where(g)
    g = setup(new(), balls=["flipper_red", None], filled={"arm": [1, 1, 0]},
              x={"torp": ships(1, 2)})
    g.apply(("roll", 6, 2))
    g.apply(("fill", 0, 0, 0, 0, "arm", 2))
    assert g.phase == "skill"
    g.apply(("skill", 4))
    assert g.legal_actions() == [("choose", "load", k) for k in (3, 4, 5, 6)]
    g.apply(("choose", "load", 6))
    assert g.players[0].x["torp"] == ships(1, 2, 6) and g.players[0].skills == [4]


def test_lab_and_starbase_bonus_menus():
    """Lab Bonuses (2 Modulations, Flipper Pass, Multiball, 2 stars) and Starbase Bonuses
    (Multiball, Fill 1 Beacon Target, 2 Photon Torpedoes, 3 stars)."""
    g = setup(new(), balls=["flipper_red", None], filled={"lab": [1, 1, 0]}, x={"mods": 3})
    g.apply(("roll", 6, 2))
    g.apply(("fill", 0, 0, 0, 0, "lab", 2))
    assert [a[2] for a in g.legal_actions()] == ["modulations2", "flipper_pass", "multiball",
                                                 "stars2"]
    g.apply(("bonus", "lab", "modulations2"))
    assert g.players[0].x["mods"] == 4                   # at most four
    g = setup(new(), balls=["flipper_yellow", None], filled={"starbase": [1, 1, 1, 0],
                                                             "be": [1], "on": [1]})
    g.apply(("roll", 6, 2))
    g.apply(("fill", 0, 0, 0, 0, "starbase", 3))
    assert [a[2] for a in g.legal_actions()] == ["multiball", "fill_beacon", "torpedoes2",
                                                 "stars3"]
    g.apply(("bonus", "starbase", "fill_beacon"))       # the only empty target: AC
    assert g.phase == "choice" and g.legal_actions()[0][1] == "recruit"   # BEACON complete
    g.apply(("choose", "recruit", 2))
    g = setup(new(), balls=["flipper_yellow", None], filled={"starbase": [1, 1, 1, 0]})
    g.apply(("roll", 6, 2))
    g.apply(("fill", 0, 0, 0, 0, "starbase", 3))
    g.apply(("bonus", "starbase", "torpedoes2"))
    g.apply(("choose", "load", 1))
    g.apply(("choose", "load", 3))
    assert g.players[0].x["torp"] == ships(1, 3)


# ---- the battle round ------------------------------------------------------------------

def test_battle_start_unrecruited_ships_out_torpedo_lost_place_ball():
    """Borg Battle: at the start of Round 3 unrecruited Ships are filled in (their
    torpedoes lost); the ball is placed on any recruited Ship."""
    g = setup(new(), round=2, balls=["lab", None], filled=FLIPZONE,
              x={"ships": ships(2, 3, 5), "torp": ships(2, 4, 5)})
    g.apply(("roll", 2, 3))
    eff = g.apply(("drain", 0))
    assert ("battle", 0, (2, 3, 5)) in eff
    x = g.players[0].x
    assert x["battle"] == 1 and x["dead"] == ships(1, 4, 6) and x["torp"] == ships(2, 5)
    assert g.phase == "choice"
    assert g.legal_actions() == [("choose", "place", k) for k in (2, 3, 5)]
    g.apply(("choose", "place", 3))
    assert x is g.players[0].x and g.players[0].x["pos"] == 3 and g.players[0].round == 3


def test_battle_start_without_ships_recruits_one():
    """Borg Battle: in the unlikely event no Ship was recruited, you may recruit one now."""
    g = setup(new(), round=2, balls=["lab", None], filled=FLIPZONE)
    g.apply(("roll", 2, 3))
    g.apply(("drain", 0))
    assert g.legal_actions() == [("choose", "recruit", k) for k in range(1, 7)]
    eff = g.apply(("choose", "recruit", 4))
    assert ("battle_ball", 0, "ship", 4) in eff          # the only ship: placed at once
    assert g.players[0].x["pos"] == 4 and g.players[0].x["dead"][3] == 0


def test_extended_borg_battle_example_six_stars():
    """Extended Borg Battle Example: Ships 2, 3 and 5, torpedoes on 2 and 5, two
    Modulations, Skill Shot 3, ball on Ship 3; the six rolls of the example end with
    six stars, Ship 5 destroyed and the Adaptation track cleared by a Modulation."""
    g = setup(new(), round=2, balls=["lab", None], filled=FLIPZONE, skills=[3],
              x={"ships": ships(2, 3, 5), "torp": ships(2, 5), "mods": 2})
    g.apply(("roll", 6, 6))
    g.apply(("drain", 0))
    g.apply(("choose", "place", 3))
    ps = g.players[0]
    x = lambda: g.players[0].x       # noqa: E731
    assert g.phase == "roll" and ps.stars == 0

    # roll 2 and 5: the 2 to the bottom-row 2 block; the Borg take out Ship 5's shield
    g.apply(("roll", 2, 5))
    b2 = block(1, 2)
    eff = g.apply(("borg", 0, 0, 0, "cube", b2))
    assert ("cube_hit", 0, b2, 2, 1) in eff
    assert g.phase == "choice" and ("choose", "attack", 0, 0) in g.legal_actions()
    eff = g.apply(("choose", "attack", 0, 0))
    assert ("attack", 0, 5, "shield") in eff and x()["shield"] == ships(5)
    assert g.phase == "preroll"                 # a Modulation could raise the shields
    g.apply(("pass",))

    # roll 1 and 5: no Ship 1, so the 5 takes the ball to Ship 5; the 1 misses
    g.apply(("roll", 1, 5))
    assert [a for a in g.legal_actions() if a[0] == "borg" and a[2] == 0 and a[3] == 0] == [
        ("borg", 1, 0, 0, "ship", 5)]
    eff = g.apply(("borg", 1, 0, 0, "ship", 5))
    assert ("attack", 0, 1, "miss") in eff      # harmless: nothing to decide
    g.apply(("pass",))

    # roll 5 and 5: the second-row 5 (green: adaptation 5); the torpedo from Ship 5
    # takes the 4 beside it (adaptation 4); the Borg 5 destroys Ship 5
    g.apply(("roll", 5, 5))
    b5 = block(2, 5)
    eff = g.apply(("borg", 0, 0, 0, "cube", b5))
    assert ("adapt", 0, 5) in eff
    b4 = block(2, 4)
    assert ("choose", "torpedo", b4) in g.legal_actions()
    eff = g.apply(("choose", "torpedo", b4))
    assert ("torpedo", 0, 5, b4) in eff and ("adapt", 0, 4) in eff
    eff = g.apply(("choose", "attack", 0, 0))
    assert ("attack", 0, 5, "destroyed") in eff
    assert x()["dead"][4] == 1 and x()["torp"] == ships(2) and x()["adapt"] == [0, 0, 0, 1, 1, 0]
    g.apply(("pass",))

    # roll 1 and 4: neither Ship is in play; the Skill Shot 3 turns the 1 into a 3
    g.apply(("roll", 1, 4))
    acts = g.legal_actions()
    assert ("drain", 0) in acts
    assert not [a for a in acts if a[0] == "borg" and a[2] == 0 and a[3] == 0]
    eff = g.apply(("borg", 0, 3, 0, "ship", 3))
    assert ("skill_used", 0, 3, 1) in eff and ("attack", 0, 4, "miss") in eff
    assert g.players[0].skills == []
    g.apply(("pass",))

    # roll 4 and 3: the 4 is adapted, so the 3 takes the bottom-row 3
    g.apply(("roll", 4, 3))
    acts = g.legal_actions()
    four3 = block(3, 4)
    assert ba.exposed(ba.cube_of(g), x()["cube"], four3)
    assert not [a for a in acts if a[0] == "borg" and a[4] == "cube" and a[1] == 0
                and a[2] == 0 and a[3] == 0]
    b3 = block(1, 3)
    eff = g.apply(("borg", 1, 0, 0, "cube", b3))
    assert ("attack", 0, 4, "miss") in eff

    # a Modulation clears the Adaptation track
    assert g.phase == "preroll"
    assert g.legal_actions() == [("modulate", "adapt"), ("pass",)]
    eff = g.apply(("modulate", "adapt"))
    assert x()["adapt"] == [0] * 6 and x()["mods"] == 1
    assert g.phase == "roll"            # nothing else a Modulation could do now
    assert g.players[0].stars == 6


def test_borg_attack_three_results():
    """Borg Battle: an attack on a destroyed or unrecruited Ship does nothing; on an intact
    one it fills the Shield box, then destroys the Ship."""
    g = battle((2, 3), pos=3)
    g.apply(("roll", 3, 4))
    eff = g.apply(("borg", 0, 0, 0, "ship", 3))
    assert ("attack", 0, 4, "miss") in eff
    g = battle((2, 3), pos=2)
    g.apply(("roll", 3, 2))
    g.apply(("borg", 0, 0, 0, "cube", block(1, 3)))
    eff = g.apply(("choose", "attack", 0, 0))
    assert ("attack", 0, 2, "shield") in eff
    g = battle((2, 3), pos=0, shield=ships(2))
    g.apply(("roll", 3, 2))
    g.apply(("borg", 0, 0, 0, "ship", 3))
    eff = g.apply(("choose", "attack", 0, 0))
    assert ("attack", 0, 2, "destroyed") in eff


def test_borg_attack_doubles_ball_stays_on_destroyed_ship():
    """Borg Battle: on doubles the ball may reach a Ship the other die destroys; it stays
    there and is launched at the cube next turn."""
    g = battle((2, 3), pos=0, shield=ships(3))
    g.apply(("roll", 3, 3))
    g.apply(("borg", 0, 0, 0, "ship", 3))
    g.apply(("choose", "attack", 0, 0))
    x = g.players[0].x
    assert x["dead"][2] == 1 and x["pos"] == 3
    g.apply(("roll", 1, 5))
    assert ("borg", 0, 0, 0, "cube", block(1, 1)) in g.legal_actions()


def test_borg_attack_changed_by_skill_shot_or_nudge():
    """Extended example: a Skill Shot or Nudge could change the Borg attack die."""
    g = battle((2, 3), pos=2, skills=(5,))
    g.apply(("roll", 1, 3))
    g.apply(("borg", 0, 0, 0, "cube", block(1, 1)))
    acts = g.legal_actions()
    assert ("choose", "attack", 5, 0) in acts and ("choose", "attack", 0, 1) in acts
    eff = g.apply(("choose", "attack", 0, 1))
    assert ("attack", 0, 4, "miss") in eff and g.players[0].namt == 1


def test_ball_lost_without_ship_ends_the_game():
    """Borg Battle: a ball that must move to a Ship and finds none is lost: Game Over."""
    g = battle((2,), pos=0)
    g.apply(("roll", 1, 4))
    plain = [a for a in g.legal_actions() if a[0] != "borg" or (a[2] == 0 and a[3] == 0)]
    assert plain == [("drain", 0)]
    eff = g.apply(("drain", 0))
    assert ("player_over", 0, 0) in eff and g.is_over()


def test_ball_on_cube_must_return_to_a_ship():
    """Borg Battle: from the Cube the ball must move back to a Ship."""
    g = battle((2, 3), pos=0)
    g.apply(("roll", 2, 1))
    kinds = {a[4] for a in g.legal_actions() if a[0] == "borg"}
    assert kinds == {"ship"}


def test_cube_exposure_bottom_row_and_edge_blocks():
    """ATTACKING THE BORG CUBE: only the bottom row is exposed at first; a hit block exposes
    the one or two above it; the rightmost 3 on the third row needs the 6 below it."""
    cube = ba.Cube(ROWS)
    filled = [0] * cube.n
    assert [k for k in range(cube.n) if ba.exposed(cube, filled, k)] == list(range(6))
    filled[block(1, 3)] = 1
    newly = [k for k in range(6, cube.n) if ba.exposed(cube, filled, k)]
    assert sorted(cube.val[k] for k in newly) == [4, 5]        # the green 4 and 5
    assert all(cube.col[k] == "g" for k in newly)
    right3 = block(3, 3)
    assert cube.below[right3] == [block(2, 6)]
    filled = [0] * cube.n
    for k in cube.below[right3]:
        filled[k] = 1
    assert ba.exposed(cube, filled, right3)


def test_cube_row_stars_adaptation_and_modulation():
    """ATTACKING THE BORG CUBE: a block scores its row; green blocks adapt the Borg to that
    number; yellow blocks give a Modulation (at most four)."""
    y = block(1, 5)
    assert ROWS[0][4][1] == "y"
    g = battle((2, 5), pos=2, mods=4)
    g.apply(("roll", 5, 1))
    eff = g.apply(("borg", 0, 0, 0, "cube", y))
    assert ("stars", 0, 1, "cube") in eff and g.players[0].x["mods"] == 4
    g = battle((2, 5), pos=2, mods=1)
    g.apply(("roll", 5, 1))
    g.apply(("borg", 0, 0, 0, "cube", y))
    assert g.players[0].x["mods"] == 2
    cube = [0] * len(ba.Cube(ROWS).val)
    cube[block(1, 2)] = 1
    g = battle((2, 5), pos=2, cube=cube, adapt=[0, 0, 0, 1, 0, 0])
    g.apply(("roll", 4, 5))
    acts = [a for a in g.legal_actions() if a[0] == "borg" and a[4] == "cube"]
    assert all(g.players[0].x and ba.Cube(ROWS).val[a[5]] != 4 for a in acts)
    eff = g.apply(("borg", 1, 0, 0, "cube", block(2, 5)))
    assert ("stars", 0, 2, "cube") in eff and ("adapt", 0, 5) in eff


def test_modulation_before_a_roll_raises_shields():
    """Before the start of any roll you may spend a Modulation to erase all Shield boxes."""
    g = battle((2, 3), pos=2, mods=1, shield=ships(2, 3))
    # the game is at the pre-roll point when the state is restored between rolls
    assert g.phase == "roll"
    g.apply(("roll", 3, 1))
    eff = g.apply(("borg", 0, 0, 0, "cube", block(1, 3)))
    assert ("attack", 0, 1, "miss") in eff
    assert g.phase == "preroll"
    assert g.legal_actions() == [("modulate", "shields"), ("pass",)]
    eff = g.apply(("modulate", "shields"))
    assert ("modulate", 0, "shields", 0) in eff and g.players[0].x["shield"] == [0] * 6
    assert g.phase == "roll"           # nothing more to decide


def test_torpedo_lost_when_ship_destroyed_and_only_from_launch_ship():
    """PHOTON TORPEDOES: fired only from the Ship the ball launches from, beside the block
    hit; a Ship destroyed before firing loses its torpedo."""
    g = battle((2, 3), torps=(3,), pos=2)
    g.apply(("roll", 1, 5))
    g.apply(("borg", 0, 0, 0, "cube", block(1, 1)))
    assert g.phase != "choice" or g.legal_actions()[0][1] != "torpedo"
    g = battle((2, 3), torps=(3,), pos=0, shield=ships(3))
    g.apply(("roll", 2, 3))
    g.apply(("borg", 0, 0, 0, "ship", 2))
    g.apply(("choose", "attack", 0, 0))
    assert g.players[0].x["torp"] == [0] * 6


def test_destroying_the_cube_final_block():
    """Destroying the Cube: the top 6 block is worth 25 (the rest of the top row 15); the
    cube is erased and a new one begins; Ships, Shields, Torpedoes, Modulations and
    Adaptations remain; no Skill Shot or Nudge may hit the final block."""
    cube = ba.Cube(ROWS)
    top6 = block(6, 6)
    filled = [0] * cube.n
    for k in cube.below[top6]:
        filled[k] = 1
    g = battle((2, 3), pos=3, cube=filled, mods=2, shield=ships(2), adapt=[1, 0, 0, 0, 0, 0],
               skills=(6,))
    g.apply(("roll", 1, 2))
    assert not [a for a in g.legal_actions() if a[0] == "borg" and a[4] == "cube" and a[5] == top6]
    g = battle((2, 3), pos=3, cube=filled, mods=2, shield=ships(2), adapt=[1, 0, 0, 0, 0, 0])
    g.apply(("roll", 6, 1))
    eff = g.apply(("borg", 0, 0, 0, "cube", top6))
    assert ("stars", 0, 25, "cube") in eff and ("cube_destroyed", 0, 1) in eff
    x = g.players[0].x
    assert x["cube"] == [0] * cube.n and x["cubes"] == 1
    assert x["mods"] == 2 and x["shield"] == ships(2) and x["adapt"] == [1, 0, 0, 0, 0, 0]
    top1 = block(6, 1)
    filled = [0] * cube.n
    filled[cube.below[top1][0]] = 1
    g = battle((2, 3), pos=3, cube=filled)
    g.apply(("roll", 1, 2))
    eff = g.apply(("borg", 0, 0, 0, "cube", top1))
    assert ("stars", 0, 15, "cube") in eff and g.players[0].x["cubes"] == 0


# ---- achievements ------------------------------------------------------------------------

def test_achievements_score_board():
    """Score Board - Borg Attack Achievements: rescue 20 civilians, recruit all six ships,
    destroy one and two Borg Cubes."""
    assert [a["name"] for a in CFG["achievements"]] == [
        "Rescue 20 civilians", "Recruit all six ships", "Destroy the Borg Cube",
        "Destroy two Borg Cubes"]
    g = setup(new(), x={"civ": 12, "rescued": 9}, balls=["flipper_red", None],
              filled={"rescue": [1, 1, 0]})
    g.apply(("roll", 6, 2))
    g.apply(("fill", 0, 0, 0, 0, "rescue", 2))
    assert ba.achievements(g.players[0].x) == ["rescue20"]
    x = dict(g.players[0].x, ships=[1] * 6, cubes=2)
    assert ba.achievements(x) == ["rescue20", "ships6", "cube1", "cube2"]


def test_state_validation_and_round_trip():
    """Details of Play: a battle state saves and restores; bad extra state is refused."""
    g = battle((2, 3), torps=(2,), pos=2, mods=3)
    g.apply(("roll", 1, 2))
    g.apply(("borg", 0, 0, 0, "cube", block(1, 1)))
    d = json.loads(json.dumps(g.to_dict()))
    g2 = SuperSkillGame.from_dict(CFG, d)
    assert g2.to_dict() == d and g2.legal_actions() == g.legal_actions()
    for bad in ({"mods": 5}, {"pos": 7}, {"ships": [1, 2, 0, 0, 0, 0]}, {"cube": [0]},
                {"civ": 21}):
        d2 = json.loads(json.dumps(d))
        d2["players"][0]["x"].update(bad)
        with pytest.raises(RuleError):
            SuperSkillGame.from_dict(CFG, d2)
    assert g.players[0].balls == [START, None]
