"""Watch Out Beetlejuice: persistence, legality and random playouts.

to_dict/from_dict round-trip exactly (also through JSON); from_dict refuses
impossible states; illegal actions change nothing; every listed action is
accepted; a few hundred random games end validly (End of the Game).
"""
import json
from pathlib import Path

import pytest

from rules.beetlejuice import BEETLEJUICE, BeetlejuiceGame, auto_chance
from rules.errors import CHANCE, RuleError
from rules.rng import Rng

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/beetlejuice.json").read_text())


def random_game(seed, players, options=None, every=None, visit=None, max_steps=20000):
    """Play a seeded game with uniformly random legal choices; call visit(g) on states."""
    rng = Rng(seed)
    g = BeetlejuiceGame(CFG, players, rng, options)
    steps = 0
    while not g.is_over():
        if visit and (every is None or steps % every == 0):
            visit(g, rng)
        if g.to_act == CHANCE:
            a = auto_chance(g, rng)
        else:
            acts = g.legal_actions()
            a = acts[rng.below(len(acts))]
        g.apply(a)
        steps += 1
        assert steps < max_steps, f"seed {seed} did not end"
    return g


def check_end(g):
    t = g.target()
    if g.result == "bj":
        assert len(g.bj_pile) >= t and g.winner == BEETLEJUICE and g.winners == []
        assert all(len(w) < t for w in g.won)
    else:
        assert g.result == "players" and any(len(w) >= t for w in g.won)
        best = max(g.points(p) for p in range(g.n))
        assert g.winners == [p for p in range(g.n) if g.points(p) == best]
    assert g.phase == "over" and g.to_act is None and g.legal_actions() == []


def test_random_playouts_end_validly():
    """End of the Game: 300 random games (1..6 players, some expert) end with a valid result."""
    results = {"bj": 0, "players": 0}
    for seed in range(1, 301):
        g = random_game(seed, 1 + seed % 6, {"expert": seed % 5 == 0})
        check_end(g)
        # the final state is consistent too (card conservation, phase)
        assert BeetlejuiceGame.from_dict(CFG, g.to_dict()).to_dict() == g.to_dict()
        results[g.result] += 1
    assert results["bj"] > 0 and results["players"] > 0


def test_round_trip_exact_at_every_step():
    """to_dict/from_dict round-trip exactly (also through JSON) at every step of 30 games."""
    def visit(g, rng):
        d = g.to_dict()
        text = json.dumps(d)
        g2 = BeetlejuiceGame.from_dict(CFG, json.loads(text))
        assert g2.to_dict() == d
        assert g2.legal_actions() == g.legal_actions()
        assert (g2.to_act, g2.phase, g2.winner) == (g.to_act, g.phase, g.winner)

    for seed in range(1000, 1030):
        random_game(seed, 2 + seed % 4, {"compare_bj": True}, visit=visit)


def test_listed_actions_all_apply_and_illegal_ones_change_nothing():
    """legal_actions is complete: each listed action applies; junk is refused atomically."""
    junk = [("stop", 1), ("reroll",), ("reroll", (0,)), ("collect", (9,)), ("collect", "x"),
            ("pass", "b01", 0), ("handbook", "fly"), ("draw_bj", "r01"), ("draw_house", "b01"),
            ("die", "skull"), ("roll", ()), ("begin",), ("nope",), (), "stop", [1, 2], None,
            ("handbook", "take", 7), ("handbook", "ignore", "b99"), ("pass", "b14", 9)]
    seen_phases = set()

    def visit(g, rng):
        seen_phases.add(g.phase)
        before = g.to_dict()
        legal = g.legal_actions()
        for a in legal:
            clone = BeetlejuiceGame.from_dict(CFG, before)
            clone.apply(a)
        for a in junk:
            if isinstance(a, tuple) and a in legal:
                continue
            with pytest.raises(RuleError):
                g.apply(a)
            assert g.to_dict() == before

    for seed in range(2000, 2040):
        random_game(seed, 2 + seed % 3, every=3, visit=visit)
    assert {"deal", "draw_bj", "roll", "decide", "collect", "pass"} <= seen_phases


def test_chance_phases_are_marked():
    """Chance (dice, draws) awaits CHANCE; auto_chance's action is always accepted."""
    def visit(g, rng):
        if g.phase in ("deal", "draw_bj", "roll"):
            assert g.to_act == CHANCE
            a = auto_chance(g, Rng(rng.next32()))
            BeetlejuiceGame.from_dict(CFG, g.to_dict()).apply(a)
        else:
            assert g.to_act == g.cur
            with pytest.raises(RuleError):
                auto_chance(g, rng)

    for seed in range(3000, 3010):
        random_game(seed, 3, visit=visit)


def _state():
    rng = Rng(77)
    g = BeetlejuiceGame(CFG, 3, rng)
    while not (g.bj_up and g.phase == "decide" and g.three):
        g.apply(auto_chance(g, rng) if g.to_act == CHANCE else
                g.legal_actions()[rng.below(len(g.legal_actions()))])
        if g.is_over():
            rng = Rng(rng.next32())
            g = BeetlejuiceGame(CFG, 3, rng)
    return g.to_dict()


def _take(d, card, *zones):
    """Move a card out of its zone (so conservation still holds)."""
    for z in zones:
        if card in d[z]:
            d[z].remove(card)
            return card
    raise AssertionError(f"{card} not in {zones}")


def _book(d):
    return [c for c in d["house"] + d["under"] if c.startswith("h")][0]


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(v=99),
    lambda d: d["house"].append(d["house"][0]),                    # duplicate card
    lambda d: d["house"].pop(),                                     # missing card
    lambda d: d.update(phase="dance"),
    lambda d: d.update(after="later"),
    lambda d: d.update(cur=3),
    lambda d: d.update(cur=-1),
    lambda d: d.update(turn="7"),
    lambda d: d.update(bj_up=False),                                # cards in play in the grave
    lambda d: d.update(three=_take(d, "b01", "bj_deck", "bj_disc")),  # not a 3-skull
    lambda d: d["held"][0].append(_take(d, "b02", "bj_deck", "bj_disc")),  # 1-skull held
    lambda d: d["dice"].__setitem__(0, "skull"),
    lambda d: d.update(dice=[]),                                    # decide without dice
    lambda d: d.update(rolling=[0]),
    lambda d: d.update(result="bj"),
    lambda d: d.update(winners=[5]),
    lambda d: d.update(held=[[]]),
    lambda d: d.update(slots=[None]),
    lambda d: d.update(ignored="b02"),
    lambda d: d.update(hb_used=1),
    lambda d: d["won"][1].append(_take(d, _book(d), "house", "under")),  # a Handbook is not scared
    lambda d: d.update(rolls=9),
    lambda d: d.pop("slots"),
    lambda d: d.update(names="ab"),
])
def test_from_dict_refuses_impossible_states(mutate):
    """from_dict validates: bad version, card conservation, zones, phase and dice."""
    d = _state()
    assert BeetlejuiceGame.from_dict(CFG, d).to_dict() == d
    mutate(d)
    with pytest.raises(RuleError):
        BeetlejuiceGame.from_dict(CFG, d)


def test_from_dict_refuses_non_dicts_and_bad_config():
    with pytest.raises(RuleError):
        BeetlejuiceGame.from_dict(CFG, [1, 2])
    with pytest.raises(RuleError):
        BeetlejuiceGame(dict(CFG, dice="8"), 2)
    with pytest.raises(RuleError):
        BeetlejuiceGame({k: v for k, v in CFG.items() if k != "bj_cards"}, 2)
