"""Watch Out Beetlejuice rules, clause by clause (section names from the rulebook).

Scenario scripts in tests/scenarios/beetlejuice cover the longer sequences;
these tests cover the remaining clauses and edge cases through the engine API.
"""
import json
from itertools import combinations
from pathlib import Path

import pytest

from rules.beetlejuice import (BEETLEJUICE, BJ, BeetlejuiceGame, auto_chance,
                               reroll_for_keep, sets_feasible)
from rules.errors import CHANCE, RuleError
from rules.rng import Rng

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/beetlejuice.json").read_text())
SYMS = ("roach", "ghost", "corpse", "barbara", "adam", "bj")
CFG_BJ_IDS = sorted(c["id"] for c in CFG["bj_cards"])


def fresh(players=2, slots=("r01", "r11", "r21"), **opts):
    g = BeetlejuiceGame(CFG, players, None, opts or None)
    for c in slots:
        g.apply(("draw_house", c))
    return g


def craft(g, **changes):
    """A game in a hand-made state (validated by from_dict)."""
    d = g.to_dict()
    d.update(changes)
    return BeetlejuiceGame.from_dict(CFG, d)


def without(lst, *cards):
    return [c for c in lst if c not in cards]


def in_play(g, three=None, one=None, held=None, pile=()):
    """Beetlejuice in play with the given cards (taken out of his deck)."""
    held = held or [[] for _ in range(g.n)]
    used = [c for c in [three, one] if c] + [c for h in held for c in h]
    return craft(g, bj_up=True, three=three, one=one, held=held,
                 bj_deck=without(g.bj_deck, *used), bj_pile=list(pile),
                 house=without(g.house, *pile))


# ---- Components ----------------------------------------------------------------

def test_components_dice_cards_and_symbols():
    """Components: 8 dice with six symbols, 28 Beetlejuice cards, 52 House cards."""
    assert CFG["dice"] == 8
    assert tuple(CFG["symbols"]) == SYMS
    assert set(CFG["symbol_names"].values()) == {
        "Cockroach Swarm", "Ghostly Apparition", "Headless Corpse",
        "Transformed Barbara", "Transformed Adam", "Beetlejuice"}
    assert len(CFG["bj_cards"]) == 28
    assert len(CFG["house"]) == 52
    books = [c for c in CFG["house"] if c.get("handbook")]
    assert len(books) == 3  # Handbook for the Recently Deceased: three copies
    assert {c["skulls"] for c in CFG["bj_cards"]} == {1, 2, 3}
    effects = {c["effect"] for c in CFG["bj_cards"]}
    assert effects == {"fewer_rolls", "remove_dice", "replace", "forbid", "banish4"}
    assert {c.get("n", 1) for c in CFG["bj_cards"] if c["effect"] == "remove_dice"} == {1, 2}
    assert len([c for c in CFG["bj_cards"] if c["effect"] == "forbid"]) == 2
    x4 = [c for c in CFG["bj_cards"] if c["effect"] == "banish4"]
    assert len(x4) == 1 and x4[0]["skulls"] == 3


def test_card_examples_printed_on_the_sheet():
    """Card Examples: 3x one symbol (3), 3x A or 3x B (3), 3x A and 1x B (4)."""
    ex = {c["printed"]: c for c in CFG["house"] if "printed" in c}
    assert ex[1]["points"] == 3 and ex[1]["need"] == [{"roach": 3}]
    assert ex[2]["points"] == 3 and len(ex[2]["need"]) == 2
    assert ex[2]["need"][0] == {"roach": 3} and list(ex[2]["need"][1].values()) == [3]
    assert ex[3]["points"] == 4 and len(ex[3]["need"]) == 1
    assert ex[3]["need"][0]["ghost"] == 3 and sorted(ex[3]["need"][0].values()) == [1, 3]
    g = fresh()
    cfg = g.cfg
    assert sets_feasible(cfg, [ex[1]["id"]], ["roach"] * 3, [])
    assert not sets_feasible(cfg, [ex[1]["id"]], ["roach"] * 2 + ["ghost"], [])
    other = list(ex[2]["need"][1])[0]
    assert sets_feasible(cfg, [ex[2]["id"]], [other] * 3, [])
    b = [s for s in ex[3]["need"][0] if s != "ghost"][0]
    assert sets_feasible(cfg, [ex[3]["id"]], ["ghost"] * 3 + [b], [])
    assert not sets_feasible(cfg, [ex[3]["id"]], ["ghost"] * 4, [])


def test_each_die_counts_toward_one_resident_only():
    """How to Play: two Residents needing the same symbol need separate dice."""
    cfg = fresh().cfg
    # r01 and r06 both need 3x Cockroach Swarm
    assert not sets_feasible(cfg, ["r01", "r06"], ["roach"] * 5, [])
    assert sets_feasible(cfg, ["r01", "r06"], ["roach"] * 6, [])
    # r11 may use its other alternative (3x ghost) to share with r01
    assert sets_feasible(cfg, ["r01", "r11"], ["roach"] * 3 + ["ghost"] * 3, [])
    # a Beetlejuice symbol scares no Resident
    assert not sets_feasible(cfg, ["r01"], ["roach", "roach", BJ], [])


# ---- Setup -----------------------------------------------------------------------

def test_setup_three_residents_face_up_and_beetlejuice_in_his_grave():
    """Setup: three Residents face up from the House pile; the Beetlejuice deck waits."""
    g = BeetlejuiceGame(CFG, 3, Rng(7))
    assert None not in g.slots and len(g.slots) == 3
    assert len(g.house) == 49 and not g.under
    assert len(g.bj_deck) == 28 and not g.bj_up and g.three is None
    assert g.phase == "roll" and g.to_act == CHANCE and g.cur == 0 and g.turn == 1


def test_setup_draws_are_chance_actions():
    """Setup: without an Rng the opening draws are chance inputs, any House card."""
    g = BeetlejuiceGame(CFG, 2)
    assert g.phase == "deal" and g.to_act == CHANCE
    assert len(g.legal_actions()) == 52
    with pytest.raises(RuleError):
        g.apply(("draw_house", "b01"))
    g.apply(("draw_house", "r49"))
    assert g.slots == ["r49", None, None]
    assert ("draw_house", "r49") not in g.legal_actions()


def test_player_count_limits():
    """Setup: 1..6 players (from data); anything else is refused."""
    for bad in (0, 7, "x", None):
        with pytest.raises(RuleError):
            BeetlejuiceGame(CFG, bad)
    assert BeetlejuiceGame(CFG, ["a", "b", "c"]).names == ["a", "b", "c"]


# ---- How to Play: dice ----------------------------------------------------------

def test_first_roll_rolls_every_die():
    """How to Play: the turn starts by rolling all eight dice (six faces each)."""
    g = fresh()
    assert g.phase == "roll" and g.rolling == list(range(8))
    assert g.legal_actions() == [("die", s) for s in SYMS]
    for bad in [("roll", ("roach",) * 7), ("roll", ("roach",) * 9),
                ("roll", ("roach",) * 7 + ("skull",)), ("roll", "roach")]:
        with pytest.raises(RuleError):
            g.apply(bad)
    assert g.phase == "roll" and g.dice == [""] * 8


def test_die_by_die_entry_equals_a_batched_roll():
    """How to Play: a roll may be entered one die at a time (sensor or buttons)."""
    faces = ("roach", "ghost", "bj", "adam", "adam", "corpse", "barbara", "roach")
    a, b = fresh(), fresh()
    fa = a.apply(("roll", faces))
    fb = []
    for f in faces:
        fb += b.apply(("die", f))
    assert fa == fb and a.to_dict() == b.to_dict()


def test_reroll_needs_two_dice_and_never_a_beetlejuice():
    """How to Play: never reroll one die alone; never reroll a Beetlejuice symbol."""
    g = fresh()
    g.apply(("roll", ("bj", "roach", "roach", "adam", "corpse", "barbara", "ghost", "ghost")))
    rerolls = [a[1] for a in g.legal_actions() if a[0] == "reroll"]
    assert rerolls and all(len(r) >= 2 and 0 not in r for r in rerolls)
    for bad in [(1,), (0, 1), (), (1, 8), (1, -1), (1, 1), ("1", "2")]:
        before = g.to_dict()
        with pytest.raises(RuleError):
            g.apply(("reroll", bad))
        assert g.to_dict() == before


def test_reroll_list_covers_every_distinct_choice_once():
    """How to Play: between rolls any dice may be set aside; legal_actions lists one
    reroll per distinct multiset of faces (dice showing the same face are alike)."""
    g = fresh()
    g.apply(("roll", ("bj", "roach", "roach", "adam", "corpse", "roach", "ghost", "ghost")))
    listed = [a[1] for a in g.legal_actions() if a[0] == "reroll"]
    key = lambda idx: tuple(sorted(g.dice[i] for i in idx))  # noqa: E731
    assert len({key(r) for r in listed}) == len(listed)
    brute = set()
    free = [i for i in range(8) if g.dice[i] != BJ]
    for k in range(2, len(free) + 1):
        for c in combinations(free, k):
            brute.add(key(c))
    assert {key(r) for r in listed} == brute
    # any equivalent index set is accepted too
    g.apply(("reroll", (7, 6)))
    assert g.rolling == [6, 7]


def test_forcing_a_kept_die_back_into_the_reroll():
    """How to Play: you must reroll at least two dice, even one you would keep."""
    g = fresh()
    g.apply(("roll", ("roach",) * 7 + ("ghost",)))
    assert reroll_for_keep(g, list(range(7))) == (6, 7)
    assert reroll_for_keep(g, list(range(8))) == (6, 7)
    assert reroll_for_keep(g, [0, 1]) == (2, 3, 4, 5, 6, 7)
    g2 = fresh()
    g2.apply(("roll", ("bj", "bj", "roach", "roach", "roach", "ghost", "adam", "adam")))
    assert reroll_for_keep(g2, [2, 3, 4, 5, 6]) == (6, 7)  # never a Beetlejuice die


def test_no_reroll_possible_with_one_free_die_ends_the_rolling():
    """How to Play: with only one die that may be rerolled, no reroll is possible."""
    g = fresh()
    # 1-skull remove 2, received 2-skull remove 2, 3-skull remove 1: three dice left
    g = in_play(g, three="b25", one="b09", held=[["b19"], []])
    g = craft(g, dice=[""] * 3, rolling=[0, 1, 2])
    assert g.n_dice() == 3
    fx = g.apply(("roll", ("bj", "bj", "roach")))
    assert ("passed", 0, "b19", 1) in fx  # no decision offered: the turn ended
    assert g.cur == 1


def test_minimum_three_dice_after_removals():
    """Beetlejuice Card Effects: removals add up, but at least three dice stay (data)."""
    g = in_play(fresh(), three="b25", one="b09", held=[["b19", "b17"], []])
    assert g.n_dice() == CFG["min_dice"] == 3


# ---- End of Turn -------------------------------------------------------------------

def test_three_rolls_at_most():
    """End of Turn: the turn ends after the third roll; no fourth roll is offered."""
    g = fresh(slots=("r41", "r42", "r43"))
    junk = ("roach", "ghost", "corpse", "barbara", "adam", "roach", "ghost", "corpse")
    g.apply(("roll", junk))
    g.apply(("reroll", tuple(range(8))))
    g.apply(("roll", junk))
    assert g.rolls_left() == 1
    g.apply(("reroll", tuple(range(8))))
    fx = g.apply(("roll", junk))
    assert ("turn", 1, 2) in fx and g.cur == 1  # nothing scared: straight to the next turn


def test_ending_with_nothing_scared_collects_nothing():
    """End of Turn: stopping with nothing scared passes the turn, nothing changes."""
    g = fresh()
    g.apply(("roll", ("adam", "adam", "corpse", "corpse", "barbara", "barbara", "ghost", "roach")))
    fx = g.apply(("stop",))
    assert g.won == [[], []] and g.slots == ["r01", "r11", "r21"] and ("turn", 1, 2) in fx


def test_choosing_to_collect_fewer_cards():
    """End of Turn: the player may leave a scared Resident on the table."""
    g = fresh()
    g.apply(("roll", ("roach",) * 3 + ("ghost",) * 3 + ("adam", "corpse")))
    g.apply(("stop",))
    assert ("collect", ()) in g.legal_actions()
    g.apply(("collect", [1]))  # JSON-style list accepted
    assert g.won[0] == ["r11"]


# ---- Beetlejuice ---------------------------------------------------------------------

def test_summon_scares_highest_value_leftmost_on_ties_and_not_a_handbook():
    """Beetlejuice: he scares the highest-valued Resident (ties: leftmost; never a Handbook)."""
    g = fresh(slots=("h1", "r11", "r01"))
    fx = g.apply(("roll", ("bj",) * 3 + ("roach",) * 5))
    assert ("bj_scares", "r11") in fx and g.bj_pile == ["r11"] and g.slots[0] == "h1"
    g = fresh(slots=("h1", "h2", "h3"))
    fx = g.apply(("roll", ("bj",) * 3 + ("roach",) * 5))
    assert g.bj_up and g.bj_pile == [] and not [e for e in fx if e[0] == "bj_scares"]


def test_beetlejuice_cards_only_while_he_is_in_play():
    """Beetlejuice: no card is drawn while he is in his grave; one per turn once he is up."""
    g = fresh()
    g.apply(("roll", ("adam",) * 8))
    g.apply(("stop",))
    assert g.phase == "roll"  # next player rolls at once
    g.apply(("roll", ("bj",) * 3 + ("adam",) * 5))
    g.apply(("draw_house", "r02"))
    assert g.phase == "draw_bj" and g.to_act == CHANCE
    assert len(g.legal_actions()) == 28


def test_beetlejuice_deck_reshuffled_from_discards_when_empty():
    """Beetlejuice: an empty deck is refilled from the discards (assumption)."""
    g = fresh()
    g = in_play(g)
    g = craft(g, bj_deck=[], bj_disc=list(CFG_BJ_IDS), phase="roll")
    g.apply(("roll", ("adam",) * 8))
    g.apply(("stop",))
    assert g.phase == "draw_bj" and len(g.bj_deck) == 28 and g.bj_disc == []



def test_scared_residents_stay_with_him_after_banishing():
    """Banishing Beetlejuice: his scared Residents stay his; only his cards go."""
    g = in_play(fresh(), three="b23", pile=["r41", "r42"])
    fx = g.apply(("roll", ("bj",) * 3 + ("roach",) * 5))
    assert ("banished", ("b23",)) in fx and g.bj_pile == ["r41", "r42"] and not g.bj_up


# ---- Beetlejuice Cards -----------------------------------------------------------------

def test_one_skull_card_affects_only_its_drawer():
    """Beetlejuice Cards: a 1-skull card acts on the drawer only, for this turn."""
    g = in_play(fresh(), one="b01")
    assert g.rolls_max() == 2
    g.apply(("roll", ("adam",) * 8))
    g.apply(("stop",))
    assert g.cur == 1 and g.one is None and "b01" in g.bj_disc
    g.apply(("draw_bj", "b17"))  # 2-skull remove one die for the new player
    assert g.rolls_max() == 3 and g.n_dice() == 7


def test_three_skull_card_affects_everyone():
    """Beetlejuice Cards: a 3-skull card acts on every player until he is banished."""
    g = in_play(fresh(players=3), three="b24")
    for p in range(3):
        assert g.cur == p and g.rolls_max() == 2
        g.apply(("roll", ("adam",) * g.n_dice()))
        g.apply(("stop",))
        assert g.phase == "draw_bj"
        g.apply(("draw_bj", ["b06", "b07", "b08"][p]))  # remove one die: rolls unchanged


def test_two_skull_card_with_a_single_player_is_discarded():
    """Beetlejuice Cards: with nobody to hand it to, a 2-skull card is discarded (solo)."""
    g = in_play(fresh(players=1), held=[["b14"]])
    g.apply(("roll", ("adam",) * 8))
    g.apply(("reroll", tuple(range(8))))
    fx = g.apply(("roll", ("adam",) * 8))
    assert ("bj_discard", "b14") in fx and g.held == [[]]


def test_fewer_rerolls_add_up_but_one_roll_stays():
    """Beetlejuice Card Effects: one fewer reroll per card, cumulative (at least one roll)."""
    g = fresh()
    assert in_play(g, three="b23", one="b01").rolls_max() == 1
    assert in_play(g, three="b23", one="b01", held=[["b14"], []]).rolls_max() == 1
    g1 = in_play(g, three="b23", one="b01")
    fx = g1.apply(("roll", ("adam",) * 8))
    assert ("turn", 1, 2) in fx  # the only roll was the last


def test_replace_draws_new_cards_then_the_ones_put_under():
    """Beetlejuice Card Effects: replaced Residents go under the House pile, drawn last;
    unknown cards are drawn first, known ones from underneath in order."""
    g = in_play(fresh())
    others = [c for c in g.house if c != "r02"]
    g = craft(g, house=["r02"], under=others)
    g.apply(("roll", ("adam",) * 8))
    g.apply(("stop",))
    fx = g.apply(("draw_bj", "b11"))
    assert ("replace_residents", ("r01", "r11", "r21")) in fx
    assert g.under[-3:] == ["r01", "r11", "r21"]
    assert g.legal_actions() == [("draw_house", "r02")]
    g.apply(("draw_house", "r02"))
    assert g.legal_actions() == [("draw_house", others[0])]
    with pytest.raises(RuleError):
        g.apply(("draw_house", others[1]))
    g.apply(("draw_house", others[0]))
    g.apply(("draw_house", others[1]))
    assert g.slots == ["r02", others[0], others[1]] and g.phase == "roll"


def test_active_three_skull_replace_applies_every_turn():
    """Beetlejuice Card Effects: a visible replace card replaces the Residents each turn."""
    g = in_play(fresh(), three="b27")
    g.apply(("roll", ("adam",) * 8))
    g.apply(("stop",))
    fx = g.apply(("draw_bj", "b02"))
    assert fx[-1][0] == "replace_residents" and g.phase == "deal"


def test_forbidden_symbols_do_not_scare_but_count_for_the_handbook():
    """Beetlejuice Card Effects: crossed-out symbols cannot scare Residents; the
    Handbook is not a Resident, so all six symbols still win it (assumption)."""
    g = in_play(fresh(slots=("h1", "r01", "r02")), one="b13")
    assert g.forbidden() == ["roach"]
    g.apply(("roll", ("roach", "ghost", "corpse", "barbara", "adam", "bj", "roach", "roach")))
    g.apply(("stop",))
    assert g.legal_actions() == [("collect", ()), ("collect", (0,))]


# ---- Handbook for the Recently Deceased ------------------------------------------------------

def test_handbook_does_not_count_as_a_resident():
    """Handbook: it scores nothing and does not count toward the five Residents."""
    g = fresh(slots=("h1", "r11", "r21"))
    g = craft(g, won=[["r02", "r03", "r04", "r05"], []],
              house=without(g.house, "r02", "r03", "r04", "r05"))
    g.apply(("roll", ("roach", "ghost", "corpse", "barbara", "adam", "bj", "adam", "adam")))
    g.apply(("stop",))
    g.apply(("collect", (0,)))
    assert not g.is_over() and g.books[0] == ["h1"] and g.points(0) == 12


def test_handbook_is_spent_after_one_use():
    """Handbook: one effect, once; the card then leaves the game (assumption)."""
    g = fresh()
    g = craft(g, books=[["h1"], []], house=without(g.house, "h1"), phase="prep",
              dice=[], rolling=[])
    assert ("handbook", "take", 0) in g.legal_actions()
    g.apply(("handbook", "rolls4"))
    assert g.books == [[], []] and g.spent == ["h1"] and g.rolls_max() == 4
    assert "h1" not in g.house and "h1" not in g.under


def test_handbook_banish_discards_cards_and_the_turn_goes_on():
    """Handbook: banish Beetlejuice at will; his cards are discarded, the turn continues."""
    g = in_play(fresh(), three="b23", one="b09", held=[["b14"], ["b15"]])
    g = craft(g, books=[["h1"], []], house=without(g.house, "h1"), phase="prep",
              dice=[], rolling=[])
    fx = g.apply(("handbook", "banish"))
    assert ("banished", ("b23", "b14", "b15", "b09")) in fx
    assert not g.bj_up and g.phase == "roll" and g.n_dice() == 8 and g.rolls_max() == 3


def test_handbook_ignore_the_x4_card():
    """Handbook: ignoring the x4 card makes three symbols banish again this turn."""
    g = in_play(fresh(), three="b28")
    g = craft(g, books=[["h1"], []], house=without(g.house, "h1"), phase="prep",
              dice=[], rolling=[])
    assert g.threshold() == 4
    g.apply(("handbook", "ignore", "b28"))
    assert g.threshold() == 3
    fx = g.apply(("roll", ("bj",) * 3 + ("adam",) * 5))
    assert ("banished", ("b28",)) in fx


def test_handbook_cannot_take_a_handbook():
    """Handbook: "collect any one Resident": a face-up Handbook is not a Resident."""
    g = fresh(slots=("h1", "r11", "r21"))
    g = craft(g, books=[["h2"], []], house=without(g.house, "h2"), phase="prep",
              dice=[], rolling=[])
    with pytest.raises(RuleError):
        g.apply(("handbook", "take", 0))
    assert ("handbook", "take", 1) in g.legal_actions()


# ---- End of the Game ----------------------------------------------------------------------

def _with_won(g, won, pile=()):
    gone = [c for w in won for c in w] + list(pile)
    return craft(g, won=won, bj_pile=list(pile), house=without(g.house, *gone))


def test_beetlejuice_fifth_resident_everyone_loses():
    """End of the Game: Beetlejuice scaring his fifth Resident wins; all players lose."""
    g = _with_won(fresh(), [["r41", "r42", "r43", "r44"], []], pile=["r02", "r03", "r04", "r05"])
    fx = g.apply(("roll", ("bj",) * 3 + ("adam",) * 5))
    assert ("game_over", "bj", ()) in fx
    assert g.is_over() and g.winner == BEETLEJUICE and g.winners == [] and g.to_act is None
    assert g.legal_actions() == []
    with pytest.raises(RuleError):
        g.apply(("draw_house", "r06"))


def test_shared_win_on_equal_points():
    """End of the Game: equal highest points share the win (assumption)."""
    g = _with_won(fresh(), [["r02", "r03", "r04", "r05"], ["r41", "r46", "r29"]])
    g.apply(("roll", ("roach",) * 3 + ("adam",) * 5))  # r01 (3 pts): 15 vs 15
    g.apply(("stop",))
    g.apply(("collect", (0,)))
    assert g.is_over() and g.winners == [0, 1] and g.winner is None


def test_expert_variant_needs_eight():
    """End of the Game: expert variant plays to eight Residents."""
    won = [["r02", "r03", "r04", "r05"], []]
    g = _with_won(fresh(expert=True), won)
    g.apply(("roll", ("roach",) * 3 + ("adam",) * 5))
    g.apply(("stop",))
    g.apply(("collect", (0,)))
    assert not g.is_over() and g.target() == 8
    g = _with_won(fresh(expert=True), [["r02", "r03", "r04", "r05", "r06", "r07", "r08"], []])
    g.apply(("roll", ("roach",) * 3 + ("adam",) * 5))
    g.apply(("stop",))
    g.apply(("collect", (0,)))
    assert g.is_over() and g.winner == 0


def test_optional_comparison_with_beetlejuice():
    """End of the Game (optional): compare each score with Beetlejuice's."""
    g = _with_won(fresh(compare_bj=True), [["r02", "r03", "r04", "r05"], ["r41"]],
                  pile=["r46", "r47"])
    g.apply(("roll", ("roach",) * 3 + ("adam",) * 5))
    g.apply(("stop",))
    fx = g.apply(("collect", (0,)))
    assert ("versus_bj", 0, 15, 12) in fx and ("versus_bj", 1, 5, 12) in fx
    assert g.versus_beetlejuice() == [(15, 12, True), (5, 12, False)]


def test_fifth_resident_by_handbook_ends_even_if_the_turn_is_lost():
    """End of the Game: a fifth Resident taken with the Handbook counts even when the
    turn then ends on Beetlejuice symbols."""
    g = _with_won(fresh(), [["r02", "r03", "r04", "r05"], []])
    g = craft(g, books=[["h1"], []], house=without(g.house, "h1"), phase="prep",
              dice=[], rolling=[])
    g.apply(("handbook", "take", 2))
    g.apply(("draw_house", "r41"))
    fx = g.apply(("roll", ("bj",) * 3 + ("adam",) * 5))
    assert ("summoned",) in fx and g.is_over() and g.result == "players" and g.winner == 0


def test_auto_chance_follows_the_phase():
    """Setup / How to Play: auto_chance gives a legal chance action, never a decision."""
    rng = Rng(3)
    g = BeetlejuiceGame(CFG, 2)
    for _ in range(3):
        a = auto_chance(g, rng)
        assert a[0] == "draw_house"
        g.apply(a)
    a = auto_chance(g, rng)
    assert a[0] == "roll" and len(a[1]) == 8 and set(a[1]) <= set(SYMS)
    g.apply(("die", "adam"))
    a = auto_chance(g, rng)
    assert a[0] == "die"
    g.apply(a)
    while g.phase == "roll":
        g.apply(auto_chance(g, rng))
    if g.to_act != CHANCE:
        with pytest.raises(RuleError):
            auto_chance(g, rng)
