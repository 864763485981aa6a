"""Watch Out Beetlejuice: persistence, legality and random playouts.

to_dict/from_dict round-trip exactly (also through JSON); from_dict refuses
impossible states; illegal actions change nothing; every listed action is
accepted; a few hundred random games end validly (End of the Game).
"""
import json
from pathlib import Path

import pytest

from rules.beetlejuice import BEETLEJUICE, BJ, BeetlejuiceGame, auto_chance
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


# ---- the checks the board relies on instead of listing every action -------------

def candidate_actions(g):
    """Every action of the right shape for any phase: legal ones and many illegal ones."""
    cfg = g.cfg
    cards = list(cfg.house_ids) + list(cfg.bj_ids)
    out = [("begin",), ("stop",), ("die", "nope"), ("draw_house", "zz"), ("collect", (0, 0)),
           ("collect", (5,)), ("collect", (2, 1)), ("pass", "b01", 9), ("pass", "b01", True),
           ("handbook", "take", True), ("handbook", "take", 7), ("handbook", "ignore", None),
           ("handbook",), ("handbook", "rolls4", 1), ("reroll",), ("reroll", (0, 1), 2)]
    out += [("draw_house", c) for c in cards] + [("draw_bj", c) for c in cards]
    out += [("die", s) for s in cfg.symbols]
    for m in range(8):
        out.append(("collect", tuple(i for i in range(3) if m >> i & 1)))
    for c in cards:
        out += [("pass", c, t) for t in range(-1, g.n + 1)]
        out.append(("handbook", "ignore", c))
    out += [("handbook", e) for e in ("rolls4", "summon", "banish", "reroll_bj", "zap")]
    out += [("handbook", "take", i) for i in range(-1, 4)]
    n = len(g.dice)
    out += [("reroll", tuple(i for i in range(n) if m >> i & 1)) for m in range(1 << n)]
    return out


def test_how_to_play_is_legal_agrees_with_legal_actions_and_apply():
    """How to Play / End of Turn: the engine answers "is this legal?" without building
    the list (the board's keep prompt relies on it): the same answer as
    legal_actions() for every action of every phase, rerolls aside, where it
    accepts exactly what apply() accepts (any two or more dice that may be rerolled)."""
    checked = [0, 0]

    def reroll_ok(g, idx):
        # How to Play: two dice or more, each once, no Beetlejuice symbol (one
        # with the Handbook), while a roll is left.
        if g.phase != "decide" or not g.rolls_left() or len(idx) < 2 or len(set(idx)) < len(idx):
            return False
        return sum(1 for i in idx if g.dice[i] == BJ) <= (1 if g.bjre else 0)

    def visit(g, rng):
        legal = g.legal_actions()
        tried = False
        for a in candidate_actions(g):
            ok = g.is_legal(a)
            if a[0] == "reroll":
                assert ok == (len(a) == 2 and reroll_ok(g, a[1])), a
                if a in legal:
                    assert ok, a
                if ok and not tried:            # and apply() agrees (on a copy)
                    BeetlejuiceGame.from_dict(CFG, g.to_dict()).apply(a)
                    tried = True
                checked[1] += ok
            else:
                assert ok == (a in legal), (g.phase, a)
                assert g._is_legal(a) == (a in legal), (g.phase, a)
                checked[0] += 1
        for a in legal:
            assert g.is_legal(list(a)), a          # as JSON from a host: lists
    for seed in range(1, 9):
        random_game(seed, 1 + seed % 6, {"expert": seed % 4 == 0}, every=4, visit=visit)
    assert checked[0] > 5000 and checked[1] > 300


def test_setup_card_data_indexed_compactly_and_viewed_like_the_json():
    """Components: the compact card records answer like the JSON they come from, and
    the dict view for host tools rebuilds every card."""
    from rules.beetlejuice_cards import Config
    cfg = Config(CFG)
    house = {c["id"]: c for c in CFG["house"]}
    bjc = {c["id"]: c for c in CFG["bj_cards"]}
    assert list(cfg.house_ids) == sorted(house) and list(cfg.bj_ids) == sorted(bjc)
    for cid, c in house.items():
        assert cfg.is_house(cid) and not cfg.is_bj(cid)
        assert cfg.points(cid) == c["points"]
        assert cfg.is_handbook(cid) == bool(c.get("handbook")) != cfg.is_resident(cid)
        assert cfg.card[cid] == {"id": cid, "points": c["points"], "need": c["need"],
                                 "handbook": bool(c.get("handbook"))}
    for cid, c in bjc.items():
        assert cfg.is_bj(cid) and not cfg.is_house(cid) and not cfg.is_resident(cid)
        assert cfg.skulls(cid) == c["skulls"] and cfg.effect(cid) == c["effect"]
        want = {k: v for k, v in c.items() if k in ("id", "skulls", "effect", "n", "symbols")}
        assert cfg.card[cid] == want
    for bad in ("zz", None, 3, ("r01",)):
        assert not cfg.is_house(bad) and not cfg.is_bj(bad) and not cfg.is_resident(bad)
    with pytest.raises(KeyError):
        cfg.points("zz")
    # refused data: a repeated id, a need on an unknown symbol, a bad effect
    for broken in (
        {**CFG, "bj_cards": CFG["bj_cards"] + [{"id": "r01", "skulls": 1, "effect": "replace"}]},
        {**CFG, "house": CFG["house"][:-1] + [{"id": "x1", "points": 3, "need": [{"zebra": 3}]}]},
        {**CFG, "bj_cards": [{"id": "b99", "skulls": 1, "effect": "tickle"}]},
    ):
        with pytest.raises(RuleError):
            Config(broken)


def test_state_view_is_the_saved_state_and_to_dict_an_independent_copy():
    """Saving: state_view() holds what to_dict() holds (it is what a save writes) and
    follows the game; to_dict() stays a copy that later play does not touch."""
    def visit(g, rng):
        d = g.to_dict()
        assert g.state_view() == d and g.state_view() is g.state_view()
        assert json.loads(json.dumps(g.state_view())) == json.loads(json.dumps(d))
        snap = json.loads(json.dumps(d))
        copy = BeetlejuiceGame.from_dict(CFG, g.to_dict())
        if copy.to_act == CHANCE:
            copy.apply(auto_chance(copy, Rng(1)))
        else:
            copy.apply(copy.legal_actions()[0])
        assert d == snap                         # the copy taken before did not move
    for seed in (3, 8, 21):
        random_game(seed, 3, every=5, visit=visit)


def test_how_to_play_reroll_for_keep_takes_a_mask_or_a_list():
    """How to Play: the dice set aside may be given as indexes or as a bit mask."""
    def visit(g, rng):
        if g.phase != "decide":
            return
        for m in range(1 << len(g.dice)):
            keep = [i for i in range(len(g.dice)) if m >> i & 1]
            assert reroll_for_keep(g, m) == reroll_for_keep(g, keep)
    from rules.beetlejuice import reroll_for_keep
    for seed in (2, 5):
        random_game(seed, 2, visit=visit)


def test_setup_auto_chance_draws_what_the_listed_choice_would():
    """Setup / Beetlejuice: the firmware draws a card from the candidates without
    building the list: the same card as acts[rng.below(len(acts))]."""
    for seed in range(1, 40):
        g = BeetlejuiceGame(CFG, 2)
        r1, r2 = Rng(seed), Rng(seed)
        while g.phase == "deal":
            acts = g.legal_actions()
            want = acts[r2.below(len(acts))]
            assert auto_chance(g, r1) == want
            g.apply(want)
        g = craft_phase_draw_bj(seed)
        acts = g.legal_actions()
        r1, r2 = Rng(seed), Rng(seed)
        assert auto_chance(g, r1) == acts[r2.below(len(acts))]


def craft_phase_draw_bj(seed):
    g = BeetlejuiceGame(CFG, 2, Rng(seed))
    d = g.to_dict()
    d.update(bj_up=True, phase="draw_bj", rolling=[], dice=[], pending=[])
    return BeetlejuiceGame.from_dict(CFG, d)
