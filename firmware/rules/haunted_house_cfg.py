# Haunted House (Boxtop Pinball) configuration: the parsed, checked view of
# firmware/data/haunted_house.json that the rule engine reads. Pure: no I/O.

from rules.errors import RuleError


def _int(x, lo, hi, what):
    if type(x) is not int or x < lo or x > hi:
        raise RuleError("config: %s must be an int in %d..%d" % (what, lo, hi))
    return x


def _ids(items, what):
    out = []
    for it in items:
        i = it["id"]
        if not isinstance(i, str) or not i or i in out:
            raise RuleError("config: bad or repeated %s id %r" % (what, i))
        out.append(i)
    return out


class HHConfig:
    def __init__(self, d):
        if not isinstance(d, dict):
            raise RuleError("config must be a dict")
        err = None
        try:
            self._load(d)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            err = e
        if err is not None:
            # Raised outside the handler: no exception chaining on MicroPython.
            raise RuleError("bad haunted house config: %r" % (err,))

    def _load(self, d):
        colours = d["colours"]
        for c in colours:
            if not isinstance(c, str) or not c or colours.count(c) != 1:
                raise RuleError("config: bad colour %r" % (c,))
        self.colours = list(colours)
        self.max_players = _int(d["max_players"], 1, len(colours), "max_players")
        self.min_players = _int(d["min_players"], 1, self.max_players, "min_players")
        self.dice = _int(d["dice_per_player"], 1, 20, "dice_per_player")
        self.limit = _int(d["summon_limit"], 0, 20, "summon_limit")
        self.rounds = _int(d["rounds"], 1, 20, "rounds")
        self.faces = _int(d["faces"], 1, 20, "faces")
        self.rotate = d["rotate_start_player"]
        if self.rotate is not True and self.rotate is not False:
            raise RuleError("config: rotate_start_player must be true/false")
        self.levels = _ids(d["levels"], "level")
        if not self.levels:
            raise RuleError("config: no levels")
        nl = {}
        k = len(self.levels)
        for i in range(k):
            # Monsters climb down one level per hit; the lowest wraps to the top.
            nl[self.levels[i]] = self.levels[(i + 1) % k]
        self.next_level = nl
        spot_ids = _ids(d["monster_spots"], "monster spot")
        self.monsters = _ids(d["monsters"], "monster")
        self.home = {}
        self.mspot = {}
        used = []
        for m in d["monsters"]:
            mid = m["id"]
            if m["home"] not in self.levels:
                raise RuleError("config: monster %s has an unknown home" % mid)
            self.home[mid] = m["home"]
            sp = {}
            for lv in self.levels:
                s = m["spots"][lv]
                if s not in spot_ids or s in used:
                    raise RuleError("config: monster %s spot %r" % (mid, s))
                used.append(s)
                sp[lv] = s
            self.mspot[mid] = sp
        ms = d["monster_scores"]
        if len(ms) != len(self.monsters) + 1:
            raise RuleError("config: monster_scores needs one entry per unique count")
        for i in range(len(ms)):
            _int(ms[i], 0, 1000, "monster score")
        self.mscores = list(ms)
        self.holes = _ids(d["holes"], "hole")
        self.realm_ids = _ids(d["realms"], "realm")
        self.realms = {}
        for r in d["realms"]:
            self.realms[r["id"]] = _int(r["multiplier"], 1, 100, "realm multiplier")
        self.clue_spots = _ids(d["clue_spots"], "clue spot")
        deck = d["clue_deck"]
        for v in deck:
            _int(v, 0, 1000, "clue value")
        self.deck = list(deck)
        self.deck_sorted = sorted(deck)
        best = 1
        for r in self.realm_ids:
            if self.realms[r] > best:
                best = self.realms[r]
        # Upper bound of one player's dice points in a round (for state checks).
        self.max_dice_points = (self.dice + self.limit) * self.faces * best
