# Watch Out Beetlejuice: card data index and the scare check (pure, no I/O).
# The JSON in data/beetlejuice.json is loaded by the caller and indexed here once.

from rules.errors import RuleError

BJ = "bj"
EFFECTS = ("fewer_rolls", "remove_dice", "replace", "forbid", "banish4")


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _num(d, k):
    v = d[k]
    if not is_int(v) or v < 0:
        raise RuleError("config %s must be a non-negative int" % k)
    return v


class Config:
    # Indexes the JSON card data once; shared by every game built from it.
    def __init__(self, d):
        if not isinstance(d, dict):
            raise RuleError("config must be a dict")
        err = None
        try:
            self.symbols = tuple(d["symbols"])
            self.dice = _num(d, "dice")
            self.min_dice = _num(d, "min_dice")
            self.rolls = _num(d, "rolls")
            self.handbook_rolls = _num(d, "handbook_rolls")
            self.min_rolls = _num(d, "min_rolls")
            self.summon_at = _num(d, "summon_at")
            self.banish_at = _num(d, "banish_at")
            self.banish_at_x4 = _num(d, "banish_at_x4")
            self.slots = _num(d, "slots")
            self.target = _num(d, "target")
            self.expert_target = _num(d, "expert_target")
            self.min_players = _num(d, "min_players")
            self.max_players = _num(d, "max_players")
            house = d["house"]
            bjc = d["bj_cards"]
        except KeyError as e:
            err = "config lacks %s" % e
        if err is not None:
            raise RuleError(err)
        if len(self.symbols) != 6 or BJ not in self.symbols:
            raise RuleError("config needs six symbols including 'bj'")
        if self.min_players < 1 or self.max_players < self.min_players:
            raise RuleError("bad player limits")
        self.names = d.get("symbol_names", {})
        self.card = {}
        self.house_ids = []
        self.bj_ids = []
        for c in house:
            cid = c["id"]
            need = []
            for alt in c["need"]:
                for s in alt:
                    if s not in self.symbols or not is_int(alt[s]) or alt[s] < 1:
                        raise RuleError("bad need on " + cid)
                need.append(alt)
            if not need or cid in self.card:
                raise RuleError("bad house card " + str(cid))
            self.card[cid] = {"id": cid, "points": int(c.get("points", 0)), "need": need,
                              "handbook": bool(c.get("handbook", False))}
            self.house_ids.append(cid)
        for c in bjc:
            cid = c["id"]
            if cid in self.card or c["skulls"] not in (1, 2, 3) or c["effect"] not in EFFECTS:
                raise RuleError("bad Beetlejuice card " + str(cid))
            self.card[cid] = c
            self.bj_ids.append(cid)
        self.house_ids.sort()
        self.bj_ids.sort()

    def is_house(self, cid):
        return cid in self.card and "need" in self.card[cid]

    def is_bj(self, cid):
        return cid in self.card and "skulls" in self.card[cid]

    def is_handbook(self, cid):
        return self.is_house(cid) and self.card[cid]["handbook"]

    def is_resident(self, cid):
        return self.is_house(cid) and not self.card[cid]["handbook"]

    def skulls(self, cid):
        return self.card[cid]["skulls"]

    def points(self, cid):
        return self.card[cid]["points"]


def sets_feasible(cfg, cards, faces, forbidden):
    # True when the dice `faces` can scare every card in `cards` at once, each
    # die counting for one card only. Residents cannot use forbidden symbols;
    # the Handbook is not a Resident and may use any symbol.
    counts = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    return _fits(cfg, cards, 0, counts, forbidden)


def _fits(cfg, cards, k, left, forbidden):
    if k == len(cards):
        return True
    c = cfg.card[cards[k]]
    for alt in c["need"]:
        ok = True
        for s in alt:
            if left.get(s, 0) < alt[s] or (not c["handbook"] and s in forbidden):
                ok = False
                break
        if not ok:
            continue
        rest = dict(left)
        for s in alt:
            rest[s] -= alt[s]
        if _fits(cfg, cards, k + 1, rest, forbidden):
            return True
    return False
