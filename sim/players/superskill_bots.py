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

The evaluation reads table data (kinds, sets, menus, star values), so it works
for any table file; the special rules of The Trouble with Tribbles, Lower
Decks and Borg Attack add a few table-specific terms (``TableKnowledge``
subclasses below: the Tribble Track, crew and PROMOTION, ships and the Borg
battle).
"""
from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Callable

from hauntbox_fw.paths import FIRMWARE_DIR, prepend_firmware

_FIRMWARE = FIRMWARE_DIR
prepend_firmware()   # the bots play with the firmware's own rules

from rules.errors import CHANCE  # noqa: E402
from rules.rng import Rng  # noqa: E402
from rules.superskill import START, SuperSkillGame  # noqa: E402
from rules.superskill.hooks import TableHooks  # noqa: E402
from rules.superskill.table import Table  # noqa: E402

DATA_DIR = _FIRMWARE / "data" / "superskill"
TABLES = {"starfleet-academy": "starfleet_academy.json", "tribbles": "tribbles.json",
          "lower-decks": "lower_decks.json", "borg-attack": "borg_attack.json"}

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
    """Static value of a game position for one player (in stars).

    value() runs for every candidate move, so what it reads of the table is
    laid out once here. Every sum is taken term by term in the order of the
    plain formulas (option_value(), set_reward_value(), current_round()), so a
    position is worth exactly the same float as before: the bots' choices,
    ties included, do not depend on how fast they are worked out.
    """

    def __init__(self, game: SuperSkillGame):
        t = game.table
        self.t = t
        self.know = KNOWLEDGE.get(t.id, TableKnowledge)()
        self.round_value = W_BALL + W_FLIP * sum(t.fmap[f].nbox for f in t.flippers) + POS["start"]
        # the sets that give a reward: (set, its features, their box count)
        self.reward_sets = [(s, s.features, sum(t.fmap[f].nbox for f in s.features))
                            for s in t.sets if s.reward]
        self.flips = [(fid, t.fmap[fid].nbox) for fid in t.flippers]
        self.pos_value = {fid: POS.get(t.fmap[fid].kind, 1.0) for fid in t.fmap}
        self.pos_value[START] = POS["start"]
        self._menus = None
        self._once: list = []
        self._fast: dict = {}
        # menu_value by (menu, the player's taken options and flags, Multiball,
        # two balls, the filled count of each row a fill_next option fills):
        # only for menus without a custom option (codes 0-2 below) on a table
        # whose hooks offer the options unchanged, where bonus_options() and
        # the values read nothing else of the position (_plain_menus: menu
        # id -> the fill_next rows, set by _layout)
        self._plain_menus: dict = {}
        self._menu_memo: dict = {}
        self._default_offer = type(game.hooks).bonus_options is TableHooks.bonus_options
        # What the sets' rewards and the once-only options add to value(),
        # by the player key of value() (see _layout): each term as the plain
        # formula works it out, kept in order so that value() adds the same
        # floats in the same order
        self._fill_rows: tuple = ()
        self._rows_of: Callable = self._getter()
        self._plain_sets: list = []
        self._plain_once = False
        self._all_plain = False
        self._terms: dict = {}
        self._extra = type(self.know) is not TableKnowledge

    def _layout(self, g: SuperSkillGame) -> None:
        # Per game (a game's menus never change; clones share them): for every
        # option, how option_value() works it out: (code, a, b)
        #   0: a constant, a without Multiball, b with it
        #   1: Multiball: a while fewer than two balls are in play, else 0.0
        #   2: fill_next, 3: custom (the table knowledge), worked out each time.
        # _once: the once-only options as (key, code, a, b, option), with a
        # and b already the P_AGAIN * value * 0.5 that value() adds.
        if g.menus is self._menus:
            return
        self._menus = g.menus
        mbf = self.t.mb_factor
        fast = {}
        once = []
        for mid in g.menus:
            for o in g.menus[mid].options:
                k = o.kind
                if k == "custom":
                    row = (3, 0.0, 0.0)
                elif k == "stars":
                    row = (0, o.stars * 1, o.stars * mbf)
                elif k == "multiball":
                    row = (1, W_BALL2 + W_MB, 0.0)
                elif k == "fill_next":
                    row = (2, 0.0, 0.0)
                elif k == "skill_shot":
                    row = (0, W_SKILL, W_SKILL)
                else:
                    fv = FLAG_VALUE.get(k, 2.0)
                    row = (0, fv, fv)
                fast[o.key] = row
                if o.once:
                    code, x, y = row
                    once.append((o.key, code, P_AGAIN * x * 0.5, P_AGAIN * y * 0.5, o))
        self._fast = fast
        self._once = once
        self._menu_memo = {}
        self._plain_menus = {}
        if self._default_offer:
            for mid in g.menus:
                opts = g.menus[mid].options
                if all(fast[o.key][0] < 3 for o in opts):
                    self._plain_menus[mid] = tuple(o.feature for o in opts
                                                   if fast[o.key][0] == 2)
        # A set's reward value is a function of the player key when it gives only
        # stars, Skill Shots and menus of _plain_menus; the once-only terms
        # are when none is custom (code 3) and the hooks offer the options
        # unchanged. The key reads every row a fill_next option fills.
        rows = []
        for mid in g.menus:
            for o in g.menus[mid].options:
                if o.kind == "fill_next" and o.feature not in rows:
                    rows.append(o.feature)
        self._fill_rows = tuple(rows)
        self._rows_of = self._getter()
        self._plain_sets = [all(r[0] in ("stars", "skill_shot")
                                or (r[0] == "menu" and r[1] in self._plain_menus)
                                for r in s.reward)
                            for s, _, _ in self.reward_sets]
        self._plain_once = self._default_offer and all(c < 3 for _, c, _, _, _ in once)
        # every set plain: the key reads the sets' rows too, and the sets' terms
        # (W_PROG * share * reward of each set begun) are remembered with it
        self._all_plain = all(self._plain_sets)
        if self._all_plain:
            for _, features, _ in self.reward_sets:
                for fid in features:
                    if fid not in rows:
                        rows.append(fid)
            self._fill_rows = tuple(rows)
            self._rows_of = self._getter()
        self._terms = {}

    def _getter(self) -> Callable:
        # filled -> the rows of _fill_rows, in one call
        rows = self._fill_rows
        if len(rows) > 1:
            return operator.itemgetter(*rows)
        if rows:
            return lambda filled: (filled[rows[0]],)
        return lambda filled: ()

    def _plain_terms(self, g: SuperSkillGame, p: int, key: tuple) -> tuple:
        # (the sets' terms in order if every set is plain, else None; the
        # reward value of each plain set or None; the once-only terms in
        # order, or None)
        t = self._terms.get(key)
        if t is None:
            if len(self._terms) > 50_000:     # a bound on memory
                self._terms.clear()
            menus: dict = {}
            srv = tuple(self.set_reward_value(g, p, s, menus) if plain else None
                        for (s, _, _), plain in zip(self.reward_sets, self._plain_sets))
            sets = None
            if self._all_plain:
                filled = g.players[p].filled
                terms = []
                for (s, features, tot), r in zip(self.reward_sets, srv):
                    got = 0
                    for fid in features:
                        got += sum(filled[fid])
                    if got:
                        terms.append(W_PROG * (got / tot) * r)
                sets = tuple(terms)
            once = None
            if self._plain_once:
                once = tuple(self._once_terms(g, p))
            t = self._terms[key] = (sets, srv, once)
        return t

    def _once_terms(self, g: SuperSkillGame, p: int) -> list:
        # P_AGAIN * option_value * 0.5 of each once-only option not taken yet
        ps = g.players[p]
        taken = ps.taken
        mb = ps.mb
        few = None
        out = []
        for key, code, x, y, o in self._once:
            if key in taken:
                continue
            if code == 0:
                out.append(y if mb else x)
            elif code == 1:
                if few is None:
                    few = ps.nballs() < 2
                if few:
                    out.append(x)          # (else the term is 0.0)
            else:
                out.append(P_AGAIN * self.option_value(g, p, o) * 0.5)
        return out

    # -- pieces ---------------------------------------------------------------
    def option_value(self, g: SuperSkillGame, p: int, o) -> float:
        ps = g.players[p]
        mbf = g.table.mb_factor if ps.mb else 1
        k = o.kind
        if k == "custom":
            return self.know.option_value(g, p, o)
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
        # max(option_value) over the options on offer (the first of equal ones)
        self._layout(g)
        ps = g.players[p]
        rows = self._plain_menus.get(mid)
        if rows is not None:
            key = (mid, tuple(ps.taken), tuple(ps.flags), ps.mb, ps.nballs() < 2)
            if rows:
                filled = ps.filled
                key += tuple(sum(filled[fid]) for fid in rows)
            v = self._menu_memo.get(key)
            if v is None:
                if len(self._menu_memo) > 50_000:     # a bound on memory
                    self._menu_memo.clear()
                v = self._menu_memo[key] = self._menu_value(g, p, mid)
            return v
        return self._menu_value(g, p, mid)

    def _menu_value(self, g: SuperSkillGame, p: int, mid: str) -> float:
        fast = self._fast
        ps = g.players[p]
        best = None
        for o in g.bonus_options(p, mid):
            row = fast.get(o.key)
            if row is None or row[0] >= 2:
                x = self.option_value(g, p, o)
            elif row[0] == 0:
                x = row[2] if ps.mb else row[1]
            else:
                x = row[1] if ps.nballs() < 2 else 0.0
            if best is None or x > best:
                best = x
        return 0.0 if best is None else best

    def set_reward_value(self, g: SuperSkillGame, p: int, s, menus: dict | None = None) -> float:
        # menus: menu_value by menu id, kept by the caller while the position
        # stays the same
        v = 0.0
        for r in s.reward:
            if r[0] == "menu":
                if menus is None:
                    v += self.menu_value(g, p, r[1])
                else:
                    mv = menus.get(r[1])
                    if mv is None:
                        mv = menus[r[1]] = self.menu_value(g, p, r[1])
                    v += mv
            elif r[0] == "skill_shot":
                v += W_SKILL if g.skill_choices(p) else 0.0
            elif r[0] == "stars":
                v += r[1]
            elif r[0] == "custom":
                v += self.know.reward_value(g, p, r)
        return v

    def current_round(self, g: SuperSkillGame, p: int) -> float:
        """Worth of the round in progress: balls, their spots, open flipper boxes."""
        ps = g.players[p]
        v = 0.0
        n = 0
        for pos in ps.balls:
            if pos is None:
                continue
            v += W_BALL if n == 0 else W_BALL2
            v += self.pos_value[pos]
            n += 1
        if n:
            open_flip = 0
            filled = ps.filled
            for fid, nbox in self.flips:
                open_flip += nbox - sum(filled[fid])
            v += W_FLIP * open_flip
        return v

    def value(self, g: SuperSkillGame, p: int) -> float:
        ps = g.players[p]
        if ps.done:
            return float(ps.stars)
        t = g.table
        if g.menus is not self._menus:
            self._layout(g)
        filled = ps.filled
        # the round in progress, as current_round() (its loop over the two
        # ball slots written out: the same sums in the same order)
        cur = 0.0
        b0, b1 = ps.balls
        if b0 is not None or b1 is not None:
            pv = self.pos_value
            if b0 is not None:
                cur += W_BALL
                cur += pv[b0]
                if b1 is not None:
                    cur += W_BALL2
                    cur += pv[b1]
            else:
                cur += W_BALL
                cur += pv[b1]
            open_flip = 0
            for fid, nbox in self.flips:
                open_flip += nbox - sum(filled[fid])
            cur += W_FLIP * open_flip
        v = ps.stars + cur + self.round_value * (t.rounds - ps.round)
        v += W_SKILL * len(ps.skills) + W_NUDGE * (t.nudge_boxes - ps.nudges)
        if ps.namt:
            v -= TILT_P[ps.namt] * cur
        if ps.mb:
            v += W_MB
        for k in ps.flags:
            v += FLAG_VALUE.get(g.options[k].kind, 2.0)
        # The player key: everything of a player that menu_value(),
        # set_reward_value() of a plain set and the once-only terms read, and
        # the sets' rows if every set is plain (None ends the taken options,
        # then the flags; fewer than two balls: a slot of the two is empty)
        key = (*ps.taken, None, *ps.flags, None, *ps.skills, ps.mb, b0 is None or b1 is None,
               *map(sum, self._rows_of(filled)))
        terms = self._terms.get(key)
        sets, srv, once = terms if terms is not None else self._plain_terms(g, p, key)
        menus: dict | None = None
        if sets is not None:
            for x in sets:
                v += x
        else:
            for (s, features, tot), r in zip(self.reward_sets, srv):
                got = 0
                for fid in features:
                    got += sum(filled[fid])
                if got:
                    if r is None:
                        if menus is None:
                            menus = {}
                        r = self.set_reward_value(g, p, s, menus)
                    v += W_PROG * (got / tot) * r
        if ps.queue:        # choices earned but not yet made
            if menus is None:
                menus = {}
            for q in ps.queue:
                if q[0] == "menu":
                    mv = menus.get(q[1])
                    if mv is None:
                        mv = menus[q[1]] = self.menu_value(g, p, q[1])
                    v += mv
                else:
                    v += W_SKILL
        if once is None:
            once = self._once_terms(g, p)
        for x in once:
            v += x
        if self._extra:
            v += self.know.extra_value(g, p, cur)
        return v

    # -- one-step static gain, used by the look-ahead leaf ----------------------
    def box_gain(self, g: SuperSkillGame, p: int, fid: str, i: int, memo: dict | None = None) -> float:
        # memo: what box_gain works out per position, kept by next_roll while
        # the position stays the same: each set's term by set id, the menus'
        # values under None, the round at stake under 0
        if memo is None:
            memo = {}
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
            lost = memo.get(0)      # (set ids are strings: no clash)
            if lost is None:
                lost = memo[0] = self.current_round(g, p) if ps.nballs() == 1 else W_BALL2
            return f.per_box * cnt * mult - lost
        gain = f.stars[i] * mult
        if f.kind == "flipper":
            gain += POS["flipper"] - W_FLIP
        elif f.kind == "inlane":
            gain += POS["flipper"]
        else:
            gain += POS.get(f.kind, 1.0)
        for sid in f.sets:
            term = memo.get(sid)
            if term is None:
                term = memo[sid] = self._set_term(g, p, t.smap[sid], memo)
            if term:
                gain += term
        return gain

    def _set_term(self, g: SuperSkillGame, p: int, s, memo: dict) -> float:
        # what one more box of set s is worth now: its reward if it is the
        # last one, else a share of it (0 for a set without a reward)
        ps = g.players[p]
        menus = memo.get(None)
        if menus is None:
            menus = memo[None] = {}
        missing = 0
        for x in s.features:
            missing += len(ps.filled[x]) - sum(ps.filled[x])
        if missing == 1:
            return self.set_reward_value(g, p, s, menus)
        if s.reward:
            tot = sum(len(ps.filled[x]) for x in s.features)
            return W_PROG * self.set_reward_value(g, p, s, menus) / tot
        return 0

    def next_roll(self, g: SuperSkillGame, p: int) -> float:
        """Expected best one-ball gain on the next roll over the 2d6 distribution."""
        ps = g.players[p]
        if ps.done or self.know.own_moves(g, p):
            return 0.0
        live = [(b, pos) for b, pos in enumerate(ps.balls) if pos is not None]
        if not live:
            return 0.0
        gains: dict = {}     # box_gain by box
        memo: dict = {}

        def best_of(boxes):
            gv = None
            for bk in boxes:
                x = gains.get(bk)
                if x is None:
                    x = gains[bk] = self.box_gain(g, p, bk[0], bk[1], memo)
                if gv is None or x > gv:
                    gv = x
            return gv

        def best_gain(ball, pos, bx, v):
            return best_of(g.targets(p, pos, v, ball, bx))

        # every die value comes up on some roll: the best gain per value, by
        # ball position (worked out for the first ball there, as the rolls
        # ask in order), and what a Skill Shot saving the ball brings
        by_pos: dict = {}
        rows = []
        for ball, pos in live:
            if pos not in by_pos:
                bx = g.open_boxes(p, pos)
                gv = [None] * 7
                tv = g.targets_by_value(p, pos, ball, bx)
                for v in range(1, 7):
                    gv[v] = best_gain(ball, pos, bx, v) if tv is None else best_of(tv.get(v, ()))
                by_pos[pos] = (bx, gv)
            bx, gv = by_pos[pos]
            rows.append((ball, pos, bx, gv, [False, None]))
        lost_cost = self.current_round(g, p) if len(live) == 1 else W_BALL2
        total = 0.0
        for (a, b), w in ROLLS:
            for ball, pos, bx, gv, save in rows:
                best = gv[a]
                if a != b:
                    x = gv[b]
                    if x is not None and (best is None or x > best):
                        best = x
                if best is None:
                    # a Skill Shot can save the ball (at its cost)
                    if ps.skills:
                        if not save[0]:
                            saved = None
                            for s in ps.skills:
                                x = best_gain(ball, pos, bx, s)
                                if x is not None and (saved is None or x > saved):
                                    saved = x
                            save[0] = True
                            save[1] = saved
                        if save[1] is not None:
                            best = save[1] - W_SKILL
                    if best is None:
                        best = -lost_cost
                total += w * best
        return total


# ---- table knowledge: what the special rules add to the evaluation ----------------------

class TableKnowledge:
    """Table-specific evaluation terms (default: none)."""

    def extra_value(self, g: SuperSkillGame, p: int, cur: float) -> float:
        return 0.0

    def reward_value(self, g: SuperSkillGame, p: int, r: tuple) -> float:
        return 0.0

    def option_value(self, g: SuperSkillGame, p: int, o) -> float:
        return 2.0

    def own_moves(self, g: SuperSkillGame, p: int) -> bool:
        """True while the table replaces the ball moves (no 2d6 look-ahead then)."""
        return False


class TribblesKnowledge(TableKnowledge):
    W_TRACK = 0.3      # share of the Tribble Track's current star value counted now
    W_HAND = 1.5       # a hand space ahead: a flipper box will be lost
    X_RISK = 14        # within this many spaces of the X the round is at risk

    def track(self, g, n):
        from rules.superskill import tribbles as tr
        return tr.track_value(g, n)

    def extra_value(self, g, p, cur):
        ps = g.players[p]
        x = ps.x
        tr = g.table.data["tribbles"]["track"]
        dist = len(tr) - x["n"]
        v = 0.0
        if not x["scored"]:
            v += self.W_TRACK * self.track(g, x["n"]) * (2 if x["nbonus"] else 1)
        v -= self.W_HAND * tr[x["n"]:x["n"] + 4].count("h") * 0.5
        if dist < self.X_RISK:
            v -= cur * (self.X_RISK - dist) / self.X_RISK * 0.6
        v += 3.0 * (x["nspin"] + x["nscoop"])
        return v

    def option_value(self, g, p, o):
        x = g.players[p].x
        if o.id == "score_tribbles":
            mb = g.table.mb_factor if g.players[p].mb else 1
            return self.track(g, x["n"]) * (2 if x["nbonus"] else 1) * mb
        if o.id == "bonus_x2":
            return 0.5 * self.track(g, x["n"]) + 1.0
        return 3.0

    def reward_value(self, g, p, r):
        return 1.0 if r[1] == "transport" else 0.0


class LowerDecksKnowledge(TableKnowledge):
    def extra_value(self, g, p, cur):
        ps = g.players[p]
        x = ps.x
        v = 0.0
        v += 4.0 if x["tendi"] == 1 else 0.0
        v += 5.0 if x["boimler"] == 1 else 0.0
        if x["mariner"]:
            v += 2.5 * (g.table.data["lower_decks"]["mariner_boxes"] - x["mboxes"])
        v += 5.0 if x["rep"] else 0.0
        # PROMOTION doubles the score: value the indicators already lit
        v += 0.3 * ps.stars * sum(x["ind"]) / 3.0
        return v

    def reward_value(self, g, p, r):
        ps = g.players[p]
        x = ps.x
        if r[1] == "promo":
            lit = sum(x["ind"])
            return 3.0 + (ps.stars if lit == 2 else 0.1 * ps.stars)
        if r[1] == "replicator":
            return 8.0
        if r[1] == "holodeck":
            return 3.0 if not x["holo"] else 0.0
        return 0.0

    def option_value(self, g, p, o):
        if o.id == "fill_promo":
            return 2.0 + 0.1 * g.players[p].stars
        return 3.0


class BorgKnowledge(TableKnowledge):
    W_SHIP = 8.0       # a recruited ship (battle round), on average
    # worth of a fleet of 0..6 ships for the battle (a small sweep: higher than
    # the battle stars alone, since the payoff comes two rounds later)
    FLEET = (0.0, 12.0, 24.0, 36.0, 48.0, 60.0, 75.0)
    W_BEACON = 0.2     # extra share of the next ship credited per BEACON target filled
    W_GATE = 0.2       # share of the next ship per open BEACON target a bumper leads to
    BEACON = ("be", "ac", "on")
    GATE = {"bumper_star": ("be", "ac"), "bumper_civ": ("ac", "on")}
    W_TORP = 2.0
    W_MOD = 2.5
    W_CIV = 1.2        # a civilian on the track (2 stars when rescued)

    def own_moves(self, g, p):
        return bool(g.players[p].x["battle"])

    def extra_value(self, g, p, cur):
        ps = g.players[p]
        x = ps.x
        if not x["battle"]:
            n = sum(x["ships"])
            v = self.FLEET[n] + self.W_MOD * x["mods"] + self.W_CIV * x["civ"]
            if n < 6:
                # BEACON progress brings the next ship; a bumper is the way to it
                nxt = self.FLEET[n + 1] - self.FLEET[n]
                for fid in self.BEACON:
                    v += self.W_BEACON * nxt * ps.filled[fid][0]
                for b in ps.balls:
                    if b in self.GATE:
                        open_t = [f for f in self.GATE[b] if not ps.filled[f][0]]
                        v += self.W_GATE * nxt * len(open_t)
            for k in range(len(x["ships"])):
                if x["torp"][k]:
                    v += self.W_TORP if x["ships"][k] else self.W_TORP * 0.4
            return v
        if ps.done:
            return 0.0
        alive = [k + 1 for k in range(len(x["ships"])) if x["ships"][k] and not x["dead"][k]]
        v = 5.0 * len(alive) + self.W_MOD * x["mods"]
        for k in alive:
            v += 2.0 * (1 - x["shield"][k - 1]) + 2.5 * x["torp"][k - 1]
        v -= 1.2 * sum(x["adapt"])
        if x["pos"] == 0:
            # the ball on the cube must find a ship with the next roll
            miss = sum(w for (a, b), w in ROLLS if a not in alive and b not in alive)
            if ps.skills and any(s in alive for s in ps.skills):
                miss *= 0.2
            v -= miss * (v + 10.0)
        return v

    def reward_value(self, g, p, r):
        x = g.players[p].x
        if r[1] == "recruit":
            n = sum(x["ships"])
            return self.FLEET[n + 1] - self.FLEET[n] if n < 6 else 0.0
        if r[1] == "rescue":
            return 2.0 * x["civ"]
        if r[1] == "torpedo":
            return self.W_TORP
        return 0.0

    def option_value(self, g, p, o):
        if o.id == "modulations2":
            return 2 * self.W_MOD
        if o.id == "torpedoes2":
            return 2 * self.W_TORP
        if o.id == "fill_beacon":
            return self.W_SHIP * 0.5
        return 2.0


KNOWLEDGE = {"tribbles": TribblesKnowledge, "lower-decks": LowerDecksKnowledge,
             "borg-attack": BorgKnowledge}


MOVES = ("fill", "through", "borg")
MOVES_DRAIN_WILD = MOVES + ("drain", "wild")


def _is_plain(a: tuple) -> bool:
    if a[0] in ("fill", "through"):
        return a[3] == 0 and a[4] == 0
    if a[0] == "borg":
        return a[2] == 0 and a[3] == 0
    return a[0] != "wild"


def _completes_set(g: SuperSkillGame, a: tuple) -> bool:
    """A wild move (Lower Decks: Mariner) filling the last empty box of a set."""
    ps = g.players[g.to_act]
    f = g.table.fmap[a[5]]
    for sid in f.sets:
        missing = 0
        for x in g.table.smap[sid].features:
            missing += len(ps.filled[x]) - sum(ps.filled[x])
        if missing == 1:
            return True
    return False


def _candidates(g: SuperSkillGame, acts: list) -> list:
    """Moves worth evaluating: plain ones, Skill Shots, nudges of one, set-completing
    wild moves, and any rescue when nothing plain is left."""
    if not acts or acts[0][0] not in MOVES_DRAIN_WILD:
        return acts
    plain = []
    extra = []
    move = False        # a plain move of a ball among them
    for a in acts:
        k = a[0]
        if k == "fill" or k == "through":
            if not a[3] and not a[4]:
                plain.append(a)
                move = True
            elif -1 <= a[4] <= 1:
                extra.append(a)
        elif k == "wild":
            if _completes_set(g, a):
                extra.append(a)
        elif k == "borg":
            if not a[2] and not a[3]:
                plain.append(a)
                move = True
            elif -1 <= a[3] <= 1:
                extra.append(a)
        else:
            plain.append(a)
    if not move:
        return acts
    return plain + extra


NUDGEABLE = ("fill", "through")


def _nudge_key(a: tuple) -> tuple:
    # ("fill", ball, die, skill, nudge, feature, box) and ("through", ball,
    # die, skill, nudge, spinner, spinner box, feature, box): all but the nudge
    return a[:4] + a[5:]


def _greedy_tries(cands: list) -> list:
    """The candidates greedy tries: all but those one before it in `cands` is
    worth at least as much as (and the first of equal values is chosen):

    - a nudge filling a box that a plain move of the same ball and Skill Shot
      fills: its position is that move's plus a used Nudge box and a tilt
      risk. For a "through" the die must be the same too (the other die fills
      the spinner); for a "fill" the die only decides which die is marked
      used, which no evaluation reads;
    - a "fill" of the same box by the same ball, Skill Shot and nudge size as
      an earlier one with the other die: the same position but for which die
      is marked used.

    No table's hooks read the value a box is filled with (on_box_filled of all
    four tables checked), so that does not count either. Checked against
    trying every candidate in tests/sim/core/test_fast_paths.py."""
    tries = []
    seen = set()
    for a in cands:
        k = a[0]
        if k == "fill":
            n = a[4] if a[4] >= 0 else -a[4]
            key = (a[1], a[3], a[5], a[6], n)
            if key in seen or (n and (a[1], a[3], a[5], a[6], 0) in seen):
                continue
            seen.add(key)
        elif k == "through":
            key = _nudge_key(a)
            if a[4]:
                if key in seen:
                    continue
            else:
                seen.add(key)
        tries.append(a)
    return tries


def _bot_actions(game: SuperSkillGame) -> list:
    """The legal actions as far as _candidates() reads them: nudges of more
    than one are never candidates while a plain move exists, so they are not
    listed then (nor played out on a copy to see if they lose the ball)."""
    acts = game.legal_actions(1)
    if acts and acts[0][0] in MOVES_DRAIN_WILD:
        for a in acts:
            if a[0] in MOVES and _is_plain(a):
                return acts
        return game.legal_actions()     # nothing plain: every move is a candidate
    return acts


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
    acts = _bot_actions(game)
    if len(acts) == 1:
        return acts[0]
    ev = _evaluator(game)
    if not lookahead:
        # the best value; of equal ones the first candidate (as the sort below)
        best = None
        value = ev.value
        c = None
        for a in _greedy_tries(_candidates(game, acts)):
            c = game.clone(p, c)        # (the last copy is made again)
            c.apply_legal(a, False)     # (only p's position is valued)
            # (_settled_value, without its call when nothing is queued)
            v = _settled_value(ev, c, p, 2) if c.players[p].queue else value(c, p)
            if best is None or v > best[0]:
                best = (v, a)
        return best[1]
    scored = []
    for n, a in enumerate(_candidates(game, acts)):
        c = game.clone(p)
        c.apply_legal(a)
        scored.append((_settled_value(ev, c, p, 2), -n, a, c))
    scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
    best = None
    for val, neg, a, c in scored[:LOOKAHEAD_K]:
        if c.to_act == p:   # more choices this roll (bonus, second ball): judge as is
            total = val
        else:
            total = val + ev.next_roll(c, p)
        if best is None or total > best[0]:
            best = (total, a)
    return best[1]


def _settled_value(ev: Evaluator, g: SuperSkillGame, p: int, depth: int) -> float:
    """Value of a position; a table question the same player must answer next
    (phase "choice": which ship, fill or erase tribbles, ...) is answered as well
    as possible first, so what it brings is counted."""
    q = g.players[p].queue
    if depth > 0 and q and g.cur == p and not g.is_over():
        if q[0][0] == "ask":          # phase "choice"
            best = None
            for a in g.legal_actions():
                c = g.clone(p)
                c.apply_legal(a, False)
                v = _settled_value(ev, c, p, depth - 1)
                if best is None or v > best:
                    best = v
            if best is not None:
                return best
    return ev.value(g, p)


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


_TABLES: dict = {}


def _table(cfg: dict) -> Table:
    """The table of a data dict, built once per dict (as the board builds it
    once per boot): a stats run plays thousands of games on one table, and
    building it is about 40 times the cost of starting a game on it."""
    t = _TABLES.get(id(cfg))
    if t is None or t.data is not cfg:
        t = _TABLES[id(cfg)] = Table(cfg)
    return t


def play_game(cfg: dict, policies: list, seed: int, max_rolls: int = 5000,
              on_effects: Callable | None = None) -> SuperSkillGame:
    """Play one game: policies[i] chooses for player i; rolls from Rng(seed)."""
    g = SuperSkillGame(_table(cfg), len(policies))
    rng = Rng(seed)
    while not g.is_over():
        who = g.cur         # (to_act while the game is not over)
        if who == CHANCE:
            if g.roll_no >= max_rolls:
                raise RuntimeError("game did not end")
            a = ("roll", 1 + rng.below(6), 1 + rng.below(6))
        else:
            a = policies[who](g)
        eff = g.apply(a)
        if on_effects:
            on_effects(g, a, eff)
    return g
