"""Haunted House random playouts: a few hundred seeded games through legal actions,
checking the rulebook's invariants after every step (Gameplay, Monsters, Clues,
The Summoning Circle, Round End, Scoring, Game End) and that every game ends
with a winner or a documented shared win.
"""
import json
from pathlib import Path

import pytest

from rules.errors import CHANCE, RuleError
from rules.haunted_house import HauntedHouse
from rules.rng import Rng

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware" / "data" / "haunted-house.json").read_text())
MULT = {r["id"]: r["multiplier"] for r in CFG["realms"]}
NEXT = {"top": "middle", "middle": "bottom", "bottom": "top"}
PROBES = [("launch",), ("end_turn",), ("score_round",), ("monster_hit", "bob"),
          ("clue_taken", "clue_top_left"), ("circle", 0), ("circle", 3), ("hole", 1),
          ("die_result", 0, 6), ("die_result", 2, 1, "ravens"), ("die_lost", 0),
          ("die_result", 0, 9), ("monster_hit", "yeti"), ("off_table", -1), ("nap",)]


def _plain(x):
    if isinstance(x, tuple):
        return all(_plain(v) for v in x)
    return isinstance(x, (str, int)) and not isinstance(x, bool)


def _check_invariants(g):
    n = g.n
    assert g.to_act == {"launch": g.active, "flight": CHANCE, "round_end": CHANCE,
                        "over": None}[g.phase]
    every = list(g.deck) + [v for v in g.spots.values() if v is not None]
    for p in range(n):
        every += g.clues[p]
        assert 0 <= g.dice_left[p] <= 4
        assert 0 <= g.due[p] <= g.summoned[p] <= 2
        assert 0 <= g.on_table[p] <= g.launched(p) <= 6
        assert len(g.hits[g.round - 1][p]) == len(set(g.hits[g.round - 1][p]))
    assert sorted(every) == sorted(CFG["clue_deck"])
    assert set(g.monsters.values()) <= {"top", "middle", "bottom"}
    if g.phase == "round_end":
        for p in range(n):
            assert g.launched(p) == 4 + g.summoned[p] and g.due[p] == 0
    if g.phase == "launch":
        a = g.active
        assert g.due[a] > 0 or (g.dice_left[a] > 0 and not g.turn_regular)
    assert (g.legal_actions() == []) == g.is_over()


def play(seed, check_every=1):
    rng = Rng(seed)
    n = 1 + rng.below(4)
    g = HauntedHouse(CFG, n, rng=rng, start=rng.below(n))
    launches = [0] * n
    points = [0] * n
    hits = [set() for _ in range(n)]
    steps = 0
    while not g.is_over():
        if steps % check_every == 0:
            _check_invariants(g)
            if steps % 7 == 0:
                d = g.to_dict()
                assert HauntedHouse.from_dict(CFG, json.loads(json.dumps(d))).to_dict() == d
            probe = PROBES[rng.below(len(PROBES))]
            if probe not in g.legal_actions():
                before = g.to_dict()
                with pytest.raises(RuleError):
                    g.apply(probe)
                assert g.to_dict() == before
        acts = g.legal_actions()
        if g.phase == "flight" and rng.chance(1, 3):
            a = ("end_turn",)
        else:
            a = acts[rng.below(len(acts))]
        active = g.active
        monster_at = dict(g.monsters)
        rnd = g.round
        summoned = list(g.summoned)
        effects = g.apply(a)
        steps += 1
        assert steps < 5000
        for e in effects:
            assert isinstance(e, tuple) and _plain(e), e
            if e[0] == "launched":
                assert e[1] == active
                launches[e[1]] += 1
            elif e[0] == "monster_hit":
                # Monsters: only the active player is credited; it moves one level down.
                assert e[1] == active and a == ("monster_hit", e[2])
                hits[active].add(e[2])
            elif e[0] == "monster_moved":
                assert e[3] == NEXT[monster_at[e[1]]]
            elif e[0] == "clue_taken":
                assert e[1] == active
            elif e[0] == "die_scored":
                assert e[4] == e[2] * e[3]
                points[e[1]] += e[4]
            elif e[0] == "round_scored":
                p = e[2]
                assert e[1] == rnd
                # Gameplay: every die, summoned ones included, was launched.
                assert launches[p] == 4 + summoned[p]
                assert e[3] == points[p]
                assert e[4] == [0, 2, 5, 10][len(hits[p])]
                assert e[5] == e[3] + e[4]
        if a == ("score_round",):
            launches = [0] * n
            points = [0] * n
            hits = [set() for _ in range(n)]
    return g


@pytest.mark.parametrize("block", range(6))
def test_random_playouts_keep_invariants_and_end(block):
    """Gameplay .. Game End: 300 seeded games (50 per block) end after three rounds
    with rounds + clues as final score and a winner (or a full tie shared)."""
    for seed in range(block * 50 + 1, block * 50 + 51):
        g = play(seed)
        assert g.is_over() and len(g.rounds) == 3
        finals = g.final_scores()
        for p in range(g.n):
            assert finals[p] == sum(g.round_totals(p)) + sum(g.clues[p])
            assert g.score(p) == finals[p]
        best = max(finals)
        assert g.winners and all(finals[w] == best for w in g.winners)
        last = [g.round_total(3, w) for w in g.winners]
        assert len(set(last)) == 1
        for p in range(g.n):
            if finals[p] == best and p not in g.winners:
                assert g.round_total(3, p) < last[0]
        if len(g.winners) == 1:
            assert g.winner == g.winners[0]
        else:
            assert g.winner is None
