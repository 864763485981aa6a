# Watch Out Beetlejuice: validation of saved states (from_dict). Every card must
# be in exactly one zone that can hold it, and the phase must be consistent.

# Imported by BeetlejuiceGame.from_dict only (a resumed game), and dropped
# again when done, so its code is not resident while a game is simply played.

from rules.errors import RuleError
from rules.beetlejuice import STATE_VERSION
from rules.beetlejuice_cards import find, is_int
from ram import unload

PHASES = ("deal", "draw_bj", "prep", "roll", "decide", "collect", "pass", "over")
AFTER = ("", "start", "begin", "roll", "decide")


def restore(cls, config, d):
    # BeetlejuiceGame.from_dict: load(), any malformed part of the save (a
    # missing key, a wrong type) reported as a RuleError; this module dropped.
    err = None
    try:
        return load(cls, config, d)
    except RuleError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        err = "bad saved state: %r" % (e,)
    finally:
        unload("rules.beetlejuice_state")
    raise RuleError(err)


def _canon(cfg, cid):
    # The config's own string for a card id (the restored game's lists then
    # share it rather than hold copies: the ids the JSON parser made, ~2.5 KB
    # for a full deck, are dropped); anything else unchanged.
    if isinstance(cid, str):
        k = find(cfg.house_ids, cid)
        if k >= 0:
            return cfg.house_ids[k]
        k = find(cfg.bj_ids, cid)
        if k >= 0:
            return cfg.bj_ids[k]
    return cid


def load(cls, config, d):
    # Rebuild a game of class `cls` from a saved dict, validating everything.
    if not isinstance(d, dict) or d.get("v") != STATE_VERSION:
        raise RuleError("bad saved state version")
    names = d["names"]
    if not isinstance(names, list):
        raise RuleError("bad names")
    g = cls(config, names, None, {"expert": d["expert"], "compare_bj": d["compare"]})
    cfg = g.cfg
    n = g.n
    for k in ("expert", "compare", "bj_up", "hb_used", "rolls4", "bjre"):
        if not isinstance(d[k], bool):
            raise RuleError("bad %s" % k)


    def canon(cid):
        return _canon(cfg, cid)

    def strlist(v, what):
        # A copy whose card ids are the config's own strings: the ids the JSON
        # parser made (~2.5 KB for a full deck) are then dropped.
        if not isinstance(v, list):
            raise RuleError("bad " + what)
        for x in v:
            if not isinstance(x, str):
                raise RuleError("bad " + what)
        return [canon(x) for x in v]

    def per_player(v, what):
        if not isinstance(v, list) or len(v) != n:
            raise RuleError("bad " + what)
        return [strlist(x, what) for x in v]

    g.house = strlist(d["house"], "house")
    g.under = strlist(d["under"], "under")
    slots = d["slots"]
    if not isinstance(slots, list) or len(slots) != cfg.slots:
        raise RuleError("bad slots")
    for s in slots:
        if s is not None and not isinstance(s, str):
            raise RuleError("bad slots")
    g.slots = [None if s is None else canon(s) for s in slots]
    g.bj_deck = strlist(d["bj_deck"], "bj_deck")
    g.bj_disc = strlist(d["bj_disc"], "bj_disc")
    g.bj_up = d["bj_up"]
    g.three = canon(d["three"]) if isinstance(d["three"], str) else d["three"]
    g.one = canon(d["one"]) if isinstance(d["one"], str) else d["one"]
    g.held = per_player(d["held"], "held")
    g.won = per_player(d["won"], "won")
    g.books = per_player(d["books"], "books")
    g.bj_pile = strlist(d["bj_pile"], "bj_pile")
    g.spent = strlist(d["spent"], "spent")
    # every card exactly once, each in a zone that can hold it
    house_seen = list(g.house) + list(g.under) + [s for s in g.slots if s is not None]
    house_seen += g.bj_pile + g.spent
    for p in range(n):
        house_seen += g.won[p] + g.books[p]
        for c in g.won[p]:
            if not cfg.is_resident(c):
                raise RuleError("only Residents can be scared: %s" % c)
        for c in g.books[p]:
            if not cfg.is_handbook(c):
                raise RuleError("not a Handbook: %s" % c)
        for c in g.held[p]:
            if not cfg.is_bj(c) or cfg.skulls(c) != 2:
                raise RuleError("only 2-skull cards are held: %s" % c)
    for c in g.bj_pile:
        if not cfg.is_resident(c):
            raise RuleError("Beetlejuice scares Residents only")
    for c in g.spent:
        if not cfg.is_handbook(c):
            raise RuleError("only Handbooks are spent")
    if sorted(house_seen) != list(cfg.house_ids):
        raise RuleError("House cards missing or duplicated")
    bj_seen = g.bj_deck + g.bj_disc
    for p in range(n):
        bj_seen += g.held[p]
    if g.three is not None:
        if not cfg.is_bj(g.three) or cfg.skulls(g.three) != 3:
            raise RuleError("bad 3-skull card")
        bj_seen.append(g.three)
    if g.one is not None:
        if not cfg.is_bj(g.one) or cfg.skulls(g.one) != 1:
            raise RuleError("bad 1-skull card")
        bj_seen.append(g.one)
    if sorted(bj_seen) != list(cfg.bj_ids):
        raise RuleError("Beetlejuice cards missing or duplicated")
    if not g.bj_up and (g.three is not None or g.one is not None
                        or [h for h in g.held if h]):
        raise RuleError("Beetlejuice cards in play while he is in his grave")
    for k in ("cur", "turn", "rolls"):
        if not is_int(d[k]) or d[k] < 0:
            raise RuleError("bad " + k)
    g.cur = d["cur"]
    g.turn = d["turn"]
    g.rolls = d["rolls"]
    if g.cur >= n:
        raise RuleError("bad cur")
    g.phase = d["phase"]
    g.after = d["after"]
    if g.phase not in PHASES or g.after not in AFTER:
        raise RuleError("bad phase")
    g.hb_used = d["hb_used"]
    g.rolls4 = d["rolls4"]
    g.bjre = d["bjre"]
    g.ignored = canon(d["ignored"]) if isinstance(d["ignored"], str) else d["ignored"]
    if g.ignored is not None and g.ignored not in g.affecting():
        raise RuleError("ignored card does not affect the player")
    g.dice = strlist(d["dice"], "dice")
    for f in g.dice:
        if f != "" and f not in cfg.symbols:
            raise RuleError("bad die face")
    g.rolling = d["rolling"]
    g.pending = strlist(d["pending"], "pending")
    if not isinstance(g.rolling, list):
        raise RuleError("bad rolling")
    g.rolling = list(g.rolling)
    for i in g.rolling:
        if not is_int(i) or not 0 <= i < len(g.dice) or g.dice[i] != "":
            raise RuleError("bad rolling")
    for f in g.pending:
        if f not in cfg.symbols:
            raise RuleError("bad pending face")
    if len(g.dice) > cfg.dice or g.rolls > cfg.handbook_rolls + cfg.rolls:
        raise RuleError("bad dice")
    g.result = d["result"]
    g.winners = d["winners"]
    if not isinstance(g.winners, list):
        raise RuleError("bad winners")
    for w in g.winners:
        if not is_int(w) or not 0 <= w < n:
            raise RuleError("bad winners")
    check_phase(g)
    return g


def check_phase(g):
    # The phase-specific invariants of a (restored) game.
    p = g.phase
    over = p == "over"
    if over != (g.result in ("players", "bj")) or (not over and g.result is not None):
        raise RuleError("result does not match phase")
    if (p == "deal") != (g.after != ""):
        raise RuleError("continuation only while dealing")
    if p == "deal" and (None not in g.slots or not g._house_candidates()):
        raise RuleError("nothing to deal")
    if p == "draw_bj" and (not g.bj_up or not g.bj_deck):
        raise RuleError("no Beetlejuice card to draw")
    if p == "prep" and (not g.books[g.cur] or g.hb_used or g.dice):
        raise RuleError("bad prep state")
    if p == "roll":
        if not g.rolling or len(g.pending) >= len(g.rolling):
            raise RuleError("bad roll state")
    elif g.rolling or g.pending:
        raise RuleError("dice rolling outside the roll phase")
    if p in ("decide", "collect") and (not g.dice or "" in g.dice):
        raise RuleError("dice not rolled")
    if p == "pass" and not g.held[g.cur]:
        raise RuleError("nothing to pass")
    if p in ("decide", "collect", "roll") and g.rolls > g.rolls_max():
        raise RuleError("too many rolls")
