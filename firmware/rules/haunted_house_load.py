# Boxtop Pinball: Haunted House: parses and checks data/haunted-house.json into
# the fields of rules.haunted_house_cfg.HHConfig. HHConfig() imports this and,
# on MicroPython, drops it again: parsing happens once per boot, so its code
# need not stay in RAM.

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


def parse(d):
    # The fields of an HHConfig, as a dict, from the JSON dict d.
    colours = d["colours"]
    for c in colours:
        if not isinstance(c, str) or not c or colours.count(c) != 1:
            raise RuleError("config: bad colour %r" % (c,))
    max_players = _int(d["max_players"], 1, len(colours), "max_players")
    dice = _int(d["dice_per_player"], 1, 20, "dice_per_player")
    limit = _int(d["summon_limit"], 0, 20, "summon_limit")
    faces = _int(d["faces"], 1, 20, "faces")
    rotate = d["rotate_start_player"]
    if rotate is not True and rotate is not False:
        raise RuleError("config: rotate_start_player must be true/false")
    levels = _ids(d["levels"], "level")
    if not levels:
        raise RuleError("config: no levels")
    nl = {}
    k = len(levels)
    for i in range(k):
        # Monsters climb down one level per hit; the lowest wraps to the top.
        nl[levels[i]] = levels[(i + 1) % k]
    spot_ids = _ids(d["monster_spots"], "monster spot")
    monsters = _ids(d["monsters"], "monster")
    home = {}
    mspot = {}
    used = []
    for m in d["monsters"]:
        mid = m["id"]
        if m["home"] not in levels:
            raise RuleError("config: monster %s has an unknown home" % mid)
        home[mid] = m["home"]
        sp = {}
        for lv in levels:
            s = m["spots"][lv]
            if s not in spot_ids or s in used:
                raise RuleError("config: monster %s spot %r" % (mid, s))
            used.append(s)
            sp[lv] = s
        mspot[mid] = sp
    ms = d["monster_scores"]
    if len(ms) != len(monsters) + 1:
        raise RuleError("config: monster_scores needs one entry per unique count")
    for i in range(len(ms)):
        _int(ms[i], 0, 1000, "monster score")
    realm_ids = _ids(d["realms"], "realm")
    realms = {}
    for r in d["realms"]:
        realms[r["id"]] = _int(r["multiplier"], 1, 100, "realm multiplier")
    deck = d["clue_deck"]
    for v in deck:
        _int(v, 0, 1000, "clue value")
    return {
        "colours": list(colours), "max_players": max_players,
        "min_players": _int(d["min_players"], 1, max_players, "min_players"),
        "dice": dice, "limit": limit, "rounds": _int(d["rounds"], 1, 20, "rounds"),
        "faces": faces, "rotate": rotate, "levels": levels, "next_level": nl,
        "monsters": monsters, "home": home, "mspot": mspot, "mscores": list(ms),
        "holes": _ids(d["holes"], "hole"), "realm_ids": realm_ids, "realms": realms,
        "clue_spots": _ids(d["clue_spots"], "clue spot"), "deck": list(deck),
    }


def fill(cfg, d):
    # HHConfig.__init__: the fields of cfg from the JSON dict d.
    if not isinstance(d, dict):
        raise RuleError("config must be a dict")
    err = None
    try:
        p = parse(d)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        err = e
    if err is not None:
        # Raised outside the handler: no exception chaining on MicroPython.
        raise RuleError("bad haunted house config: %r" % (err,))
    for k in p:
        setattr(cfg, k, p[k])
