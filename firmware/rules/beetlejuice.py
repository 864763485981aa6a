# Watch Out Beetlejuice: a pure rule engine (no I/O, no clock, no randomness).
# Rulebook: watch-out-beetlejuice.txt. Every choice the rulebook leaves open
# is listed in docs/assumptions/beetlejuice.md; card data is in
# data/beetlejuice.json and is passed in as a dict. Card indexing and the scare
# check live in beetlejuice_cards.py, saved-state validation in beetlejuice_state.py.
#
# Phases and who acts:
#   "deal"    CHANCE  ("draw_house", card)        fill the leftmost empty Resident slot
#   "draw_bj" CHANCE  ("draw_bj", card)           Beetlejuice card at the start of a turn
#   "prep"    player  ("begin",) | ("handbook", ...)   only when holding a Handbook
#   "roll"    CHANCE  ("roll", (face, ...))       faces of the dice being rolled, in
#                                                 index order; or one die at a time
#                                                 with ("die", face) (the listed form)
#   "decide"  player  ("stop",) | ("reroll", (i, ...)) | ("handbook", ...)
#   "collect" player  ("collect", (slot, ...))    any feasible set of scared cards
#   "pass"    player  ("pass", card, to)          hand on a 2-skull card
#   "over"    nobody
# Handbook actions: ("handbook", "ignore", card) ("handbook", "rolls4")
#   ("handbook", "summon") ("handbook", "banish") ("handbook", "take", slot)
#   ("handbook", "reroll_bj")
# Effects (tuples):
#   ("dealt", slot, card) ("turn", p, n) ("bj_reshuffle", k) ("bj_card", p, card, skulls)
#   ("bj_discard", card) ("replace_residents", (cards)) ("rolled", (idx), (faces))
#   ("handbook", p, effect, arg) ("took", p, card) ("collected", p, (cards))
#   ("bj_trigger", p, count) ("summoned",) ("bj_scares", card) ("banished", (cards))
#   ("passed", p, card, to) ("game_over", "players"|"bj", (winners))
#   ("versus_bj", p, points, bj_points)

from rules.errors import RuleError, CHANCE
from rules.beetlejuice_cards import BJ, Config, is_int as _is_int, sets_feasible  # noqa: F401
from rules.beetlejuice_state import STATE_VERSION, load

BEETLEJUICE = -2        # `winner` when Beetlejuice wins (everyone loses)


def _tup(x):
    if isinstance(x, list):
        return tuple(x)
    return x


def _normalise(action):
    # JSON turns tuples into lists; the engine compares tuples.
    if not isinstance(action, (tuple, list)) or not action:
        raise RuleError("an action is a non-empty tuple")
    out = [_tup(x) for x in action]
    if not isinstance(out[0], str):
        raise RuleError("action name must be a string")
    return tuple(out)


class BeetlejuiceGame:
    # players: a count or a list of names. rng: an optional rules.rng.Rng; when
    # given, the three opening Residents are dealt with it straight away,
    # otherwise the game starts in phase "deal" awaiting chance draws.
    # options: {"expert": bool (eight Residents), "compare_bj": bool}.
    def __init__(self, config, players=2, rng=None, options=None):
        self.cfg = config if isinstance(config, Config) else Config(config)
        cfg = self.cfg
        if _is_int(players):
            names = ["P%d" % (i + 1) for i in range(players)]
        elif isinstance(players, (list, tuple)):
            names = [str(p) for p in players]
        else:
            raise RuleError("players must be a count or a list of names")
        if not cfg.min_players <= len(names) <= cfg.max_players:
            raise RuleError("players must be %d..%d" % (cfg.min_players, cfg.max_players))
        opts = options or {}
        self.names = names
        self.n = len(names)
        self.expert = bool(opts.get("expert", False))
        self.compare = bool(opts.get("compare_bj", False))
        self.house = list(cfg.house_ids)      # unknown part of the House pile
        self.under = []                       # known cards put underneath, in order
        self.slots = [None] * cfg.slots
        self.bj_deck = list(cfg.bj_ids)       # the grave (face-down deck)
        self.bj_disc = []                     # the box bottom
        self.bj_up = False                    # Beetlejuice in play
        self.three = None                     # active 3-skull card
        self.one = None                       # 1-skull card of the current turn
        self.held = [[] for _ in names]       # 2-skull cards per player
        self.won = [[] for _ in names]        # scared Residents per player
        self.books = [[] for _ in names]      # Handbooks held per player
        self.bj_pile = []                     # Residents Beetlejuice scared
        self.spent = []                       # used Handbooks (out of the game)
        self.cur = 0
        self.turn = 0
        self.phase = "deal"
        self.after = "start"
        self._reset_turn()
        self.result = None
        self.winners = []
        if rng is not None:
            while self.phase == "deal":
                self.apply(auto_chance(self, rng))

    def _reset_turn(self):
        self.ignored = None
        self.hb_used = False
        self.rolls4 = False
        self.bjre = False
        self.dice = []
        self.rolling = []
        self.pending = []
        self.rolls = 0

    # ---- derived state ------------------------------------------------------

    @property
    def to_act(self):
        p = self.phase
        if p == "over":
            return None
        if p == "deal" or p == "draw_bj" or p == "roll":
            return CHANCE
        return self.cur

    def is_over(self):
        return self.phase == "over"

    @property
    def winner(self):
        # a player index, BEETLEJUICE, or None (game running or a shared win)
        if self.result == "bj":
            return BEETLEJUICE
        if self.result == "players" and len(self.winners) == 1:
            return self.winners[0]
        return None

    def target(self):
        return self.cfg.expert_target if self.expert else self.cfg.target

    def points(self, p):
        return sum([self.cfg.points(c) for c in self.won[p]])

    def bj_points(self):
        return sum([self.cfg.points(c) for c in self.bj_pile])

    def versus_beetlejuice(self):
        # optional end-of-game comparison: (points, bj_points, outscored) per player
        b = self.bj_points()
        return [(self.points(p), b, self.points(p) > b) for p in range(self.n)]

    def affecting(self):
        # Beetlejuice cards acting on the current player this turn
        out = []
        if self.three is not None:
            out.append(self.three)
        out.extend(self.held[self.cur])
        if self.one is not None:
            out.append(self.one)
        return out

    def active_cards(self):
        return [c for c in self.affecting() if c != self.ignored]

    def _count(self, effect):
        k = 0
        for c in self.active_cards():
            card = self.cfg.card[c]
            if card["effect"] == effect:
                k += card.get("n", 1)
        return k

    def n_dice(self):
        cfg = self.cfg
        return max(min(cfg.min_dice, cfg.dice), cfg.dice - self._count("remove_dice"))

    def rolls_max(self):
        base = self.cfg.handbook_rolls if self.rolls4 else self.cfg.rolls
        return max(self.cfg.min_rolls, base - self._count("fewer_rolls"))

    def rolls_left(self):
        return max(0, self.rolls_max() - self.rolls)

    def forbidden(self):
        out = []
        for c in self.active_cards():
            card = self.cfg.card[c]
            if card["effect"] == "forbid":
                for s in card["symbols"]:
                    if s not in out:
                        out.append(s)
        return out

    def threshold(self):
        cfg = self.cfg
        if not self.bj_up:
            return cfg.summon_at
        if self._count("banish4"):
            return cfg.banish_at_x4
        return cfg.banish_at

    def feasible_sets(self, faces=None):
        # every set of face-up slots the dice can scare together (incl. the empty set)
        if faces is None:
            faces = self.dice
        occ = [i for i in range(len(self.slots)) if self.slots[i] is not None]
        forb = self.forbidden()
        out = []
        for mask in range(1 << len(occ)):
            sel = tuple([occ[i] for i in range(len(occ)) if mask >> i & 1])
            if sets_feasible(self.cfg, [self.slots[i] for i in sel], faces, forb):
                out.append(sel)
        return out

    # ---- legal actions ------------------------------------------------------

    def legal_actions(self):
        p = self.phase
        if p == "deal":
            return [("draw_house", c) for c in self._house_candidates()]
        if p == "draw_bj":
            return [("draw_bj", c) for c in self.bj_deck]
        if p == "roll":
            return [("die", s) for s in self.cfg.symbols]
        if p == "prep":
            return [("begin",)] + self._handbook_actions()
        if p == "decide":
            return self._decide_actions()
        if p == "collect":
            return [("collect", s) for s in self.feasible_sets()]
        if p == "pass":
            return self._pass_actions()
        return []

    def _house_candidates(self):
        if self.house:
            return list(self.house)
        if self.under:
            return [self.under[0]]
        return []

    def _pass_actions(self):
        return [("pass", c, t) for c in self.held[self.cur]
                for t in range(self.n) if t != self.cur]

    def _handbook_actions(self):
        if not self.books[self.cur] or self.hb_used:
            return []
        out = []
        take = [("handbook", "take", i) for i in range(len(self.slots))
                if self.slots[i] is not None and self.cfg.is_resident(self.slots[i])]
        if self.phase == "prep":
            for c in self.affecting():
                out.append(("handbook", "ignore", c))
            out.append(("handbook", "rolls4"))
            out.append(("handbook", "banish" if self.bj_up else "summon"))
            out.extend(take)
        elif self.phase == "decide":
            if not self.rolls4:
                out.append(("handbook", "rolls4"))
            out.extend(take)
            if self.rolls_left() and BJ in self.dice and len(self.dice) - self.dice.count(BJ) >= 1:
                out.append(("handbook", "reroll_bj"))
        return out

    def _decide_actions(self):
        out = [("stop",)]
        if self._can_reroll():
            out.extend([("reroll", r) for r in self._reroll_sets()])
        out.extend(self._handbook_actions())
        return out

    def _reroll_sets(self):
        # one canonical index set per distinct multiset of faces rerolled
        groups = {}
        order = []
        bj_first = None
        for i in range(len(self.dice)):
            f = self.dice[i]
            if f == BJ:
                if bj_first is None:
                    bj_first = i
                continue
            if f not in groups:
                groups[f] = []
                order.append(f)
            groups[f].append(i)
        choices = [[]]
        for f in order:
            idx = groups[f]
            nxt = []
            for base in choices:
                for k in range(len(idx) + 1):
                    nxt.append(base + idx[:k])
            choices = nxt
        if self.bjre and bj_first is not None:
            choices = choices + [c + [bj_first] for c in choices]
        out = []
        for c in choices:
            if len(c) >= 2:
                out.append(tuple(sorted(c)))
        return out

    def _check_reroll(self, idx):
        if not self.rolls_left():
            raise RuleError("no rolls left this turn")
        if not isinstance(idx, tuple):
            raise RuleError("reroll takes a tuple of dice indices")
        seen = []
        bj = 0
        for i in idx:
            if not _is_int(i) or not 0 <= i < len(self.dice) or i in seen:
                raise RuleError("bad die index %r" % (i,))
            seen.append(i)
            if self.dice[i] == BJ:
                bj += 1
        if len(seen) < 2:
            raise RuleError("a reroll must include at least two dice")
        if bj > (1 if self.bjre else 0):
            raise RuleError("a Beetlejuice symbol may not be rerolled")
        return tuple(sorted(seen))

    # ---- apply --------------------------------------------------------------

    def apply(self, action):
        a = _normalise(action)
        name = a[0]
        p = self.phase
        if p == "over":
            raise RuleError("the game is over")
        if name == "reroll" and p == "decide" and len(a) == 2:
            idx = self._check_reroll(a[1])
            fx = []
            self._do_reroll(idx, fx)
            return fx
        if name == "roll" and p == "roll" and len(a) == 2:
            faces = a[1]
            if (self.pending or not isinstance(faces, tuple)
                    or len(faces) != len(self.rolling)):
                raise RuleError("roll needs %d faces" % len(self.rolling))
            for f in faces:
                if f not in self.cfg.symbols:
                    raise RuleError("unknown face %r" % (f,))
            fx = []
            self.pending = list(faces)
            self._finish_roll(fx)
            return fx
        if name == "collect" and p == "collect" and len(a) == 2 and isinstance(a[1], tuple):
            sel = a[1]
            for i in sel:
                if not _is_int(i):
                    raise RuleError("bad collect")
            a = ("collect", tuple(sorted(sel)))
        if a not in self.legal_actions():
            raise RuleError("illegal action %r in phase %s" % (a, p))
        fx = []
        if name == "draw_house":
            self._do_draw_house(a[1], fx)
        elif name == "draw_bj":
            self._do_draw_bj(a[1], fx)
        elif name == "die":
            self.pending.append(a[1])
            if len(self.pending) == len(self.rolling):
                self._finish_roll(fx)
        elif name == "begin":
            self._begin(fx)
        elif name == "handbook":
            self._do_handbook(a, fx)
        elif name == "stop":
            self._to_collect(fx)
        elif name == "collect":
            self._do_collect(a[1], fx)
        elif name == "pass":
            self._do_pass(a[1], a[2], fx)
        return fx

    # ---- flow ---------------------------------------------------------------

    def _deal_then(self, after, fx):
        self.after = after
        self._continue_deal(fx)

    def _continue_deal(self, fx):
        if None in self.slots and self._house_candidates():
            self.phase = "deal"
            return
        after = self.after
        self.after = ""
        if after == "start":
            self._start_turn(fx)
        elif after == "begin":
            self._begin(fx)
        elif after == "roll":
            self._start_rolling(fx)
        elif after == "decide":
            self._to_decide(fx)

    def _do_draw_house(self, card, fx):
        slot = self.slots.index(None)
        if card in self.house:
            self.house.remove(card)
        else:
            self.under.remove(card)
        self.slots[slot] = card
        fx.append(("dealt", slot, card))
        self._continue_deal(fx)

    def _start_turn(self, fx):
        self.turn += 1
        self._reset_turn()
        fx.append(("turn", self.cur, self.turn))
        if self.bj_up:
            if not self.bj_deck and self.bj_disc:
                self.bj_deck = sorted(self.bj_disc)
                self.bj_disc = []
                fx.append(("bj_reshuffle", len(self.bj_deck)))
            if self.bj_deck:
                self.phase = "draw_bj"
                return
        self._after_draw(fx)

    def _do_draw_bj(self, card, fx):
        self.bj_deck.remove(card)
        sk = self.cfg.skulls(card)
        fx.append(("bj_card", self.cur, card, sk))
        if sk == 1:
            self.one = card
        elif sk == 2:
            self.held[self.cur].append(card)
        else:
            if self.three is not None:
                self.bj_disc.append(self.three)
                fx.append(("bj_discard", self.three))
            self.three = card
        self._after_draw(fx)

    def _after_draw(self, fx):
        if self.books[self.cur]:
            self.phase = "prep"
        else:
            self._begin(fx)

    def _begin(self, fx):
        if self._count("replace"):
            old = [c for c in self.slots if c is not None]
            self.under.extend(old)
            self.slots = [None] * len(self.slots)
            fx.append(("replace_residents", tuple(old)))
            self._deal_then("roll", fx)
        else:
            self._start_rolling(fx)

    def _start_rolling(self, fx):
        n = self.n_dice()
        self.dice = [""] * n
        self.rolling = list(range(n))
        self.pending = []
        self.rolls = 0
        self.phase = "roll"

    def _do_reroll(self, idx, fx):
        for i in idx:
            if self.dice[i] == BJ:
                self.bjre = False
            self.dice[i] = ""
        self.rolling = list(idx)
        self.pending = []
        self.phase = "roll"

    def _finish_roll(self, fx):
        for k in range(len(self.rolling)):
            self.dice[self.rolling[k]] = self.pending[k]
        fx.append(("rolled", tuple(self.rolling), tuple(self.pending)))
        self.rolling = []
        self.pending = []
        self.rolls += 1
        count = self.dice.count(BJ)
        if count >= self.threshold():
            self._bj_trigger(count, fx)
        else:
            self._to_decide(fx)

    def _can_reroll(self):
        if not self.rolls_left():
            return False
        free = len(self.dice) - self.dice.count(BJ)
        if self.bjre and BJ in self.dice:
            free += 1
        return free >= 2

    def _to_decide(self, fx):
        self.phase = "decide"
        if not self._can_reroll() and not self._handbook_actions():
            self._to_collect(fx)

    def _to_collect(self, fx):
        if len(self.feasible_sets()) > 1:
            self.phase = "collect"
        else:
            self._end_turn(fx)

    def _do_collect(self, sel, fx):
        got = []
        for i in sel:
            c = self.slots[i]
            if self.cfg.is_handbook(c):
                self.books[self.cur].append(c)
            else:
                self.won[self.cur].append(c)
            got.append(c)
            self.slots[i] = None
        if got:
            fx.append(("collected", self.cur, tuple(got)))
        self._end_turn(fx)

    def _end_turn(self, fx):
        if self._check_end(fx):
            return
        if self.held[self.cur]:
            if self.n == 1:
                for c in self.held[self.cur]:
                    self.bj_disc.append(c)
                    fx.append(("bj_discard", c))
                self.held[self.cur] = []
            else:
                acts = self._pass_actions()
                if len(acts) == 1:
                    self._do_pass(acts[0][1], acts[0][2], fx)
                    return
                self.phase = "pass"
                return
        self._cleanup(fx)

    def _do_pass(self, card, to, fx):
        for c in self.held[self.cur]:
            if c != card:
                self.bj_disc.append(c)
                fx.append(("bj_discard", c))
        self.held[self.cur] = []
        self.held[to].append(card)
        fx.append(("passed", self.cur, card, to))
        self._cleanup(fx)

    def _cleanup(self, fx):
        if self._check_end(fx):
            return
        if self.one is not None:
            self.bj_disc.append(self.one)
            fx.append(("bj_discard", self.one))
            self.one = None
        self._reset_turn()
        self.cur = (self.cur + 1) % self.n
        self._deal_then("start", fx)

    def _bj_trigger(self, count, fx):
        fx.append(("bj_trigger", self.cur, count))
        if self.bj_up:
            self._banish(fx)
        else:
            self._summon(fx)
        self._cleanup(fx)

    def _summon(self, fx):
        self.bj_up = True
        fx.append(("summoned",))
        best = -1
        for i in range(len(self.slots)):
            c = self.slots[i]
            if c is not None and self.cfg.is_resident(c):
                if best < 0 or self.cfg.points(c) > self.cfg.points(self.slots[best]):
                    best = i
        if best >= 0:
            c = self.slots[best]
            self.bj_pile.append(c)
            self.slots[best] = None
            fx.append(("bj_scares", c))

    def _banish(self, fx):
        gone = []
        if self.three is not None:
            gone.append(self.three)
        for h in self.held:
            gone.extend(h)
        if self.one is not None:
            gone.append(self.one)
        self.bj_disc.extend(gone)
        self.three = None
        self.one = None
        self.held = [[] for _ in range(self.n)]
        self.ignored = None
        self.bj_up = False
        fx.append(("banished", tuple(gone)))

    def _check_end(self, fx):
        if self.phase == "over":
            return True
        t = self.target()
        if len(self.bj_pile) >= t:
            self._finish("bj", fx)
            return True
        for p in range(self.n):
            if len(self.won[p]) >= t:
                self._finish("players", fx)
                return True
        return False

    def _finish(self, who, fx):
        self.phase = "over"
        self.after = ""
        self.result = who
        if who == "players":
            pts = [self.points(p) for p in range(self.n)]
            best = max(pts)
            self.winners = [p for p in range(self.n) if pts[p] == best]
        else:
            self.winners = []
        fx.append(("game_over", who, tuple(self.winners)))
        if self.compare:
            for p in range(self.n):
                fx.append(("versus_bj", p, self.points(p), self.bj_points()))

    def _do_handbook(self, a, fx):
        eff = a[1]
        book = self.books[self.cur].pop(0)
        self.spent.append(book)
        self.hb_used = True
        arg = a[2] if len(a) > 2 else None
        fx.append(("handbook", self.cur, eff, arg))
        in_prep = self.phase == "prep"
        if eff == "ignore":
            self.ignored = arg
        elif eff == "rolls4":
            self.rolls4 = True
        elif eff == "reroll_bj":
            self.bjre = True
        elif eff == "summon":
            self._summon(fx)
            if self._check_end(fx):
                return
            self._deal_then("begin", fx)
            return
        elif eff == "banish":
            self._banish(fx)
        elif eff == "take":
            c = self.slots[arg]
            self.won[self.cur].append(c)
            self.slots[arg] = None
            fx.append(("took", self.cur, c))
            self._deal_then("begin" if in_prep else "decide", fx)
            return
        if in_prep:
            self._begin(fx)
        else:
            self._to_decide(fx)

    # ---- persistence --------------------------------------------------------

    def to_dict(self):
        return {
            "v": STATE_VERSION, "names": list(self.names), "expert": self.expert,
            "compare": self.compare, "house": list(self.house), "under": list(self.under),
            "slots": list(self.slots), "bj_deck": list(self.bj_deck),
            "bj_disc": list(self.bj_disc), "bj_up": self.bj_up, "three": self.three,
            "one": self.one, "held": [list(h) for h in self.held],
            "won": [list(w) for w in self.won], "books": [list(b) for b in self.books],
            "bj_pile": list(self.bj_pile), "spent": list(self.spent), "cur": self.cur,
            "turn": self.turn, "phase": self.phase, "after": self.after,
            "ignored": self.ignored, "hb_used": self.hb_used, "rolls4": self.rolls4,
            "bjre": self.bjre, "dice": list(self.dice), "rolling": list(self.rolling),
            "pending": list(self.pending), "rolls": self.rolls, "result": self.result,
            "winners": list(self.winners),
        }

    @classmethod
    def from_dict(cls, config, d):
        err = None
        try:
            return load(cls, config, d)
        except RuleError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            err = "bad saved state: %r" % (e,)
        raise RuleError(err)



def auto_chance(game, rng):
    # The chance action for the current state, drawn from a rules.rng.Rng.
    p = game.phase
    if p == "roll":
        syms = game.cfg.symbols
        k = len(game.rolling) - len(game.pending)
        faces = tuple([syms[rng.below(len(syms))] for _ in range(k)])
        if game.pending:
            return ("die", faces[0])
        return ("roll", faces)
    if p == "deal" or p == "draw_bj":
        acts = game.legal_actions()
        return acts[rng.below(len(acts))]
    raise RuleError("no chance pending in phase " + p)


def reroll_for_keep(game, keep):
    # Dice to reroll when a player wants to keep the dice in `keep`: all other
    # dice except Beetlejuice symbols (one of those goes back in the cup only
    # with the Handbook). A reroll needs two dice, so kept dice are forced back
    # in (highest index first) when too few remain. None if no reroll is possible.
    dice = game.dice
    roll = [i for i in range(len(dice)) if i not in keep and dice[i] != BJ]
    if game.bjre:
        for i in range(len(dice)):
            if i not in keep and dice[i] == BJ:
                roll.append(i)
                break
    forced = [i for i in range(len(dice) - 1, -1, -1)
              if i in keep and dice[i] != BJ]
    while len(roll) < 2 and forced:
        roll.append(forced.pop(0))
    if len(roll) < 2:
        return None
    return tuple(sorted(roll))
