"""Bots for Star Trek: Super-Skill Pinball and a game runner used by stats, play and tests.

Policies (each a callable ``policy(game) -> action`` for the player to act):

* ``random``: uniform among ``game.legal_actions()`` (rolls are never chosen
  by a policy; the runner rolls with its own ``Rng``).
* ``greedy``: applies each candidate action to a copy of the game and keeps
  the one whose resulting position is worth most to the acting player by a
  static evaluation (stars, live balls and their positions, open flipper
  boxes, Skill Shots, Nudge boxes and tilt risk, progress on bonus sets, the
  value of bonuses not yet taken).
* ``lookahead``: takes the best few greedy candidates and adds the expected
  value of the best move on the *next* roll over the exact 2d6 distribution
  (21 outcomes, doubles weight 1/36, others 2/36), so it prefers positions
  from which more rolls lead somewhere good and fewer drain the ball.

The evaluation only reads table data (kinds, sets, menus, star values), so it
works for any table file; nothing here is specific to Starfleet Academy.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable

_FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
try:  # firmware/ is on sys.path in tests and the simulator
    import rules.superskill  # noqa: F401
except ImportError:  # pragma: no cover - running from a checkout without it
    sys.path.insert(0, str(_FIRMWARE))

from rules.errors import CHANCE  # noqa: E402
from rules.rng import Rng  # noqa: E402
from rules.superskill import START, SuperSkillGame  # noqa: E402

DATA_DIR = _FIRMWARE / "data" / "superskill"
TABLES = {"starfleet-academy": "starfleet_academy.json"}

# evaluation weights (stars)
W_BALL = 9.0          # a live ball in the current round
W_BALL2 = 6.0         # the second ball of a Multiball
W_FLIP = 2.0          # each open flipper box (another chance to keep the ball)
W_SKILL = 2.5         # a circled Skill Shot number
W_NUDGE = 1.5         # an unused Nudge box
W_MB = 4.0            # Multiball active (stars doubled)
W_PROG = 0.4          # share of a set's bonus credited per filled fraction
P_AGAIN = 0.45        # chance to complete a bonus set again later this game
POS = {"start": 3.0, "flipper": 2.5, "bumper": 1.5, "target": 1.0, "droptarget": 0.5,
       "scoop": 1.0, "lane": 0.5, "spinner": 0.5}
FLAG_VALUE = {"flipper_pass": 4.0, "multiplier": 3.0}
LOOKAHEAD_K = 6

# the 21 distinct 2d6 outcomes with their probabilities
ROLLS = [((a, b), (1 if a == b else 2) / 36.0) for a in range(1, 7) for b in range(a, 7)]
TILT_P = [sum(w for (a, b), w in ROLLS if abs(a - b) < amt) for amt in range(0, 7)]


def table_path(name: str) -> Path:
    """The data file of a table given by id ("starfleet-academy") or by path."""
    if name in TABLES:
        return DATA_DIR / TABLES[name]
    p = Path(name)
    if p.suffix == ".json" and p.exists():
        return p
    raise ValueError(f"unknown table {name!r} (known: {', '.join(sorted(TABLES))})")


def load_table(name: str = "starfleet-academy") -> dict:
    return json.loads(table_path(name).read_text())


class Evaluator:
    """Static value of a game position for one player (in stars)."""

    def __init__(self, game: SuperSkillGame):
        t = game.table
        self.t = t
        self.round_value = W_BALL + W_FLIP * sum(t.fmap[f].nbox for f in t.flippers) + POS["start"]

    # -- pieces ---------------------------------------------------------------
    def option_value(self, g: SuperSkillGame, p: int, o) -> float:
        ps = g.players[p]
        mbf = g.table.mb_factor if ps.mb else 1
        k = o.kind
        if k == "stars":
            return o.stars * mbf
        if k == "multiball":
            return (W_BALL2 + W_MB) if ps.nballs() < 2 else 0.0
        if k == "fill_next":
            f = g.table.fmap[o.feature]
            row = ps.filled[f.id]
            i = sum(row)
            return float(sum(f.stars[i:i + o.count])) * mbf
        if k == "skill_shot":
            return W_SKILL
        return FLAG_VALUE.get(k, 2.0)

    def menu_value(self, g: SuperSkillGame, p: int, mid: str) -> float:
        opts = g.bonus_options(p, mid)
        return max((self.option_value(g, p, o) for o in opts), default=0.0)

    def set_reward_value(self, g: SuperSkillGame, p: int, s) -> float:
        v = 0.0
        for r in s.reward:
            if r[0] == "menu":
                v += self.menu_value(g, p, r[1])
            elif r[0] == "skill_shot":
                v += W_SKILL if g.skill_choices(p) else 0.0
            elif r[0] == "stars":
                v += r[1]
        return v

    def current_round(self, g: SuperSkillGame, p: int) -> float:
        """Worth of the round in progress: balls, their spots, open flipper boxes."""
        ps = g.players[p]
        t = g.table
        v = 0.0
        live = [b for b in ps.balls if b is not None]
        for n, pos in enumerate(live):
            v += W_BALL if n == 0 else W_BALL2
            v += POS["start"] if pos == START else POS.get(t.fmap[pos].kind, 1.0)
        if live:
            open_flip = 0
            for fid in t.flippers:
                open_flip += t.fmap[fid].nbox - sum(ps.filled[fid])
            v += W_FLIP * open_flip
        return v

    def value(self, g: SuperSkillGame, p: int) -> float:
        ps = g.players[p]
        t = g.table
        if ps.done:
            return float(ps.stars)
        cur = self.current_round(g, p)
        v = ps.stars + cur + self.round_value * (t.rounds - ps.round)
        v += W_SKILL * len(ps.skills) + W_NUDGE * (t.nudge_boxes - ps.nudges)
        if ps.namt:
            v -= TILT_P[ps.namt] * cur
        if ps.mb:
            v += W_MB
        for k in ps.flags:
            v += FLAG_VALUE.get(g.options[k].kind, 2.0)
        for s in t.sets:
            if not s.reward:
                continue
            tot = 0
            got = 0
            for fid in s.features:
                row = ps.filled[fid]
                tot += len(row)
                got += sum(row)
            if got:
                v += W_PROG * (got / tot) * self.set_reward_value(g, p, s)
        for q in ps.queue:   # choices earned but not yet made
            if q[0] == "menu":
                v += self.menu_value(g, p, q[1])
            else:
                v += W_SKILL
        for mid in g.menus:
            for o in g.menus[mid].options:
                if o.once and o.key not in ps.taken:
                    v += P_AGAIN * self.option_value(g, p, o) * 0.5
        return v

    # -- one-step static gain, used by the look-ahead leaf ----------------------
    def box_gain(self, g: SuperSkillGame, p: int, fid: str, i: int) -> float:
        ps = g.players[p]
        t = g.table
        f = t.fmap[fid]
        mult = t.mb_factor if ps.mb else 1
        for k in ps.flags:
            o = g.options[k]
            if o.kind == "multiplier" and o.tag in f.tags:
                mult *= o.factor
        if f.kind == "outlane":
            cnt = sum(sum(ps.filled[x]) for x in f.flippers)
            lost = self.current_round(g, p) if ps.nballs() == 1 else W_BALL2
            return f.per_box * cnt * mult - lost
        gain = f.stars[i] * mult
        if f.kind == "flipper":
            gain += POS["flipper"] - W_FLIP
        elif f.kind == "inlane":
            gain += POS["flipper"]
        else:
            gain += POS.get(f.kind, 1.0)
        for sid in f.sets:
            s = t.smap[sid]
            missing = 0
            for x in s.features:
                missing += len(ps.filled[x]) - sum(ps.filled[x])
            if missing == 1:
                gain += self.set_reward_value(g, p, s)
            elif s.reward:
                tot = sum(len(ps.filled[x]) for x in s.features)
                gain += W_PROG * self.set_reward_value(g, p, s) / tot
        return gain

    def next_roll(self, g: SuperSkillGame, p: int) -> float:
        """Expected best one-ball gain on the next roll over the 2d6 distribution."""
        ps = g.players[p]
        if ps.done:
            return 0.0
        live = [(b, pos) for b, pos in enumerate(ps.balls) if pos is not None]
        if not live:
            return 0.0
        cache: dict = {}
        lost_cost = self.current_round(g, p) if len(live) == 1 else W_BALL2
        total = 0.0
        for (a, b), w in ROLLS:
            for ball, pos in live:
                best = None
                for v in (a, b) if a != b else (a,):
                    key = (pos, v)
                    if key not in cache:
                        gains = [self.box_gain(g, p, fid, i) for fid, i in g.targets(p, pos, v, ball)]
                        cache[key] = max(gains) if gains else None
                    gv = cache[key]
                    if gv is not None and (best is None or gv > best):
                        best = gv
                if best is None:
                    # a Skill Shot can save the ball (at its cost)
                    if ps.skills:
                        saved = [self.box_gain(g, p, fid, i)
                                 for s in ps.skills for fid, i in g.targets(p, pos, s, ball)]
                        if saved:
                            best = max(saved) - W_SKILL
                    if best is None:
                        best = -lost_cost
                total += w * best
        return total


def _candidates(g: SuperSkillGame, acts: list) -> list:
    """Moves worth evaluating: plain ones, Skill Shots, nudges of one, any rescue."""
    if not acts or acts[0][0] != "fill" and acts[0][0] != "drain":
        return acts
    plain = [a for a in acts if a[0] != "fill" or (a[3] == 0 and a[4] == 0)]
    has_plain = any(a[0] == "fill" for a in plain)
    if not has_plain:
        return acts
    extra = [a for a in acts if a[0] == "fill" and (a[3] or a[4]) and abs(a[4]) <= 1]
    return plain + extra


def greedy_policy(game: SuperSkillGame) -> tuple:
    return _choose(game, lookahead=False)


def lookahead_policy(game: SuperSkillGame) -> tuple:
    return _choose(game, lookahead=True)


_EVALS: dict = {}


def _evaluator(game: SuperSkillGame) -> Evaluator:
    ev = _EVALS.get(id(game.table))
    if ev is None or ev.t is not game.table:
        ev = Evaluator(game)
        _EVALS[id(game.table)] = ev
    return ev


def _choose(game: SuperSkillGame, lookahead: bool) -> tuple:
    p = game.to_act
    acts = game.legal_actions()
    if len(acts) == 1:
        return acts[0]
    ev = _evaluator(game)
    scored = []
    for n, a in enumerate(_candidates(game, acts)):
        c = game.clone()
        c.apply(a)
        scored.append((ev.value(c, p), -n, a, c))
    scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
    if not lookahead:
        return scored[0][2]
    best = None
    for val, neg, a, c in scored[:LOOKAHEAD_K]:
        if c.to_act == p:   # more choices this roll (bonus, second ball): judge as is
            total = val
        else:
            total = val + ev.next_roll(c, p)
        if best is None or total > best[0]:
            best = (total, a)
    return best[1]


def random_policy_factory(seed: int) -> Callable:
    rng = Rng(seed)

    def pol(game: SuperSkillGame) -> tuple:
        return rng.choice(game.legal_actions())
    return pol


POLICIES = {"greedy": greedy_policy, "lookahead": lookahead_policy}


def make_policy(name: str, seed: int = 1) -> Callable:
    if name == "random":
        return random_policy_factory(seed)
    if name in POLICIES:
        return POLICIES[name]
    raise ValueError(f"unknown policy {name!r}")


def play_game(cfg: dict, policies: list, seed: int, max_rolls: int = 5000,
              on_effects: Callable | None = None) -> SuperSkillGame:
    """Play one game: policies[i] chooses for player i; rolls from Rng(seed)."""
    g = SuperSkillGame(cfg, len(policies))
    rng = Rng(seed)
    while not g.is_over():
        if g.to_act == CHANCE:
            if g.roll_no >= max_rolls:
                raise RuntimeError("game did not end")
            a = ("roll", 1 + rng.below(6), 1 + rng.below(6))
        else:
            a = policies[g.to_act](g)
        eff = g.apply(a)
        if on_effects:
            on_effects(g, a, eff)
    return g
