"""Bots for Watch Out Beetlejuice and a game runner used by stats, play and tests.

Two policies:

* ``random``: picks uniformly among ``game.legal_actions()``.
* ``heuristic``: plans which face-up cards to go for with an exact
  probability model of the remaining rolls (kept dice stay, the rest are
  rerolled, Beetlejuice symbols accumulate), weighs the points against the
  chance of summoning or banishing Beetlejuice, and stops when the dice in
  hand are worth more than another roll. It also chooses what to collect
  (never ending the game while behind), whom to hand a 2-skull card (the
  leader) and when to spend a Handbook.

Chance (dice, draws) is never decided by a bot: controllers call
``rules.beetlejuice.auto_chance`` with their own ``Rng``.
"""
from __future__ import annotations

import json
import weakref
from functools import lru_cache
from math import factorial
from pathlib import Path
from typing import Any, Callable

from hauntbox_fw.paths import FIRMWARE_DIR, prepend_firmware

_FIRMWARE = FIRMWARE_DIR
prepend_firmware()   # the bots play with the firmware's own rules

from rules.beetlejuice import BJ, BeetlejuiceGame, auto_chance, reroll_for_keep  # noqa: E402
from rules.beetlejuice_cards import K_BOOK, Config  # noqa: E402
from rules.errors import CHANCE  # noqa: E402
from rules.rng import Rng  # noqa: E402

DATA = _FIRMWARE / "data" / "beetlejuice.json"

HANDBOOK_VALUE = 2.0       # a Handbook in hand is worth about this many points
SUMMON_COST = 2.0          # summoning Beetlejuice: he takes a card, tricks start
SUMMON_LOSS = 30.0         # summoning him when he then wins (everyone loses)
BANISH_GAIN = 0.5          # banishing him (plus per active card below)
BANISH_PER_CARD = 0.5
SEVERITY = {("remove_dice", 2): 3.0, ("fewer_rolls", 1): 2.5, ("remove_dice", 1): 2.0,
            ("forbid", 2): 2.0, ("forbid", 1): 1.5, ("replace", 1): 0.5, ("banish4", 1): 0.5}


def load_config(path: str | Path | None = None) -> dict:
    """The default card data (firmware/data/beetlejuice.json) as a dict."""
    return json.loads(Path(path or DATA).read_text())


class _Memo:
    """What the heuristic bot asks about one card Config again and again, worked
    out once. The firmware keeps its cards as packed records found by binary
    search (it saves RAM on the Pico); the bot asks for the same card values,
    card requirements and feasible sets thousands of times a game. Every entry
    is a pure function of its key, so the bot's choices do not change."""

    LIMIT = 200_000      # entries per table before it is emptied (a bound on memory)

    def __init__(self) -> None:
        self.value: dict[str, float] = {}
        self.needs: dict[tuple, list] = {}
        self.cards: dict[str, tuple] = {}
        # (a set of face-up cards, forbidden mask) -> best_plan's target (_target)
        self.targets: dict[tuple, tuple] = {}
        self.parts: dict[tuple, list] = {}      # cards -> their parts (_parts)
        self.resident: dict[str, bool] = {}     # card -> cfg.is_resident(card)
        self.alts: dict[str, tuple] = {}        # card -> alternatives for _needs


_MEMOS: "weakref.WeakKeyDictionary[Config, _Memo]" = weakref.WeakKeyDictionary()
_LAST_MEMO: list = [None, None]     # the last (Config, _Memo): one lookup, no weakref


def _memo(cfg: Config) -> _Memo:
    if _LAST_MEMO[0] is cfg:
        return _LAST_MEMO[1]
    m = _MEMOS.get(cfg)
    if m is None:
        m = _MEMOS[cfg] = _Memo()
    _LAST_MEMO[0] = cfg
    _LAST_MEMO[1] = m
    return m


def _card(cfg: Config, memo: _Memo, cid: str) -> tuple:
    """A card's record decoded once: (is a Handbook, its alternatives), each
    alternative (symbols mask, ((symbol index, count), ...))."""
    rec = memo.cards.get(cid)
    if rec is None:
        d, ns = cfg.data, len(cfg.symbols)
        o = cfg._rec(cid)
        alts = []
        a = o + 3
        for _ in range(d[o + 2]):
            need = tuple((s, d[a + s]) for s in range(ns) if d[a + s])
            alts.append((sum(1 << s for s, _ in need), need))
            a += ns
        rec = memo.cards[cid] = (bool(d[o] & K_BOOK), tuple(alts))
    return rec


def _fits(recs: list, k: int, left: list, forb: int) -> bool:
    # rules.beetlejuice_cards._fits on decoded records: can cards k.. be scared
    # with the dice counts `left`, each die for one card?
    if k == len(recs):
        return True
    book, alts = recs[k]
    for used, need in alts:
        if not book and used & forb:
            continue
        for s, c in need:
            if left[s] < c:
                break
        else:
            for s, c in need:
                left[s] -= c
            fit = _fits(recs, k + 1, left, forb)
            for s, c in need:
                left[s] += c
            if fit:
                return True
    return False


def feasible_sets(game: BeetlejuiceGame, faces: list | tuple | None = None) -> list:
    """game.feasible_sets(faces), the same sets in the same order, from decoded
    card records; a set is tried only if every set one card smaller was feasible
    (the subsets of a mask all come before it in this counting order)."""
    cfg = game.cfg
    memo = _memo(cfg)
    syms = cfg.symbols
    left = [0] * len(syms)
    for f in (game.dice if faces is None else faces):
        if f in syms:
            left[syms.index(f)] += 1
    forb = game._forbid_mask()
    slots = game.slots
    occ = 0
    for i in range(len(slots)):
        if slots[i] is not None:
            occ |= 1 << i
    recs = [None if c is None else _card(cfg, memo, c) for c in slots]
    ok = {0}
    out = [()]
    m = (0 - occ) & occ
    while m:
        sub = _SUBSETS.get(m)
        if sub is None:
            sub = _SUBSETS[m] = tuple(i for i in range(m.bit_length()) if m >> i & 1)
        for i in sub:
            if m ^ (1 << i) not in ok:
                break
        else:
            if _fits([recs[i] for i in sub], 0, left, forb):
                ok.add(m)
                out.append(sub)
        if m == occ:
            break
        m = (m - occ) & occ
    return out


_SUBSETS: dict[int, tuple[int, ...]] = {}   # mask -> the indexes of its set bits
_NO_NEEDS = [((), False)]     # the requirements of no cards


def _neg_value(part: tuple) -> float:
    return -part[0]


_CONFIGS: dict[int, tuple[dict, Config]] = {}


def _config(config: dict | Config) -> Config:
    """The indexed Config of a card-data dict, built once per dict (as the
    firmware builds it once per boot) rather than once per game."""
    if isinstance(config, Config):
        config.index_ids()      # a dict of the card ids: RAM is no concern here
        return config
    hit = _CONFIGS.get(id(config))
    if hit is None or hit[0] is not config:
        if len(_CONFIGS) > 8:
            _CONFIGS.clear()
        cfg = Config(config)
        cfg.index_ids()
        hit = _CONFIGS[id(config)] = (config, cfg)
    return hit[1]


def severity(game: BeetlejuiceGame, card: str) -> float:
    """How much a Beetlejuice card hurts the player it acts on (higher = worse)."""
    c = game.cfg.card[card]
    k = len(c["symbols"]) if c["effect"] == "forbid" else c.get("n", 1)
    return SEVERITY.get((c["effect"], k), 1.0)


@lru_cache(maxsize=None)
def _compositions(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    if k == 1:
        return ((n,),)
    out = []
    for a in range(n + 1):
        for rest in _compositions(n - a, k - 1):
            out.append((a,) + rest)
    return tuple(out)


@lru_cache(maxsize=None)
def plan_odds(missing: tuple[int, ...], need_bj: bool, free: int, bj: int, thr: int,
              rolls: int) -> tuple[float, float]:
    """Chance of completing ``missing`` symbol counts, and of a Beetlejuice trigger.

    ``missing``: how many more dice are needed of each (distinct, non-Beetlejuice)
    symbol; ``need_bj``: a Beetlejuice symbol is also needed (the Handbook);
    ``free``: dice that will be rerolled; ``bj``: Beetlejuice symbols showing;
    ``thr``: symbols that end the turn; ``rolls``: rolls left. Dice that land on
    a missing symbol are kept, the rest are rerolled on the next roll.
    Returns (p_success, p_trigger).
    """
    if rolls <= 0 or free <= 0:
        return (0.0, 0.0)
    m = len(missing)
    p_other = (5 - m) / 6.0
    cats = m + 2
    succ = trig = 0.0
    fact_n = factorial(free)
    for comp in _compositions(free, cats):
        b = comp[m]
        o = comp[m + 1]
        if o and p_other == 0.0:
            continue
        coef = fact_n
        for x in comp:
            coef //= factorial(x)
        prob = coef * (1 / 6.0) ** (free - o) * p_other ** o
        nbj = bj + b
        if nbj >= thr:
            trig += prob
            continue
        left = []
        used = 0
        for i in range(m):
            got = min(comp[i], missing[i])
            used += got
            if missing[i] > got:
                left.append(missing[i] - got)
        if not left and (not need_bj or nbj >= 1):
            succ += prob
            continue
        nfree = free - used - b
        if rolls > 1 and nfree > 0 and sum(left) <= nfree:
            s, t = plan_odds(tuple(sorted(left, reverse=True)), need_bj, nfree, nbj, thr,
                             rolls - 1)
            succ += prob * s
            trig += prob * t
    return (succ, trig)


class RandomBot:
    """Uniformly random among the legal actions."""

    name = "random"

    def __init__(self, rng: Rng):
        self.rng = rng

    def choose(self, game: BeetlejuiceGame) -> tuple:
        acts = game.legal_actions()
        return acts[self.rng.below(len(acts))]


class HeuristicBot:
    """Plans rerolls with exact odds; sensible collect, pass and Handbook choices."""

    name = "heuristic"

    def __init__(self, rng: Rng | None = None):
        self.rng = rng
        self._last_targets: tuple | None = None    # see _targets
        self._seen: tuple | None = None            # see best_plan

    # ---- values -------------------------------------------------------------

    def card_value(self, game: BeetlejuiceGame, card: str) -> float:
        values = _memo(game.cfg).value
        v = values.get(card)
        if v is None:
            v = values[card] = (HANDBOOK_VALUE if game.cfg.is_handbook(card)
                                else float(game.cfg.points(card)))
        return v

    def trigger_value(self, game: BeetlejuiceGame) -> float:
        if game.bj_up:
            return BANISH_GAIN + BANISH_PER_CARD * len(game.active_cards())
        if len(game.bj_pile) + 1 >= game.target():
            return -SUMMON_LOSS
        return -SUMMON_COST

    @staticmethod
    def _best_part(subs: list, forb: int, left: list):
        """The value of the first of `subs` (a target's parts, highest value
        first, with their decoded records) the dice counts `left` can scare,
        else 0."""
        for v, recs in subs:
            if _fits(recs, 0, left, forb):
                return v
        return 0

    def _set_value(self, game: BeetlejuiceGame, sel: tuple) -> float:
        values = _memo(game.cfg).value
        slots = game.slots
        v = 0                   # sum() in slot order, without a generator
        for i in sel:
            c = slots[i]
            v += values[c] if c in values else self.card_value(game, c)
        return v

    # ---- decisions ----------------------------------------------------------

    def choose(self, game: BeetlejuiceGame) -> tuple:
        phase = game.phase
        if phase == "prep":
            return self._prep(game)
        if phase == "decide":
            return self._decide(game)
        if phase == "collect":
            return self._collect(game)
        if phase == "pass":
            return self._pass(game)
        return game.legal_actions()[0]

    def _prep(self, game: BeetlejuiceGame) -> tuple:
        legal = game.legal_actions()
        me = game.cur
        takes = [a for a in legal if a[:2] == ("handbook", "take")]
        best_take = max(takes, key=lambda a: game.cfg.points(game.slots[a[2]]), default=None)
        if best_take is not None:
            pts = game.cfg.points(game.slots[best_take[2]])
            closing = len(game.won[me]) + 1 >= game.target() and game.points(me) + pts > max(
                [game.points(p) for p in range(game.n) if p != me] or [0])
            if pts >= 5 or closing or len(game.books[me]) >= 2:
                return best_take
        ignores = [a for a in legal if a[:2] == ("handbook", "ignore")]
        if ignores:
            worst = max(ignores, key=lambda a: severity(game, a[2]))
            if severity(game, worst[2]) >= 2.0:
                return worst
        if ("handbook", "banish") in legal and len(game.active_cards()) >= 2:
            return ("handbook", "banish")
        return ("begin",)

    def _collect(self, game: BeetlejuiceGame) -> tuple:
        me = game.cur
        others = max([game.points(p) for p in range(game.n) if p != me] or [-1])
        best: tuple = ("collect", ())
        best_v: float | None = None
        # legal_actions() in phase "collect" is ("collect", s) for every set of
        # game.feasible_sets(), which feasible_sets() lists the same, faster
        cfg = game.cfg
        resident = _memo(cfg).resident
        slots = game.slots
        need = game.target() - len(game.won[me])    # Residents that end the game
        for sel in feasible_sets(game):
            v = self._set_value(game, sel)
            res = []
            for i in sel:
                c = slots[i]
                r = resident.get(c)
                if r is None:
                    r = resident[c] = cfg.is_resident(c)
                if r:
                    res.append(c)
            if len(res) >= need:
                pts = game.points(me) + sum(cfg.points(c) for c in res)
                if pts <= others:
                    v -= 100.0  # ending the game now would lose it
            if best_v is None or v > best_v:
                best, best_v = ("collect", sel), v
        return best

    def _pass(self, game: BeetlejuiceGame) -> tuple:
        me = game.cur
        opp = [p for p in range(game.n) if p != me]
        leader = max(opp, key=lambda p: (game.points(p), len(game.won[p]),
                                         -((p - me) % game.n)))
        card = max(game.held[me], key=lambda c: severity(game, c))
        return ("pass", card, leader)

    def _decide(self, game: BeetlejuiceGame) -> tuple:
        dice = game.dice
        bj_now = dice.count(BJ)
        plan = self.best_plan(game)
        if plan is None:
            return ("stop",)
        # the best set the dice showing can scare, from what best_plan just
        # worked out for this position: the dice counts per symbol and the
        # face-up cards' targets (the first part of every card's target, highest
        # value first, the dice can scare)
        cnt, targets, forb = self._seen
        if plan[0] <= self._best_part(targets[-1][2], forb, cnt) + 0.05:
            return ("stop",)
        keep = plan[1]
        # The Handbook's reroll is in legal_actions() exactly when it is in
        # handbook_actions() (the rest are "stop" and rerolls): no need to list
        # every reroll
        if (bj_now == game.threshold() - 1 and not plan[2]
                and ("handbook", "reroll_bj") in game.handbook_actions()):
            return ("handbook", "reroll_bj")
        roll = reroll_for_keep(game, keep)
        if roll is None:
            return ("stop",)
        return ("reroll", roll)

    def best_plan(self, game: BeetlejuiceGame):
        """Best (value, keep indices, needs_bj) over target sets, or None without rerolls.

        For each set of face-up cards and each way of scaring it (a combined
        requirement), the dice to keep are those already showing what it
        needs; the rest are rerolled. Its value: the set's points times the
        chance of completing it, plus, when it fails without a trigger, the
        best set the kept dice can scare, plus the trigger's value times its
        chance. Worked out on dice counts per symbol (the same figures as
        listing the kept dice), the keep list made for the best only."""
        rolls_left = game.rolls_left()      # asked once: the engine counts the active cards
        if not rolls_left or reroll_for_keep(game, ()) is None:
            return None
        cfg = game.cfg
        memo = _memo(cfg)
        dice = game.dice
        syms = cfg.symbols
        bj_sym = syms.index(BJ)
        n_dice = len(dice)
        forb = game._forbid_mask()
        by_sym: list[list[int]] = [[] for _ in syms]      # dice indexes showing each symbol
        for i, f in enumerate(dice):
            if f in syms:
                by_sym[syms.index(f)].append(i)
        cnt = [len(x) for x in by_sym]
        bj_dice = by_sym[bj_sym]
        bj_count = len(bj_dice)
        spare_bj = 1 if (game.bjre and bj_count) else 0
        thr = game.threshold()
        trig_v = self.trigger_value(game)
        slots = tuple(game.slots)
        left = [0] * len(syms)
        best = None
        targets = self._targets(game, memo, slots, forb)
        self._seen = (cnt, targets, forb)      # for _decide: the dice showing's value
        bj_keep = bj_count - spare_bj       # bj_eff without and with a Beetlejuice symbol needed
        for value, needs, subs in targets:
            for need, need_bj, total in needs:
                # short > free below, worked out first: free + kept = n_dice - bj_eff
                # and short + kept = total
                if total > n_dice - (bj_count if need_bj else bj_keep):
                    continue
                missing = []
                kept = 0
                for s, k in need:
                    have = cnt[s]
                    if k > have:
                        missing.append(k - have)
                        left[s] = have
                        kept += have
                    else:
                        left[s] = k
                        kept += k
                bj_eff = bj_count - (0 if need_bj else spare_bj)
                free = n_dice - kept - bj_eff
                if not missing and (not need_bj or bj_count >= 1):
                    # already satisfied (covered by stopping now)
                    for s, _k in need:
                        left[s] = 0
                    continue
                missing.sort(reverse=True)
                p_s, p_t = plan_odds(tuple(missing), need_bj, free, bj_eff, thr, rolls_left)
                left[bj_sym] = bj_eff
                # the best part of the target the kept dice can scare
                fb = self._best_part(subs, forb, left)
                left[bj_sym] = 0
                for s, _k in need:
                    left[s] = 0
                v = value * p_s + fb * max(0.0, 1.0 - p_s - p_t) + trig_v * p_t
                if best is None or v > best[0]:
                    best = (v, need, need_bj)
        if best is None:
            return None
        # the keep list of the best requirement only
        v, need, need_bj = best
        keep: list[int] = []
        for s, k in need:
            keep.extend(by_sym[s][:k])
        if need_bj:
            keep.extend(bj_dice)
        return (v, tuple(keep), need_bj)

    def _targets(self, game: BeetlejuiceGame, memo: _Memo, slots: tuple, forb: int) -> list:
        """best_plan's target sets: for each non-empty set of the face-up cards
        (in the order of counting through the occupied slots), its value, its
        requirements (_needs) and its non-empty parts, highest value first.
        Remembered per set of cards: a card stays face up for several turns;
        the last list made is kept too (the same cards stay face up over a turn's rolls)."""
        last = self._last_targets
        if last is not None and last[0] == slots and last[1] == forb and last[2] is memo:
            return last[3]
        occ = [i for i, c in enumerate(slots) if c is not None]
        out = []
        sets = [()]     # the cards of each mask: those of the mask without its top bit, + 1
        for mask in range(1, 1 << len(occ)):
            top = mask.bit_length() - 1
            cards = sets[mask ^ (1 << top)] + (slots[occ[top]],)
            sets.append(cards)
            key = (cards, forb)
            t = memo.targets.get(key)
            if t is None:
                if len(memo.targets) >= _Memo.LIMIT:
                    memo.targets.clear()
                t = memo.targets[key] = self._target(game, memo, cards, forb)
            out.append(t)
        self._last_targets = (slots, forb, memo, out)
        return out

    def _target(self, game: BeetlejuiceGame, memo: _Memo, cards: tuple, forb: int) -> tuple:
        values = [self.card_value(game, c) for c in cards]
        value = 0
        for v in values:            # summed in slot order, as _set_value does
            value += v
        # each requirement with its number of dice: more than the dice that may
        # be rerolled or kept (n_dice - bj_eff in best_plan) is out of reach
        needs = [(need, need_bj, sum([k for _s, k in need]))
                 for need, need_bj in self._needs(game.cfg, list(cards), forb)]
        return (value, needs, self._parts(game, memo, cards))

    def _parts(self, game: BeetlejuiceGame, memo: _Memo, cards: tuple) -> list:
        """The non-empty parts of `cards` as (value, decoded records), highest
        value first, equal values in the counting order of the parts' masks
        (bit k: cards[k]); remembered per cards (forbidden symbols play no part).
        Built from the parts of cards[:-1] (`prev`, in that order): the parts
        without the last card are `prev`, those with it are the last card
        alone, then each of `prev` plus the last card; their values are prev's
        plus the last card's (added last, as a sum in card order adds it), and
        card values are small whole numbers, so the sums are exact: a stable
        sort of prev + [last] + [p + last for p in prev] on -value is the
        stable sort of every part in counting order."""
        subs = memo.parts.get(cards)
        if subs is None:
            if len(memo.parts) >= _Memo.LIMIT:
                memo.parts.clear()
            last = cards[-1]
            lv = self.card_value(game, last)
            lrec = _card(game.cfg, memo, last)
            if len(cards) == 1:
                subs = [(0 + lv, [lrec])]
            else:
                prev = self._parts(game, memo, cards[:-1])
                subs = prev + [(0 + lv, [lrec])] + [(v + lv, recs + [lrec]) for v, recs in prev]
                subs.sort(key=_neg_value)
            memo.parts[cards] = subs
        return subs

    @staticmethod
    def _needs(cfg, cards: list[str], forb: int):
        """Every combined requirement (alternative per card) usable with the symbols
        allowed (`forb`: the forbidden symbols' mask), each as ((symbol index,
        count), ...) in the order the cards name them, and whether a
        Beetlejuice symbol is needed; remembered (the caller must not change it).
        The same list as working every combination out card by card (the
        reference in tests/sim/core/test_fast_paths.py), built from the requirements of
        cards[:-1] (remembered too) and the last card's decoded alternatives
        (symbol order, as its "need" dicts), its forbidden symbols by mask."""
        memo = _memo(cfg)
        needs = memo.needs
        key = (tuple(cards), forb)
        combos = needs.get(key)
        if combos is None:
            if len(needs) >= _Memo.LIMIT:
                needs.clear()
            if len(cards) == 1:
                prev = _NO_NEEDS
            else:
                prev = HeuristicBot._needs(cfg, cards[:-1], forb)
            alts = memo.alts.get(cards[-1])
            if alts is None:
                book, recs = _card(cfg, memo, cards[-1])
                bj = cfg.symbols.index(BJ)
                alts = memo.alts[cards[-1]] = (book, tuple(
                    (used, tuple((s, k) for s, k in need if s != bj), bool(used >> bj & 1))
                    for used, need in recs))
            book, alts = alts
            combos = []
            for used, add, has_bj in alts:
                if not book and used & forb:
                    continue
                for base, nb in prev:
                    if add:
                        d = dict(base)
                        for s, k in add:
                            d[s] = d.get(s, 0) + k
                        combos.append((tuple(d.items()), nb or has_bj))
                    else:
                        combos.append((base, nb or has_bj))
            needs[key] = combos
        return combos


POLICIES: dict[str, Callable[[Rng], Any]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(policy: str, rng: Rng):
    """A bot for a policy name ("random" or "heuristic")."""
    try:
        return POLICIES[policy](rng)
    except KeyError:
        raise ValueError(f"unknown policy {policy!r} (choose from {', '.join(POLICIES)})") from None


def play_game(config: dict, policies: list[str], seed: int, options: dict | None = None,
              max_steps: int = 200_000) -> dict:
    """Play one game between bots; return a summary dict.

    Chance comes from ``Rng(seed)``; each bot gets its own Rng derived from the
    seed and its seat, so a seed fixes the whole game.
    """
    rng = Rng(seed)
    bots = [make_bot(p, Rng((seed * 7919 + 104729 * (i + 1)) & 0xFFFFFFFF))
            for i, p in enumerate(policies)]
    game = BeetlejuiceGame(_config(config), len(policies), rng, options)
    steps = 0
    while not game.is_over():
        if game.to_act == CHANCE:
            action = auto_chance(game, rng)
        else:
            action = bots[game.to_act].choose(game)
        game.apply(action)
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"game with seed {seed} did not end in {max_steps} steps")
    return {
        "seed": seed,
        "policies": list(policies),
        "result": game.result,
        "winners": list(game.winners),
        "turns": game.turn,
        "points": [game.points(p) for p in range(game.n)],
        "residents": [len(w) for w in game.won],
        "bj_points": game.bj_points(),
        "bj_residents": len(game.bj_pile),
        "steps": steps,
    }
