# Watch Out Beetlejuice: card data index and the scare check (pure, no I/O).
# The JSON in data/beetlejuice.json is loaded by the caller and indexed here once.
#
# The cards are kept compact: one fixed-size record per card in a single bytes
# object, in the order of the sorted id tuples `house_ids` + `bj_ids` (a card is
# found by binary search: no index dict). The JSON dict can be dropped after
# Config(): the 80 parsed card dicts took ~12 KB of heap, this takes ~4 KB, most
# of it the id strings the game state refers to.
#   record[0]  kind: K_HOUSE (Resident), K_HOUSE | K_BOOK (Handbook), K_BJ
#   House      [1] points, [2] number of alternatives, then for each
#              alternative one count per symbol (in `symbols` order)
#   Beetlejuice [1] skulls, [2] effect (index in EFFECTS), [3] n (dice removed;
#              1 when not given), [4] forbidden symbols (bit i: symbols[i])
# `card` rebuilds the JSON-like dicts on first use, for host tools only.

from ram import unload

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

BJ = "bj"
EFFECTS = ("fewer_rolls", "remove_dice", "replace", "forbid", "banish4")
FEWER_ROLLS = const(0)
REMOVE_DICE = const(1)
REPLACE = const(2)
FORBID = const(3)
BANISH4 = const(4)
K_HOUSE = const(1)
K_BOOK = const(2)
K_BJ = const(4)


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


_SUBSETS = {}       # mask -> tuple of its bits (see subset)


def subset(m):
    # The tuple of the bits set in m (a set of slots or dice), made once per
    # mask: at most 2**slots for the slots, 2**dice for the rerolls hosts list.
    t = _SUBSETS.get(m)
    if t is None:
        out = []
        i = 0
        while m >> i:
            if m >> i & 1:
                out.append(i)
            i += 1
        t = _SUBSETS[m] = tuple(out)
    return t


def find(ids, cid):
    # Index of cid in the sorted tuple ids, or -1.
    lo = 0
    hi = len(ids)
    while lo < hi:
        mid = (lo + hi) >> 1
        if ids[mid] < cid:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(ids) and ids[lo] == cid else -1


class Config:
    # Indexes the JSON card data once; shared by every game built from it.
    # Declared for the type checker (set by beetlejuice_load.fill; bare
    # annotations compile to nothing on MicroPython).
    symbols: tuple
    names: dict
    dice: int
    min_dice: int
    rolls: int
    handbook_rolls: int
    min_rolls: int
    summon_at: int
    banish_at: int
    banish_at_x4: int
    slots: int
    target: int
    expert_target: int
    min_players: int
    max_players: int
    house_ids: tuple
    bj_ids: tuple
    rec: int
    data: bytes
    def __init__(self, d):
        # Parsed and checked by beetlejuice_load (once per boot, then dropped);
        # the attributes it sets: symbols, names (long symbol names, host
        # tools), dice, min_dice, rolls, handbook_rolls, min_rolls, summon_at,
        # banish_at, banish_at_x4, slots, target, expert_target, min_players,
        # max_players, house_ids and bj_ids (sorted), rec (bytes per record),
        # data (the records).
        from rules.beetlejuice_load import fill
        try:
            fill(self, d)
        finally:
            unload("rules.beetlejuice_load")
        self._left = bytearray(len(self.symbols))   # scratch for count_faces
        self._card = None
        self._ix = None

    def index_ids(self):
        # For hosts (bots, statistics): look cards up in a dict {id: offset}
        # instead of by binary search. Faster, and ~3 KB more RAM: the board
        # never calls this. The answers are the same.
        if self._ix is None:
            ix = {}
            for cid in self.house_ids + self.bj_ids:
                ix[cid] = self._at(cid)
            self._ix = ix

    def _at(self, cid):
        # Offset of the card's record in `data`, or -1. Binary search in the
        # sorted id tuples (records are in the same order): no index dict on
        # the board (see index_ids).
        if not isinstance(cid, str):
            return -1
        if self._ix is not None:
            return self._ix.get(cid, -1)
        k = find(self.house_ids, cid)
        if k >= 0:
            return k * self.rec
        k = find(self.bj_ids, cid)
        if k >= 0:
            return (len(self.house_ids) + k) * self.rec
        return -1

    def _rec(self, cid):
        o = self._at(cid)
        if o < 0:
            raise KeyError(cid)
        return o

    # ---- one card -----------------------------------------------------------

    def _kind(self, cid):
        o = self._at(cid)
        return 0 if o < 0 else self.data[o]

    def is_house(self, cid):
        return self._kind(cid) & K_HOUSE != 0

    def is_bj(self, cid):
        return self._kind(cid) & K_BJ != 0

    def is_handbook(self, cid):
        return self._kind(cid) & K_BOOK != 0

    def is_resident(self, cid):
        return self._kind(cid) & (K_HOUSE | K_BOOK) == K_HOUSE

    def skulls(self, cid):
        return self.data[self._rec(cid) + 1]

    def points(self, cid):
        return self.data[self._rec(cid) + 1]

    def effect(self, cid):
        return EFFECTS[self.data[self._rec(cid) + 2]]

    def _bj_rec(self, cid):
        # _rec for a card asked about as a Beetlejuice card: its ids searched
        # first (the engine asks these on every check; one search, not two).
        k = find(self.bj_ids, cid) if isinstance(cid, str) and self._ix is None else -1
        if k >= 0:
            return (len(self.house_ids) + k) * self.rec
        return self._rec(cid)

    def effect_count(self, cid, effect):
        # How much Beetlejuice card `cid` adds to effect `effect` (an EFFECTS
        # index): its n for that effect, else 0.
        o = self._bj_rec(cid)
        d = self.data
        return d[o + 3] if d[o + 2] == effect else 0

    def forbid_mask(self, cid):
        o = self._bj_rec(cid)
        d = self.data
        return d[o + 4] if d[o + 2] == FORBID else 0

    def symbol_mask(self, symbols):
        m = 0
        for s in symbols:
            if s in self.symbols:
                m |= 1 << self.symbols.index(s)
        return m

    def mask_symbols(self, m):
        return [self.symbols[i] for i in range(len(self.symbols)) if m >> i & 1]

    # ---- the JSON-like view (host tools; never used on the board) -----------

    @property
    def card(self):
        if self._card is None:
            from rules.beetlejuice_load import card_dicts
            self._card = card_dicts(self)
        return self._card


def sets_feasible(cfg, cards, faces, forbidden, mask=-1):
    # True when the dice `faces` can scare every card in `cards` at once (only
    # the entries whose bit is set in `mask`; None entries are skipped), each die
    # counting for one card only. Residents cannot use forbidden symbols (a list
    # of symbols or a bit mask); the Handbook is not a Resident and may use any
    # symbol. Allocates nothing when `forbidden` is a mask.
    if not isinstance(forbidden, int):
        forbidden = cfg.symbol_mask(forbidden)
    return fits(cfg, cards, mask, 0, count_faces(cfg, faces), forbidden)


def count_faces(cfg, faces):
    # The dice `faces` counted per symbol, in the config's scratch bytearray
    # (for fits(): count once, then ask about several sets of cards).
    syms = cfg.symbols
    left = cfg._left
    for i in range(len(left)):
        left[i] = 0
    for f in faces:
        if f in syms:
            left[syms.index(f)] += 1
    return left


def fits(cfg, cards, mask, k, left, forb):
    # sets_feasible on dice counts `left` (restored on return), from card k on.
    n = len(cards)
    while k < n and (not mask >> k & 1 or cards[k] is None):
        k += 1
    if k == n:
        return True
    d = cfg.data
    o = cfg._rec(cards[k])
    book = d[o] & K_BOOK
    ns = len(left)
    a = o + 3
    for _ in range(d[o + 2]):
        ok = True
        for s in range(ns):
            c = d[a + s]
            if c and (left[s] < c or (not book and forb >> s & 1)):
                ok = False
                break
        if ok:
            for s in range(ns):
                left[s] -= d[a + s]
            fit = fits(cfg, cards, mask, k + 1, left, forb)
            for s in range(ns):
                left[s] += d[a + s]
            if fit:
                return True
        a += ns
    return False
