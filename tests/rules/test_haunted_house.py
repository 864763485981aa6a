"""Haunted House rule clauses, one test (or more) per clause.

Each test names the rulebook section it checks (Boxtop Pinball: Haunted House,
/work/shared/rulebooks/haunted-house.txt).
"""
import json
from pathlib import Path

import pytest

from rules.errors import CHANCE, RuleError
from rules.haunted_house import HauntedHouse
from rules.rng import Rng
from scenarios.helpers_haunted_house import (
    deck_with_front, enter_results, launch_rest, new_game, play_round, turn)

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware" / "data" / "haunted-house.json").read_text())


def names(effects):
    return [e[0] for e in effects]


def find(effects, name):
    return [e for e in effects if e[0] == name]


# ---- Components / data --------------------------------------------------------

def test_components_data_matches_rulebook():
    """Components and Setup: 25 clues, 4 dice per player, 6 dice per colour
    (4 + 2 summoned), 3 monsters, 6 clue spots, 3 rounds, monster table."""
    assert len(CFG["clue_deck"]) == 25
    assert CFG["dice_per_player"] == 4
    assert CFG["dice_per_colour"] * len(CFG["colours"]) == 24
    assert CFG["dice_per_player"] + CFG["summon_limit"] == CFG["dice_per_colour"]
    assert CFG["summon_limit"] == 2
    assert CFG["rounds"] == 3
    assert len(CFG["clue_spots"]) == 6
    assert CFG["monster_scores"] == [0, 2, 5, 10]
    assert sorted(CFG["colours"]) == ["blue", "orange", "red", "yellow"]
    mult = {r["name"]: r["multiplier"] for r in CFG["realms"]}
    assert mult["Ravens"] == 5 and mult["Chest"] == 3
    assert sorted(mult.values()) == [2, 3, 5]


# ---- Setup ----------------------------------------------------------------------

def test_setup_monsters_start_at_home_in_front_of_a_hole():
    """Setup step 3: Medusa top, Frank middle, Bob bottom, each in front of a hole."""
    g = new_game(CFG)
    assert g.monsters == {"medusa": "top", "frank": "middle", "bob": "bottom"}
    spots = {s["id"]: s for s in CFG["monster_spots"]}
    holes = {h["id"]: h for h in CFG["holes"]}
    for m in ("medusa", "frank", "bob"):
        spot = spots[g.monster_spot(m)]
        assert spot["level"] == g.monsters[m]
        assert spot["guards"] in holes
        assert holes[spot["guards"]]["level"] == spot["level"]
    setup = g.setup_effects()
    assert ("monster_home", "medusa", "top", "top", "medusa_top") in setup


def test_setup_six_clues_from_a_shuffled_deck():
    """Setup step 4: shuffle the clues, one face down on each of the 6 clue spots."""
    g = HauntedHouse(CFG, 2, rng=Rng(1234))
    order = list(CFG["clue_deck"])
    Rng(1234).shuffle(order)
    assert [g.spots[s["id"]] for s in CFG["clue_spots"]] == order[:6]
    assert g.deck == order[6:]
    assert len(find(g.setup_effects(), "clue_placed")) == 6
    # Different seeds give different orders, the same seed the same one.
    decks = {tuple(HauntedHouse(CFG, 2, rng=Rng(s)).to_dict()["deck"]) for s in range(1, 30)}
    assert len(decks) > 20
    assert HauntedHouse(CFG, 2, rng=Rng(7)).to_dict() == HauntedHouse(CFG, 2, rng=Rng(7)).to_dict()


def test_setup_explicit_deck_order():
    """Setup step 4: an explicit draw order (a permutation of the clue deck) works."""
    deck = deck_with_front(CFG, [5, 5, 4, 3, 2, 1])
    g = HauntedHouse(CFG, 2, deck=deck)
    assert [g.spots[s["id"]] for s in CFG["clue_spots"]] == [5, 5, 4, 3, 2, 1]
    with pytest.raises(RuleError):
        HauntedHouse(CFG, 2, deck=deck[:-1])
    with pytest.raises(RuleError):
        HauntedHouse(CFG, 2, deck=[9] + deck[1:])
    with pytest.raises(RuleError):
        HauntedHouse(CFG, 2)
    with pytest.raises(RuleError):
        HauntedHouse(CFG, 2, rng=Rng(1), deck=deck)


def test_setup_four_dice_per_player_and_player_count():
    """Setup step 5: 1-4 players, each with 4 dice of their own colour."""
    for n in (1, 2, 3, 4):
        g = new_game(CFG, n)
        assert g.dice_left == [4] * n
        assert g.colours == CFG["colours"][:n]
    g = HauntedHouse(CFG, ["orange", "yellow"], rng=Rng(2))
    assert g.colours == ["orange", "yellow"]
    for bad in (0, 5, [], ["red", "red"], ["pink"], "red", True):
        with pytest.raises(RuleError):
            HauntedHouse(CFG, bad, rng=Rng(2))


def test_setup_start_player_acts_first():
    """Setup step 6 and Gameplay: the chosen starting player launches first."""
    g = new_game(CFG, 3, start=2)
    assert g.phase == "launch" and g.to_act == 2
    assert g.legal_actions() == [("launch",)]
    for bad in (3, -1, "0"):
        with pytest.raises(RuleError):
            new_game(CFG, 3, start=bad)


# ---- Gameplay -------------------------------------------------------------------

def test_gameplay_turns_go_clockwise_one_die_each():
    """Gameplay: from the start player, clockwise, one die per turn until all
    players have launched all their dice; then Round End."""
    g = new_game(CFG, 3, start=1)
    order = []
    while g.phase == "launch":
        order.append(g.to_act)
        eff = g.apply(("launch",))
        assert eff == [("launched", order[-1], "regular")]
        assert g.to_act == CHANCE and g.phase == "flight"
        g.apply(("end_turn",))
    assert order == [1, 2, 0] * 4
    assert g.phase == "round_end" and g.to_act == CHANCE
    assert g.dice_left == [0, 0, 0] and g.on_table == [4, 4, 4]


def test_gameplay_single_player():
    """Gameplay / Setup: a solo player launches all four dice in turn."""
    g = new_game(CFG, 1)
    for _ in range(4):
        turn(g)
    assert g.phase == "round_end"


def test_gameplay_launch_only_when_awaited():
    """Launch Your Dice: only the active player launches, and only between flights."""
    g = new_game(CFG, 2)
    g.apply(("launch",))
    with pytest.raises(RuleError):
        g.apply(("launch",))
    g.apply(("end_turn",))
    with pytest.raises(RuleError):
        g.apply(("end_turn",))
    for bad in (("launch", 1), ("dance",), (), "launch", None, ("monster_hit", "bob")):
        before = g.to_dict()
        with pytest.raises(RuleError):
            g.apply(bad)
        assert g.to_dict() == before


# ---- Let It Fly! ----------------------------------------------------------------

def test_let_it_fly_die_on_machine_scores_its_face():
    """Let It Fly!: a die still on the machine at round end scores its number."""
    g = new_game(CFG, 1)
    launch_rest(g)
    eff = enter_results(g, {0: [(6,), (5,), (1,), (2,)]})
    assert ("round_scored", 1, 0, 14, 0, 14) in eff
    assert g.round_total(1, 0) == 14


def test_let_it_fly_hole_or_off_table_scores_nothing():
    """Let It Fly!: a die that falls through a hole or off the edge scores nothing."""
    g = new_game(CFG, 1)
    assert ("die_lost", 0, "hole") in turn(g, [("hole", 0)])
    assert ("die_lost", 0, "off_table") in turn(g, [("off_table", 0)])
    turn(g)
    turn(g)
    assert g.phase == "round_end" and g.dice_to_enter(0) == 2
    with pytest.raises(RuleError):
        g.apply(("score_round",))
    g.apply(("die_result", 0, 4))
    assert g.apply(("die_lost", 0)) == [("die_lost", 0, "round_end")]
    with pytest.raises(RuleError):
        g.apply(("die_result", 0, 4))   # no third die to enter
    eff = g.apply(("score_round",))
    assert ("round_scored", 1, 0, 4, 0, 4) in eff


def test_let_it_fly_lost_die_needs_a_die_on_the_machine():
    """Let It Fly!: only a die that is on the machine can fall off it."""
    g = new_game(CFG, 2)
    g.apply(("launch",))
    with pytest.raises(RuleError):
        g.apply(("hole", 1))            # player 1 has launched nothing yet
    g.apply(("hole", 0))
    with pytest.raises(RuleError):
        g.apply(("off_table", 0))       # that die is already gone


def test_round_end_faces_must_be_real():
    """Let It Fly! / Haunted Realms: faces are 1-6 and realms come from the data."""
    g = new_game(CFG, 1)
    launch_rest(g)
    for bad in (("die_result", 0, 0), ("die_result", 0, 7), ("die_result", 0, 3, "moon"),
                ("die_result", 1, 3), ("die_result", 0, "3"), ("die_result", 0, 3, ["x"]),
                ("die_result", 0, 3, "gnomes", 1)):
        with pytest.raises(RuleError):
            g.apply(bad)
    assert g.entries == [[]]


# ---- Haunted Realms ---------------------------------------------------------------

@pytest.mark.parametrize("realm,face,points", [
    ("gnomes", 3, 6), ("chest", 2, 6), ("ravens", 3, 15), ("ravens", 6, 30), ("chest", 1, 3)])
def test_haunted_realms_multiply_the_face(realm, face, points):
    """Haunted Realms: a die in a x2/x3/x5 realm scores its face times the multiplier
    (rulebook: a 3 on a x2 scores 6)."""
    g = new_game(CFG, 1)
    launch_rest(g)
    eff = enter_results(g, {0: [(face, realm)]})
    assert ("die_scored", 0, face, CFG_MULT[realm], points) in eff
    assert g.round_total(1, 0) == points


CFG_MULT = {r["id"]: r["multiplier"] for r in CFG["realms"]}


def test_haunted_realms_example_blue_not_touching():
    """Haunted Realms example: Blue's 3 is not touching the realm and scores 3;
    Clues example: Red 3x2 = 6, Orange 1x2 = 2, Yellow 2x2 = 4."""
    g = new_game(CFG, ["red", "blue", "orange", "yellow"])
    launch_rest(g)
    enter_results(g, {0: [(3, "gnomes")], 1: [(3,)], 2: [(1, "gnomes")], 3: [(2, "gnomes")]})
    assert [g.round_total(1, p) for p in range(4)] == [6, 3, 2, 4]


# ---- Monsters ---------------------------------------------------------------------

def test_monsters_example_knocked_die_credits_active_player():
    """Monsters example: Yellow knocks Orange into Bob; only Yellow marks Bob and
    Bob moves from the bottom level up to the top level."""
    g = new_game(CFG, ["orange", "yellow"])
    turn(g)                                     # orange's die lands on the bottom level
    eff = turn(g, [("monster_hit", "bob")])     # yellow's die knocks it into Bob
    assert ("monster_hit", 1, "bob", 1) in eff
    assert ("monster_moved", "bob", "bottom", "top", "bob_top") in eff
    assert ("clear_spot", "bob_top") in eff
    assert g.monsters_hit(1) == ["bob"] and g.monsters_hit(0) == []
    assert g.monsters["bob"] == "top"
    launch_rest(g)
    enter_results(g, {1: [(2, "gnomes")]})      # yellow's die stayed on the Gnomes
    assert g.round_total(1, 1) == 2 + 4 and g.round_total(1, 0) == 0


@pytest.mark.parametrize("monster", ["medusa", "frank", "bob"])
def test_monsters_move_down_one_level_and_wrap(monster):
    """Monsters: a hit monster moves to its spot on the next level
    (top -> middle -> bottom -> top)."""
    g = new_game(CFG, 1)
    g.apply(("launch",))
    seen = []
    for _ in range(3):
        frm = g.monsters[monster]
        eff = g.apply(("monster_hit", monster))
        to = g.monsters[monster]
        assert {"top": "middle", "middle": "bottom", "bottom": "top"}[frm] == to
        spot = CFG_MONSTER_SPOTS[monster][to]
        assert ("monster_moved", monster, frm, to, spot) in eff
        assert ("clear_spot", spot) in eff    # a die on that spot is moved aside
        seen.append(to)
    assert sorted(seen) == ["bottom", "middle", "top"]
    assert g.monsters[monster] == CFG_HOME[monster]


CFG_MONSTER_SPOTS = {m["id"]: m["spots"] for m in CFG["monsters"]}
CFG_HOME = {m["id"]: m["home"] for m in CFG["monsters"]}


@pytest.mark.parametrize("hits,points", [
    ([], 0), (["bob"], 2), (["bob", "bob", "bob"], 2), (["bob", "medusa"], 5),
    (["frank", "medusa", "frank"], 5), (["bob", "medusa", "frank"], 10),
    (["bob", "medusa", "frank", "bob", "medusa"], 10)])
def test_scoring_unique_monsters(hits, points):
    """Scoring (Monsters): 1 unique monster 2, 2 different 5, 3 different 10;
    hitting the same one again adds nothing."""
    g = new_game(CFG, 2)
    g.apply(("launch",))
    for m in hits:
        g.apply(("monster_hit", m))
    g.apply(("end_turn",))
    eff = play_round(g)
    assert ("round_scored", 1, 0, 0, points, points) in eff
    assert ("round_scored", 1, 1, 0, 0, 0) in eff


def test_monsters_only_during_a_turn():
    """Monsters: monsters are only scored during a turn (between launch and settle)."""
    g = new_game(CFG, 2)
    with pytest.raises(RuleError):
        g.apply(("monster_hit", "bob"))
    launch_rest(g)
    with pytest.raises(RuleError):
        g.apply(("monster_hit", "bob"))
    assert g.monsters["bob"] == "bottom"
    g2 = new_game(CFG, 1)
    g2.apply(("launch",))
    for bad in (("monster_hit", "ghost"), ("monster_hit", 1), ("monster_hit", ["bob"]),
                ("monster_hit",), ("monster_hit", "bob", 0)):
        with pytest.raises(RuleError):
            g2.apply(bad)


def test_monsters_marked_per_round():
    """Scoring / Round End: monster marks count for one round only; history is kept."""
    g = new_game(CFG, 2)
    turn(g, [("monster_hit", "medusa"), ("monster_hit", "frank")])
    play_round(g)
    assert g.round_total(1, 0) == 5
    assert g.monsters_hit(0) == [] and g.monsters_hit(0, 1) == ["medusa", "frank"]
    play_round(g)
    assert g.round_total(2, 0) == 0


# ---- Clues ------------------------------------------------------------------------

def test_clues_taken_by_active_player_even_via_knocked_die():
    """Clues example: the die that moves a clue during Blue's turn gives it to Blue,
    also when Blue's die knocks another die onto it."""
    g = new_game(CFG, ["red", "blue"], front=[4, 2])
    turn(g)                                  # red
    eff = turn(g, [("clue_taken", "clue_top_left"), ("clue_taken", "clue_top_right")])
    assert ("clue_taken", 1, "clue_top_left", 1) in eff
    assert ("clue_taken", 1, "clue_top_right", 2) in eff
    assert g.clue_values(1) == [4, 2] and g.clue_values(0) == []
    assert g.spots["clue_top_left"] is None


def test_clues_only_from_full_spots_during_a_turn():
    """Clues: only a clue that is there can be taken, and only during a turn."""
    g = new_game(CFG, 2)
    with pytest.raises(RuleError):
        g.apply(("clue_taken", "clue_top_left"))
    g.apply(("launch",))
    g.apply(("clue_taken", "clue_top_left"))
    for bad in (("clue_taken", "clue_top_left"), ("clue_taken", "nowhere"),
                ("clue_taken", 3), ("clue_taken", ["clue_top_right"])):
        before = g.to_dict()
        with pytest.raises(RuleError):
            g.apply(bad)
        assert g.to_dict() == before
    assert ("clue_taken", "clue_top_left") not in g.legal_actions()
    assert ("clue_taken", "clue_top_right") in g.legal_actions()


def test_clues_values_secret_until_game_end():
    """Clues: values stay hidden (public view, effects, score) until the game ends."""
    g = new_game(CFG, 2, front=[5])
    eff = turn(g, [("clue_taken", "clue_top_left")])
    assert all(5 not in e[2:] for e in eff if e[0] == "clue_taken")
    pub = g.to_public_dict()
    assert "deck" not in pub and "clues" not in pub
    assert pub["clue_counts"] == [1, 0]
    assert set(pub["spots"].values()) <= {True, False}
    assert pub["spots"]["clue_top_left"] is False
    assert pub["scores"] == [0, 0]
    assert g.score(0) == 0
    for _ in range(3):
        play_round(g)
    pub = g.to_public_dict()
    assert pub["clues"][0] == [5] and pub["scores"][0] == 5


def test_public_view_loads_no_module():
    """The host's "state" (polled up to ten times a second) builds the public
    view from resident code: no module is imported for it."""
    import sys
    g = new_game(CFG, 2)
    sys.modules.pop("rules.haunted_house_state", None)
    before = set(sys.modules)
    g.to_public_dict()
    assert set(sys.modules) == before


def test_clues_added_at_game_end():
    """Scoring / Game End: the clue values are added to the round totals at the end."""
    g = new_game(CFG, 2, front=[3, 1, 4])
    turn(g, [("clue_taken", "clue_top_left")])
    turn(g, [("clue_taken", "clue_top_right"), ("clue_taken", "clue_middle_left")])
    play_round(g, {0: [(2,)], 1: [(1,)]})
    play_round(g)
    eff = play_round(g)
    assert ("clues_revealed", 0, (3,), 3) in eff
    assert ("clues_revealed", 1, (1, 4), 5) in eff
    assert ("final_score", 0, 5, 0) in eff and ("final_score", 1, 6, 0) in eff
    assert g.final_scores() == [5, 6] and g.winner == 1


# ---- The Summoning Circle ------------------------------------------------------------

def test_summoning_own_die_gives_an_extra_die_at_once():
    """The Summoning Circle: your die in the circle on your turn lets you launch an
    extra die immediately (same turn)."""
    g = new_game(CFG, 2)
    g.apply(("launch",))
    assert g.apply(("circle", 0)) == [("summoned", 0, "now", 1)]
    assert g.apply(("end_turn",)) == [("extra_launch", 0, 1)]
    assert g.phase == "launch" and g.to_act == 0
    assert g.apply(("launch",)) == [("launched", 0, "summoned")]
    assert g.dice_left[0] == 3                       # the regular dice are untouched
    eff = g.apply(("end_turn",))
    assert eff == [("turn", 1, 1)]


def test_summoning_knocked_in_on_another_turn_launches_next_turn():
    """The Summoning Circle: knocked in during another player's turn, the owner
    launches the extra die on their next turn."""
    g = new_game(CFG, 3)
    turn(g)                                          # player 0
    eff = turn(g, [("circle", 0)])                   # player 1 knocks 0's die in
    assert ("summoned", 0, "next", 1) in eff
    assert g.due[0] == 1 and g.to_act == 2
    turn(g)                                          # player 2
    assert g.to_act == 0
    assert g.apply(("launch",)) == [("launched", 0, "regular")]
    assert g.apply(("end_turn",)) == [("extra_launch", 0, 1)]
    assert g.apply(("launch",)) == [("launched", 0, "summoned")]
    g.apply(("end_turn",))
    assert g.to_act == 1 and g.due[0] == 0 and g.on_table[0] == 3


def test_summoning_two_at_once_and_limit_two_per_round():
    """The Summoning Circle: two dice in at once give two extra dice; at most two
    extra dice per player per round; the limit resets next round."""
    g = new_game(CFG, 2)
    turn(g)
    turn(g)
    g.apply(("launch",))                             # player 0 has two dice out
    assert g.apply(("circle", 0)) == [("summoned", 0, "now", 1)]
    assert g.apply(("circle", 0)) == [("summoned", 0, "now", 2)]
    assert g.apply(("circle", 0)) == [("summon_refused", 0)]
    assert g.due[0] == 2 and g.summoned[0] == 2
    assert g.apply(("end_turn",)) == [("extra_launch", 0, 2)]
    assert turn(g)[-1] == ("extra_launch", 0, 1)
    assert turn(g)[-1] == ("turn", 1, 1)
    eff = turn(g, [("circle", 0)])                   # still refused after launching
    assert ("summon_refused", 0) in eff
    assert g.summoned[0] == 2 and g.due[0] == 0
    assert g.launched(0) == 4
    play_round(g)
    assert g.summoned == [0, 0] and g.dice_left == [4, 4]
    g.apply(("launch",))
    assert g.apply(("circle", g.active)) == [("summoned", g.active, "now", 1)]


def test_summoning_needs_a_die_on_the_machine():
    """The Summoning Circle: only a die on the machine can be knocked into it."""
    g = new_game(CFG, 2)
    g.apply(("launch",))
    with pytest.raises(RuleError):
        g.apply(("circle", 1))
    with pytest.raises(RuleError):
        g.apply(("circle", 2))


def test_summoning_after_last_regular_die_adds_a_turn():
    """The Summoning Circle / Gameplay: a summoned die earned after your last
    regular die is launched on an extra turn before the round ends."""
    g = new_game(CFG, 2)
    for _ in range(7):
        turn(g)
    assert g.to_act == 1
    turn(g, [("circle", 0)])
    assert g.phase == "launch" and g.to_act == 0
    turn(g)
    assert g.phase == "round_end" and g.on_table == [5, 4]


def test_summoning_extra_die_is_mandatory_before_settling():
    """The Summoning Circle: the extra die comes before the turn passes on."""
    g = new_game(CFG, 2)
    g.apply(("launch",))
    g.apply(("circle", 0))
    g.apply(("end_turn",))
    assert g.legal_actions() == [("launch",)]
    with pytest.raises(RuleError):
        g.apply(("end_turn",))


# ---- Round End ------------------------------------------------------------------

def test_round_end_example_orange_scores_28_and_8_in_clues():
    """Round End / Scoring example: Orange 28 = two monsters 5 + Ravens 3x5 15 +
    Chest 2x3 6 + two 1s 2 + a die in a hole 0; clues 1, 2, 5 add 8 at game end."""
    g = new_game(CFG, ["orange", "yellow"], front=[1, 2, 5])
    turn(g, [("monster_hit", "medusa"), ("clue_taken", "clue_top_left")])
    turn(g)
    turn(g, [("monster_hit", "frank"), ("clue_taken", "clue_top_right"), ("circle", 0)])
    turn(g, [("clue_taken", "clue_middle_left")])    # the summoned fifth die
    turn(g, [("hole", 0)])
    launch_rest(g)
    assert g.launched(0) == 5 and g.dice_to_enter(0) == 4
    eff = enter_results(g, {0: [(3, "ravens"), (2, "chest"), (1,), (1,)]})
    assert ("round_scored", 1, 0, 23, 5, 28) in eff
    assert g.round_total(1, 0) == 28
    assert g.clue_values(0) == [1, 2, 5]
    play_round(g)
    play_round(g)
    assert g.final_scores()[0] == 28 + 8
    assert g.score(0) == 36


def test_round_end_reset():
    """Round End steps 2-4: dice back, summoned dice aside, monsters home, empty
    clue spots refilled from the deck."""
    g = new_game(CFG, 2, front=[1, 1, 1, 1, 1, 1, 5, 4])
    turn(g, [("monster_hit", "bob"), ("monster_hit", "medusa"), ("circle", 0),
             ("clue_taken", "clue_top_left"), ("clue_taken", "clue_bottom_left")])
    turn(g)
    eff = play_round(g)
    assert ("collect_dice",) in eff
    assert ("monster_home", "bob", "top", "bottom", "bob_bottom") in eff
    assert ("monster_home", "medusa", "middle", "top", "medusa_top") in eff
    assert not [e for e in eff if e[0] == "monster_home" and e[1] == "frank"]
    assert find(eff, "clue_placed") == [("clue_placed", "clue_top_left"),
                                        ("clue_placed", "clue_bottom_left")]
    assert g.spots["clue_top_left"] == 5 and g.spots["clue_bottom_left"] == 4
    assert len(g.deck) == 25 - 8
    assert g.monsters == {"medusa": "top", "frank": "middle", "bob": "bottom"}
    assert g.dice_left == [4, 4] and g.summoned == [0, 0] and g.on_table == [0, 0]
    assert g.round == 2 and g.phase == "launch"


def test_round_end_next_start_player_rotates():
    """Gameplay / Round End: rounds start with the next player clockwise
    (a documented choice; configurable in the data)."""
    g = new_game(CFG, 3, start=2)
    starts = [g.to_act]
    for _ in range(2):
        eff = play_round(g)
        starts.append(g.to_act)
        assert ("round_start", g.round, g.to_act) in eff
    assert starts == [2, 0, 1]
    cfg = dict(CFG, rotate_start_player=False)
    g = new_game(cfg, 3, start=2)
    play_round(g)
    assert g.to_act == 2


def test_round_end_needs_every_die_entered():
    """Round End step 1: all dice still counted are scored before the round closes."""
    g = new_game(CFG, 2)
    launch_rest(g)
    assert g.legal_actions()[-1] == ("die_lost", 1)
    assert ("score_round",) not in g.legal_actions()
    g.apply(("die_result", 0, 2))
    with pytest.raises(RuleError):
        g.apply(("score_round",))
    for p in (0, 1):
        while g.dice_to_enter(p):
            g.apply(("die_lost", p))
    assert g.legal_actions() == [("score_round",)]
    with pytest.raises(RuleError):
        g.apply(("die_lost", 0))


# ---- Game End ---------------------------------------------------------------------

def test_game_end_after_three_rounds():
    """Game End: three rounds, then the game is over; nothing more is accepted."""
    g = new_game(CFG, 2)
    for r in (1, 2, 3):
        assert g.round == r and not g.is_over()
        play_round(g, {0: [(r,)]})
    assert g.is_over() and g.to_act is None and g.legal_actions() == []
    assert g.round_totals(0) == [1, 2, 3]
    assert g.final_scores() == [6, 0] and g.winner == 0 and g.winners == [0]
    with pytest.raises(RuleError):
        g.apply(("launch",))


def test_game_end_tie_goes_to_most_points_in_final_round():
    """Game End: a tie is won by the player with most points in the final round."""
    g = new_game(CFG, 2)
    play_round(g, {0: [(6,)], 1: [(2,)]})
    play_round(g)
    eff = play_round(g, {1: [(4,)]})
    assert g.final_scores() == [6, 6]
    assert g.winners == [1] and g.winner == 1
    assert eff[-1] == ("game_over", (1,))


def test_game_end_full_tie_is_a_shared_win():
    """Game End: level on total and on the final round -> a shared win (documented)."""
    g = new_game(CFG, 3)
    play_round(g, {0: [(3,)], 1: [(3,)], 2: [(1,)]})
    play_round(g)
    eff = play_round(g, {0: [(2,)], 1: [(2,)], 2: [(6,)]})
    assert g.final_scores() == [5, 5, 7]
    assert g.winners == [2]
    g = new_game(CFG, 3)
    play_round(g)
    play_round(g)
    eff = play_round(g, {0: [(2,)], 1: [(2,)], 2: [(1,)]})
    assert g.winners == [0, 1] and g.winner is None
    assert eff[-1] == ("game_over", (0, 1))


def test_game_end_clue_points_can_decide():
    """Game End: clue points count towards the winner."""
    g = new_game(CFG, 2, front=[5])
    turn(g)
    turn(g, [("clue_taken", "clue_top_left")])
    play_round(g, {0: [(4,)]})
    play_round(g)
    play_round(g)
    assert g.final_scores() == [4, 5] and g.winner == 1
