# Checks a saved Haunted House state before HauntedHouse.from_dict rebuilds it:
# shapes, ranges and the cross-field invariants a real game always keeps; then
# rebuilds it (load). Imported lazily (a resume) and dropped again on the
# board, to save RAM during play.

from rules.errors import RuleError

KEYS = ("game", "v", "colours", "first", "round", "phase", "active", "turn_regular",
        "turn_launches", "dice_left", "summoned", "due", "on_table", "entries",
        "monsters", "hits", "rounds", "deck", "spots", "clues")


def _fail(msg):
    raise RuleError("bad haunted house state: " + msg)


def _int(x, lo, hi, what):
    if type(x) is not int or x < lo or x > hi:
        _fail("%s must be an int in %d..%d, got %r" % (what, lo, hi, x))
    return x


def _list(x, n, what):
    if not isinstance(x, list) or (n >= 0 and len(x) != n):
        _fail("%s must be a list%s" % (what, "" if n < 0 else " of %d" % n))
    return x


def _ints(x, n, lo, hi, what):
    _list(x, n, what)
    for v in x:
        _int(v, lo, hi, what)
    return x


def _str_in(x, allowed, what):
    if not isinstance(x, str) or x not in allowed:
        _fail("unknown %s %r" % (what, x))
    return x


def _same_keys(d, keys, what):
    if not isinstance(d, dict) or len(d) != len(keys):
        _fail("%s must map exactly %s" % (what, ",".join(keys)))
    for k in keys:
        if k not in d:
            _fail("%s lacks %s" % (what, k))


def check_state(cfg, d):
    if not isinstance(d, dict):
        _fail("not a dict")
    _same_keys(d, KEYS, "state")
    # "haunted_house": how firmware before the games' one names wrote it
    if d["game"] not in ("haunted-house", "haunted_house") or d["v"] != 1:
        _fail("not a version 1 haunted house state")
    colours = _list(d["colours"], -1, "colours")
    for c in colours:
        _str_in(c, cfg.colours, "colour")
        if colours.count(c) != 1:
            _fail("colour %s repeated" % c)
    n = len(colours)
    if not cfg.min_players <= n <= cfg.max_players:
        _fail("player count %d" % n)
    _int(d["first"], 0, n - 1, "first")
    rnd = _int(d["round"], 1, cfg.rounds, "round")
    phase = _str_in(d["phase"], ("launch", "flight", "round_end", "over"), "phase")
    playing = phase in ("launch", "flight")
    a = _int(d["active"], 0 if playing else -1, n - 1 if playing else -1, "active")
    tr = d["turn_regular"]
    if tr is not True and tr is not False:
        _fail("turn_regular must be a bool")
    tl = _int(d["turn_launches"], 0, 1 + cfg.limit, "turn_launches")
    dl = _ints(d["dice_left"], n, 0, cfg.dice, "dice_left")
    sm = _ints(d["summoned"], n, 0, cfg.limit, "summoned")
    due = _ints(d["due"], n, 0, cfg.limit, "due")
    ot = _ints(d["on_table"], n, 0, cfg.dice + cfg.limit, "on_table")
    entries = _list(d["entries"], n, "entries")
    for p in range(n):
        if due[p] > sm[p]:
            _fail("player %d owes more summoned dice than summoned" % p)
        if ot[p] > cfg.dice - dl[p] + sm[p] - due[p]:
            _fail("player %d has more dice on the machine than launched" % p)
        es = _list(entries[p], -1, "entries")
        if len(es) > ot[p] or (es and phase != "round_end"):
            _fail("player %d has impossible round-end entries" % p)
        for e in es:
            if e is None:
                continue
            _list(e, 2, "entry")
            _int(e[0], 1, cfg.faces, "face")
            if e[1] is not None:
                _str_in(e[1], cfg.realm_ids, "realm")
    mon = d["monsters"]
    _same_keys(mon, cfg.monsters, "monsters")
    for m in cfg.monsters:
        _str_in(mon[m], cfg.levels, "level")
    hits = _list(d["hits"], rnd, "hits")
    for row in hits:
        _list(row, n, "hits row")
        for h in row:
            _list(h, -1, "hits")
            for m in h:
                _str_in(m, cfg.monsters, "monster")
                if h.count(m) != 1:
                    _fail("monster %s counted twice in one round" % m)
    # Upper bound of one player's dice points in a round.
    best = 1
    for r in cfg.realm_ids:
        if cfg.realms[r] > best:
            best = cfg.realms[r]
    most = (cfg.dice + cfg.limit) * cfg.faces * best
    done = _list(d["rounds"], cfg.rounds if phase == "over" else rnd - 1, "rounds")
    for r in range(len(done)):
        _list(done[r], n, "round scores")
        for p in range(n):
            x = _list(done[r][p], 2, "round score")
            _int(x[0], 0, most, "dice points")
            if x[1] != cfg.mscores[len(hits[r][p])]:
                _fail("round %d monster points do not match the monsters hit" % (r + 1))
    _check_clues(cfg, d, n)
    if playing:
        if not tr and tl > 0 and dl[a] > 0:
            _fail("a turn launched summoned dice before its regular die")
        if tr and (tl < 1 or dl[a] >= cfg.dice):
            _fail("regular launch flag without a launch")
        if tl - (1 if tr else 0) > sm[a] - due[a]:
            _fail("more summoned launches this turn than summoned dice")
        if phase == "launch" and not ((not tr and dl[a] > 0) or due[a] > 0):
            _fail("active player has no die to launch")
        if phase == "flight" and tl < 1:
            _fail("flight without a launch")
    else:
        if tr or tl:
            _fail("turn bookkeeping outside a turn")
        for p in range(n):
            if dl[p] or due[p]:
                _fail("round ended with dice still to launch")
        if phase == "over":
            if rnd != cfg.rounds:
                _fail("game over before the last round")
            for p in range(n):
                if sm[p] or ot[p]:
                    _fail("dice left on the machine after the game")


def _check_clues(cfg, d, n):
    deck = _ints(d["deck"], -1, 0, 1000, "deck")
    spots = d["spots"]
    _same_keys(spots, cfg.clue_spots, "spots")
    clues = _list(d["clues"], n, "clues")
    every = list(deck)
    for s in cfg.clue_spots:
        v = spots[s]
        if v is not None:
            every.append(_int(v, 0, 1000, "clue value"))
    for c in clues:
        every += _ints(c, -1, 0, 1000, "clue value")
    if sorted(every) != sorted(cfg.deck):
        _fail("clues in deck, spots and hands do not make up the clue deck")


def load(cls, config, d):
    # HauntedHouse.from_dict: a checked copy of the saved state d.
    from rules.haunted_house_cfg import HHConfig
    cfg = config if isinstance(config, HHConfig) else HHConfig(config)
    check_state(cfg, d)
    g = cls(cfg, d["colours"], deck=list(cfg.deck), start=d["first"])
    g.round = d["round"]
    g.phase = d["phase"]
    g.active = d["active"]
    g.turn_regular = d["turn_regular"]
    g.turn_launches = d["turn_launches"]
    g.dice_left = list(d["dice_left"])
    g.summoned = list(d["summoned"])
    g.due = list(d["due"])
    g.on_table = list(d["on_table"])
    g.entries = [[None if e is None else list(e) for e in es] for es in d["entries"]]
    g.monsters = {}
    for m in cfg.monsters:
        g.monsters[m] = d["monsters"][m]
    g.hits = [[list(h) for h in row] for row in d["hits"]]
    g.rounds = [[list(x) for x in row] for row in d["rounds"]]
    g.deck = list(d["deck"])
    g.spots = {}
    for s in cfg.clue_spots:
        g.spots[s] = d["spots"][s]
    g.clues = [list(c) for c in d["clues"]]
    g.winners = []      # a finished game's: rules.haunted_house_rare.from_dict
    return g
