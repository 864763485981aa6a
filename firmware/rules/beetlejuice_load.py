# Watch Out Beetlejuice: turns the card data JSON (data/beetlejuice.json) into
# the compact records of rules.beetlejuice_cards.Config, validating it, and
# (for host tools) back into JSON-like card dicts. Config() imports this module
# and, on MicroPython, drops it again when done: parsing happens once per boot,
# so its code need not stay in RAM.

from ram import interned
from rules.errors import RuleError
from rules.beetlejuice_cards import BJ, EFFECTS, K_BJ, K_BOOK, K_HOUSE, REMOVE_DICE, FORBID, is_int


def _num(d, k):
    v = d[k]
    if not is_int(v) or v < 0:
        raise RuleError("config %s must be a non-negative int" % k)
    return v


def _byte(v, what):
    if not is_int(v) or not 0 <= v <= 255:
        raise RuleError("bad %s" % what)
    return v


def _id(c):
    return c["id"]


NUMS = ("dice", "min_dice", "rolls", "handbook_rolls", "min_rolls", "summon_at",
        "banish_at", "banish_at_x4", "slots", "target", "expert_target", "min_players",
        "max_players")


def fill(cfg, d):
    # Config.__init__: its fields, from the JSON dict d (validated).
    p = parse(d)
    for k in p:
        setattr(cfg, k, p[k])


def parse(d):
    # The fields of a Config, as a dict, from the JSON dict d (validated).
    if not isinstance(d, dict):
        raise RuleError("config must be a dict")
    p = {}
    err = None
    try:
        p["symbols"] = syms = tuple(d["symbols"])
        for name in NUMS:
            p[name] = _num(d, name)
        house = d["house"]
        bjc = d["bj_cards"]
    except KeyError as e:
        err = "config lacks %s" % e
    if err is not None:
        raise RuleError(err)
    if len(syms) != 6 or BJ not in syms:
        raise RuleError("config needs six symbols including 'bj'")
    if p["min_players"] < 1 or p["max_players"] < p["min_players"]:
        raise RuleError("bad player limits")
    p["names"] = d.get("symbol_names", {})
    ns = len(syms)
    alts = 1
    for c in list(house) + list(bjc):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str):
            raise RuleError("bad card %r" % (c,))
    for c in house:
        if not isinstance(c.get("need"), list) or not c["need"]:
            raise RuleError("bad house card " + c["id"])
        if len(c["need"]) > alts:
            alts = len(c["need"])
    house = sorted(house, key=_id)
    bjc = sorted(bjc, key=_id)
    # The ids are what the game state, the saves and the host refer to: kept
    # all game, so interned (ram.py; about 2.3 KB less on the board).
    p["house_ids"] = tuple(interned([c["id"] for c in house]))
    p["bj_ids"] = tuple(interned([c["id"] for c in bjc]))
    every = sorted(list(p["house_ids"]) + list(p["bj_ids"]))
    for k in range(1, len(every)):
        if every[k] == every[k - 1]:
            raise RuleError("card id %s used twice" % every[k])
    p["rec"] = size = 3 + ns * alts
    data = bytearray(size * (len(house) + len(bjc)))
    o = 0
    for c in house:
        cid = c["id"]
        data[o] = K_HOUSE | (K_BOOK if c.get("handbook", False) else 0)
        data[o + 1] = _byte(int(c.get("points", 0)), "points on " + cid)
        data[o + 2] = len(c["need"])
        a = o + 3
        for alt in c["need"]:
            if not isinstance(alt, dict):
                raise RuleError("bad need on " + cid)
            for s in alt:
                if s not in syms or not is_int(alt[s]) or not 1 <= alt[s] <= 255:
                    raise RuleError("bad need on " + cid)
                data[a + syms.index(s)] = alt[s]
            a += ns
        o += size
    for c in bjc:
        cid = c["id"]
        if c["skulls"] not in (1, 2, 3) or c["effect"] not in EFFECTS:
            raise RuleError("bad Beetlejuice card " + cid)
        data[o] = K_BJ
        data[o + 1] = c["skulls"]
        data[o + 2] = EFFECTS.index(c["effect"])
        data[o + 3] = _byte(c.get("n", 1), "n on " + cid)
        m = 0
        for s in c.get("symbols", ()):
            if s not in syms:
                raise RuleError("bad symbols on " + cid)
            m |= 1 << syms.index(s)
        data[o + 4] = m
        o += size
    p["data"] = bytes(data)
    return p


def card_dicts(cfg):
    # {card id: the card as in the JSON}, rebuilt from the records.
    d = cfg.data
    syms = cfg.symbols
    out = {}
    for cid in cfg.house_ids:
        o = cfg._rec(cid)
        need = []
        a = o + 3
        for _ in range(d[o + 2]):
            alt = {}
            for i in range(len(syms)):
                if d[a + i]:
                    alt[syms[i]] = d[a + i]
            need.append(alt)
            a += len(syms)
        out[cid] = {"id": cid, "points": d[o + 1], "need": need,
                    "handbook": d[o] & K_BOOK != 0}
    for cid in cfg.bj_ids:
        o = cfg._rec(cid)
        c = {"id": cid, "skulls": d[o + 1], "effect": EFFECTS[d[o + 2]]}
        if d[o + 2] == REMOVE_DICE:
            c["n"] = d[o + 3]
        if d[o + 2] == FORBID:
            c["symbols"] = cfg.mask_symbols(d[o + 4])
        out[cid] = c
    return out
