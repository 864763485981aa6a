# Watch Out Beetlejuice: a pure rule engine (no I/O, no clock, no randomness).
# Rulebook: watch-out-beetlejuice.txt. Every choice the rulebook leaves open
# is listed in docs/assumptions/beetlejuice.md; card data is in
# data/beetlejuice.json and is passed in as a dict. Card indexing and the scare
# check live in beetlejuice_cards.py (the JSON parsing in beetlejuice_load.py).
# Code the board does not need while a game is played is imported only when
# wanted: saved-state validation (beetlejuice_state.py, on a resume), the full
# list of rerolls (beetlejuice_moves.py, for hosts, bots and tests), and the
# rare events (beetlejuice_rare.py: a new game, the Handbooks, Beetlejuice
# summoned or banished, 2-skull passes, the end), each loaded for the call
# and dropped again on the board (see _rare).
#
# RAM and allocation (the board's budgets, see sim/bench.py): apply() checks an
# action without building the list of legal actions (is_legal() answers the
# same for a host); a save writes state_view() (the game's own lists, no
# copies); a controller may pass apply() the list to put the effects in.
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
from rules.beetlejuice_cards import (BANISH4, BJ, FEWER_ROLLS, REMOVE_DICE, REPLACE,  # noqa: F401
                                     Config, count_faces, fits, is_int as _is_int,
                                     sets_feasible, subset as _subset)
from ram import unload

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

BEETLEJUICE = -2        # `winner` when Beetlejuice wins (everyone loses)
STATE_VERSION = const(1)
# The saved state: "v" (STATE_VERSION), then these attributes, in this order.
STATE_KEYS = ("names", "expert", "compare", "house", "under", "slots", "bj_deck", "bj_disc",
              "bj_up", "three", "one", "held", "won", "books", "bj_pile", "spent", "cur",
              "turn", "phase", "after", "ignored", "hb_used", "rolls4", "bjre", "dice",
              "rolling", "pending", "rolls", "result", "winners")


def _tup(x):
    if isinstance(x, list):
        return tuple(x)
    return x


def _normalise(action):
    # JSON turns tuples into lists; the engine compares tuples.
    if not isinstance(action, (tuple, list)) or not action:
        raise RuleError("an action is a non-empty tuple")
    if isinstance(action, tuple) and isinstance(action[0], str):
        for x in action:
            if isinstance(x, list):
                break
        else:
            return action       # already in the engine's form: nothing to copy
    out = [_tup(x) for x in action]
    if not isinstance(out[0], str):
        raise RuleError("action name must be a string")
    return tuple(out)


class BeetlejuiceGame:
    # players: a count or a list of names. rng: an optional rules.rng.Rng; when
    # given, the three opening Residents are dealt with it straight away,
    # otherwise the game starts in phase "deal" awaiting chance draws.
    # options: {"expert": bool (eight Residents), "compare_bj": bool}.
    # The game's state, set up by beetlejuice_rare.setup (the saved part is
    # STATE_KEYS). Declared here for the type checker (tests/typecheck.py):
    # bare annotations compile to nothing on MicroPython (no code, no names).
    cfg: Config
    names: list
    n: int
    expert: bool
    compare: bool
    house: list         # unknown part of the House pile
    under: list         # known cards put underneath, in order
    slots: list
    bj_deck: list       # the grave (face-down deck)
    bj_disc: list       # the box bottom
    bj_up: bool         # Beetlejuice in play
    three: object       # active 3-skull card, or None
    one: object         # 1-skull card of the current turn, or None
    held: list          # 2-skull cards per player
    won: list           # scared Residents per player
    books: list         # Handbooks held per player
    bj_pile: list       # Residents Beetlejuice scared
    spent: list         # used Handbooks (out of the game)
    cur: int
    turn: int
    phase: str
    after: str
    dice: list
    rolling: list
    pending: list
    result: object
    winners: list

    def __init__(self, config, players=2, rng=None, options=None):
        self._rare("setup", config, players, rng, options)

    def _rare(self, name, *args):
        # Calls beetlejuice_rare.<name>(self, *args). The module is imported
        # for the call and, on the board, dropped again: its code (~4 KB) is
        # then not resident while turns without a rare event are played.
        import rules.beetlejuice_rare as r
        try:
            return getattr(r, name)(self, *args)
        finally:
            unload("rules.beetlejuice_rare")

    def _reset_turn(self):
        self.ignored = None
        self.hb_used = False
        self.rolls4 = False
        self.bjre = False
        # the game's own lists, emptied in place (this runs twice between turns)
        self.dice.clear()
        self.rolling.clear()
        if self.pending:
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
        return self._sum_points(self.won[p])

    def bj_points(self):
        return self._sum_points(self.bj_pile)

    def _sum_points(self, cards):
        t = 0
        for c in cards:
            t += self.cfg.points(c)
        return t

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
        # Sum of the active cards' n for one effect (an EFFECTS index). Called on
        # every render and check, so it walks the cards without building lists.
        cfg = self.cfg
        ign = self.ignored
        k = 0
        c = self.three
        if c is not None and c != ign:
            k += cfg.effect_count(c, effect)
        for c in self.held[self.cur]:
            if c != ign:
                k += cfg.effect_count(c, effect)
        c = self.one
        if c is not None and c != ign:
            k += cfg.effect_count(c, effect)
        return k

    def n_dice(self):
        cfg = self.cfg
        return max(min(cfg.min_dice, cfg.dice), cfg.dice - self._count(REMOVE_DICE))

    def rolls_max(self):
        base = self.cfg.handbook_rolls if self.rolls4 else self.cfg.rolls
        return max(self.cfg.min_rolls, base - self._count(FEWER_ROLLS))

    def rolls_left(self):
        return max(0, self.rolls_max() - self.rolls)

    def _forbid_mask(self):
        cfg = self.cfg
        ign = self.ignored
        m = 0
        c = self.three
        if c is not None and c != ign:
            m |= cfg.forbid_mask(c)
        for c in self.held[self.cur]:
            if c != ign:
                m |= cfg.forbid_mask(c)
        c = self.one
        if c is not None and c != ign:
            m |= cfg.forbid_mask(c)
        return m

    def forbidden(self):
        return self.cfg.mask_symbols(self._forbid_mask())

    def threshold(self):
        cfg = self.cfg
        if not self.bj_up:
            return cfg.summon_at
        if self._count(BANISH4):
            return cfg.banish_at_x4
        return cfg.banish_at

    def feasible_sets(self, faces=None):
        # every set of face-up slots the dice can scare together (incl. the empty set)
        if faces is None:
            faces = self.dice
        occ = 0
        for i in range(len(self.slots)):
            if self.slots[i] is not None:
                occ |= 1 << i
        forb = self._forbid_mask()
        left = count_faces(self.cfg, faces)
        out = []
        # every subset m of the occupied slots, in the order of counting through
        # them (the order legal_actions() lists "collect" in)
        m = 0
        while True:
            if fits(self.cfg, self.slots, m, 0, left, forb):
                out.append(_subset(m))
            if m == occ:
                return out
            m = (m - occ) & occ        # the next subset of occ

    def _can_scare(self):
        # Some face-up card can be scared (then "collect" offers more than the
        # empty set): a feasible set's subsets are feasible, so one card is enough.
        forb = self._forbid_mask()
        left = count_faces(self.cfg, self.dice)
        for i in range(len(self.slots)):
            if self.slots[i] is not None and fits(self.cfg, self.slots, 1 << i, 0, left, forb):
                return True
        return False

    # ---- legal actions ------------------------------------------------------

    def legal_actions(self):
        p = self.phase
        if p == "collect":
            return [("collect", s) for s in self.feasible_sets()]
        if p == "decide":
            # every reroll listed: for hosts and bots (the board checks instead)
            from rules.beetlejuice_moves import decide_actions
            return decide_actions(self)
        return self._rare("listed")

    def _house_candidates(self):
        if self.house:
            return list(self.house)
        if self.under:
            return [self.under[0]]
        return []

    def handbook_actions(self):
        # The Handbook effects on offer now (phases "prep" and "decide"). Kept
        # resident, not in beetlejuice_rare: it is asked at every roll while a
        # Handbook is held, and inside a host's answer to the keep prompt
        # (KeepOptions -> is_legal), where loading code would add to the
        # request's peak heap.
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
            d = self.dice
            if self.rolls_left() and BJ in d and len(d) - d.count(BJ) >= 1:
                out.append(("handbook", "reroll_bj"))
        return out

    def _is_legal(self, a):
        # Same answer as `a in legal_actions()` for a normalised action, without
        # building the long lists (52 House cards, every reroll) on every apply.
        p = self.phase
        n = len(a)
        name = a[0]
        if p == "deal":
            if name != "draw_house" or n != 2:
                return False
            if self.house:
                return a[1] in self.house
            return len(self.under) > 0 and a[1] == self.under[0]
        if p == "draw_bj":
            return name == "draw_bj" and n == 2 and a[1] in self.bj_deck
        if p == "roll":
            return name == "die" and n == 2 and a[1] in self.cfg.symbols
        if p == "collect":
            if name != "collect" or n != 2 or not isinstance(a[1], tuple):
                return False
            m = 0
            prev = -1
            for i in a[1]:
                if (not _is_int(i) or i <= prev or i >= len(self.slots)
                        or self.slots[i] is None):
                    return False
                prev = i
                m |= 1 << i
            return sets_feasible(self.cfg, self.slots, self.dice, self._forbid_mask(), m)
        if p == "decide":
            if name == "stop":
                return n == 1
            if name == "handbook":
                return a in self.handbook_actions()
            # a reroll of the listed (canonical) sets; apply() takes any valid one
            return name == "reroll" and n == 2 and a in self.legal_actions()
        # prep, pass: short lists
        return a in self.legal_actions()

    def _check_reroll(self, idx):
        if not self.rolls_left():
            raise RuleError("no rolls left this turn")
        if not isinstance(idx, tuple):
            raise RuleError("reroll takes a tuple of dice indices")
        seen = 0
        bj = 0
        ordered = True
        prev = -1
        for i in idx:
            if not _is_int(i) or not 0 <= i < len(self.dice) or seen >> i & 1:
                raise RuleError("bad die index %r" % (i,))
            seen |= 1 << i
            if i < prev:
                ordered = False
            prev = i
            if self.dice[i] == BJ:
                bj += 1
        if len(idx) < 2:
            raise RuleError("a reroll must include at least two dice")
        if bj > (1 if self.bjre else 0):
            raise RuleError("a Beetlejuice symbol may not be rerolled")
        return idx if ordered else tuple(sorted(idx))

    def _validated(self, action):
        # The action in the engine's form if apply() accepts it; else RuleError.
        # Rerolls: any two or more dice that may be rerolled (legal_actions()
        # lists one canonical set per multiset of faces).
        a = _normalise(action)
        name = a[0]
        p = self.phase
        if p == "over":
            raise RuleError("the game is over")
        if name == "reroll" and p == "decide" and len(a) == 2:
            idx = self._check_reroll(a[1])
            return a if idx is a[1] else ("reroll", idx)
        if name == "roll" and p == "roll" and len(a) == 2:
            faces = a[1]
            if (self.pending or not isinstance(faces, tuple)
                    or len(faces) != len(self.rolling)):
                raise RuleError("roll needs %d faces" % len(self.rolling))
            for f in faces:
                if f not in self.cfg.symbols:
                    raise RuleError("unknown face %r" % (f,))
            return a
        if name == "collect" and p == "collect" and len(a) == 2 and isinstance(a[1], tuple):
            sel = a[1]
            prev = -1
            ordered = True
            for i in sel:
                if not _is_int(i):
                    raise RuleError("bad collect")
                if i < prev:
                    ordered = False
                prev = i
            if not ordered:
                a = ("collect", tuple(sorted(sel)))
        if not self._is_legal(a):
            raise RuleError("illegal action %r in phase %s" % (a, p))
        return a

    def is_legal(self, action):
        # True when apply(action) would accept it (a host's answer is checked
        # with this instead of against a list of every legal action).
        try:
            self._validated(action)
        except RuleError:
            return False
        return True

    # ---- apply --------------------------------------------------------------

    def apply(self, action, fx=None):
        # fx: a list to append the effects to and return (a controller reuses
        # one); by default a new list.
        a = self._validated(action)
        name = a[0]
        if fx is None:
            fx = []
        if name == "reroll":
            self._do_reroll(a[1], fx)
        elif name == "roll":
            self._finish_roll(fx, a[1])
        elif name == "draw_house":
            self._do_draw_house(a[1], fx)
        elif name == "draw_bj":
            self._do_draw_bj(a[1], fx)
        elif name == "die":
            self.pending.append(a[1])
            if len(self.pending) == len(self.rolling):
                self._finish_roll(fx, tuple(self.pending))
        elif name == "begin":
            self._begin(fx)
        elif name == "handbook":
            self._rare("handbook", a, fx)
        elif name == "stop":
            self._to_collect(fx)
        elif name == "collect":
            self._do_collect(a[1], fx)
        elif name == "pass":
            self._rare("pass_card", a[1], a[2], fx)
        return fx

    # ---- flow ---------------------------------------------------------------

    def _deal_then(self, after, fx):
        self.after = after
        self._continue_deal(fx)

    def _continue_deal(self, fx):
        if None in self.slots and (self.house or self.under):
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
                self._rare("reshuffle", fx)
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
        if self._count(REPLACE):
            self._rare("replace", fx)
        else:
            self._start_rolling(fx)

    def _start_rolling(self, fx):
        n = self.n_dice()
        d = self.dice                   # the game's own lists, refilled in place
        d.clear()
        for _ in range(n):
            d.append("")
        t = _subset((1 << n) - 1)       # (0, 1, ..., n - 1), made once
        r = self.rolling
        r.clear()
        r.extend(t)
        self._rolled = t
        if self.pending:
            self.pending = []
        self.rolls = 0
        self.phase = "roll"

    def _do_reroll(self, idx, fx):
        for i in idx:
            if self.dice[i] == BJ:
                self.bjre = False
            self.dice[i] = ""
        r = self.rolling
        r.clear()
        r.extend(idx)
        self._rolled = idx      # the same dice as a tuple, for the "rolled" effect
        if self.pending:
            self.pending = []
        self.phase = "roll"

    def _finish_roll(self, fx, faces):
        # faces: a tuple, one face per die in self.rolling
        r = self.rolling
        for k in range(len(r)):
            self.dice[r[k]] = faces[k]
        t = self._rolled
        fx.append(("rolled", t if t is not None and len(t) == len(r) else tuple(r), faces))
        self._rolled = None
        r.clear()               # the game's own list (never handed out): no new one
        if self.pending:
            self.pending = []
        self.rolls += 1
        count = self.dice.count(BJ)
        if count >= self.threshold():
            self._rare("trigger", count, fx)
        else:
            self._to_decide(fx)

    def can_reroll(self):
        # A reroll is possible now (phase "decide").
        return self.phase == "decide" and self._can_reroll()

    def _can_reroll(self):
        if not self.rolls_left():
            return False
        free = len(self.dice) - self.dice.count(BJ)
        if self.bjre and BJ in self.dice:
            free += 1
        return free >= 2

    def _to_decide(self, fx):
        self.phase = "decide"
        if (not self._can_reroll() and not (self.books[self.cur] and not self.hb_used
                                            and self.handbook_actions())):
            self._to_collect(fx)

    def _to_collect(self, fx):
        if self._can_scare():
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
            self._rare("held", fx)
            return
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

    def _check_end(self, fx):
        if self.phase == "over":
            return True
        t = self.target()
        if len(self.bj_pile) >= t:
            self._rare("finish", "bj", fx)
            return True
        for p in range(self.n):
            if len(self.won[p]) >= t:
                self._rare("finish", "players", fx)
                return True
        return False

    # ---- persistence --------------------------------------------------------

    def state_view(self):
        # The state as saved: a dict owned by the game, refreshed in place on each
        # call (no new dict), whose lists are the game's own (no copies). For a
        # save: serialise it at once; never keep or change it.
        v = self._view
        if v is None:
            v = self._view = {"v": STATE_VERSION}
        for k in STATE_KEYS:
            v[k] = getattr(self, k)
        return v

    def to_dict(self):
        # An independent copy of the state (JSON-serialisable): state_view() with
        # every list (and list of lists) copied.
        v = self.state_view()
        d = {}
        for k in v:
            x = v[k]
            if isinstance(x, list):
                x = [list(y) if isinstance(y, list) else y for y in x]
            d[k] = x
        return d

    @classmethod
    def from_dict(cls, config, d):
        # The validation code is loaded only when a saved game is restored
        # (and dropped again: a resume happens once per boot).
        from rules.beetlejuice_state import restore
        return restore(cls, config, d)



# Scratch lists for auto_chance, one per number of dice rolled: a roll then
# allocates only its tuple of faces. Made up front (a few hundred bytes), so the
# heap does not creep up over the first games as rarer roll sizes turn up.
_FACES = [[None] * k for k in range(9)]


def auto_chance(game, rng):
    # The chance action for the current state, drawn from a rules.rng.Rng.
    p = game.phase
    if p == "roll":
        syms = game.cfg.symbols
        k = len(game.rolling) - len(game.pending)
        buf = _FACES[k] if k < len(_FACES) else [None] * k
        for i in range(k):
            buf[i] = syms[rng.below(len(syms))]
        if game.pending:
            return ("die", buf[0])
        return ("roll", tuple(buf))
    # A card from the candidates legal_actions() lists, without the list.
    if p == "draw_bj":
        return ("draw_bj", game.bj_deck[rng.below(len(game.bj_deck))])
    if p == "deal":
        if game.house:
            return ("draw_house", game.house[rng.below(len(game.house))])
        return ("draw_house", game.under[rng.below(1)])    # only the top known card
    raise RuleError("no chance pending in phase " + p)


_LAST = [0, ()]         # reroll_for_keep's last answer: (dice mask, index tuple)


def reroll_for_keep(game, keep):
    # Dice to reroll when a player wants to keep the dice in `keep` (indexes, or
    # a bit mask): all other dice except Beetlejuice symbols (one of those goes
    # back in the cup only with the Handbook). A reroll needs two dice, so kept
    # dice are forced back in (highest index first) when too few remain. None if
    # no reroll is possible.
    if not _is_int(keep):
        m = 0
        for i in keep:
            m |= 1 << i
        keep = m
    dice = game.dice
    n = len(dice)
    roll = 0
    count = 0
    for i in range(n):
        if not keep >> i & 1 and dice[i] != BJ:
            roll |= 1 << i
            count += 1
    if game.bjre:
        for i in range(n):
            if not keep >> i & 1 and dice[i] == BJ:
                roll |= 1 << i
                count += 1
                break
    i = n - 1
    while count < 2 and i >= 0:
        if keep >> i & 1 and dice[i] != BJ:
            roll |= 1 << i
            count += 1
        i -= 1
    if count < 2:
        return None
    if _LAST[0] != roll:
        # the menus ask for the same reroll again and again: keep the last one
        _LAST[1] = tuple([i for i in range(n) if roll >> i & 1])
        _LAST[0] = roll
    return _LAST[1]
