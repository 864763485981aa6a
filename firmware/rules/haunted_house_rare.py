# Boxtop Pinball: Haunted House rules: the parts a turn never runs. Setting a
# game up, scoring a round and ending the game (three times a game), copies of
# the state (a host's "state", tests) and the text of every refused action.
# rules/haunted_house.py loads this module for one call and drops it again
# (ram.unload): on the board its bytecode then costs no RAM during play
# (measured on the rp2 port: docs/performance.md, "The heap census").

from rules.errors import RuleError
from rules.haunted_house import OVER
from rules.haunted_house_cfg import HHConfig
from ram import unload

# The refused actions' messages, by the numbers rules/haunted_house.py raises
# them with (_E_*): only text, so the resident module holds no strings for them.
MESSAGES = (
    "action must be a non-empty tuple",             # 0
    "the game is over",                             # 1
    "die_result takes player, face[, realm]",       # 2
    "%d dice of player %d not entered",             # 3
    "unknown action %r",                            # 4
    "%s takes %d arguments",                        # 5
    "%s is not allowed in phase %s",                # 6
    "no player %r",                                 # 7
    "player %d has no die on the machine",          # 8
    "player %d has no die left to enter",           # 9
    "player %d has no die to launch",               # 10
    "no monster %r",                                # 11
    "no clue spot %r",                              # 12
    "clue spot %s is empty",                        # 13
    "bad face %r",                                  # 14
    "no haunted realm %r",                          # 15
)


def _is_int(x):
    return type(x) is int


def _player_colours(cfg, players):
    if _is_int(players):
        if not cfg.min_players <= players <= cfg.max_players:
            raise RuleError("players must be %d..%d" % (cfg.min_players, cfg.max_players))
        return cfg.colours[:players]
    if not isinstance(players, (list, tuple)):
        raise RuleError("players: a count or a list of colours")
    out = []
    for c in players:
        if c not in cfg.colours or c in out:
            raise RuleError("bad or repeated colour %r" % (c,))
        out.append(c)
    if not cfg.min_players <= len(out) <= cfg.max_players:
        raise RuleError("players must be %d..%d" % (cfg.min_players, cfg.max_players))
    return out


def _check_deck(cfg, deck):
    if not isinstance(deck, (list, tuple)):
        raise RuleError("deck order must be a list")
    for v in deck:
        if type(v) is not int:
            raise RuleError("deck values must be ints")
    if sorted(deck) != sorted(cfg.deck):
        raise RuleError("deck order is not a permutation of the clue deck")
    return list(deck)


def setup(g, config, players, rng, deck, start):
    # HauntedHouse.__init__: checks the arguments, then deals the clues.
    cfg = config if isinstance(config, HHConfig) else HHConfig(config)
    colours = _player_colours(cfg, players)
    n = len(colours)
    if not _is_int(start) or not 0 <= start < n:
        raise RuleError("start player must be 0..%d" % (n - 1))
    if (rng is None) == (deck is None):
        raise RuleError("pass exactly one of rng or deck")
    if deck is None:
        order = list(cfg.deck)
        rng.shuffle(order)
    else:
        order = _check_deck(cfg, deck)
    g.cfg = cfg
    g._view = None       # see HauntedHouse.state_view()
    g.colours = colours
    g.n = n
    g.first = start
    g.round = 1
    g.deck = order
    g.spots = {}
    for s in cfg.clue_spots:
        g.spots[s] = None
    _refill(g)
    g.monsters = {}
    for m in cfg.monsters:
        g.monsters[m] = cfg.home[m]
    _reset_dice(g)
    g.hits = [g._empty()]
    g.rounds = []
    g.clues = g._empty()
    g.winners = []
    g.active = -1
    g._begin_turn(start)


def setup_effects(g):
    # What the players place before the first launch (prompts for the table).
    out = []
    for m in g.cfg.monsters:
        out.append(("monster_home", m, g.monsters[m], g.monsters[m], g.monster_spot(m)))
    for s in g.cfg.clue_spots:
        if g.spots[s] is not None:
            out.append(("clue_placed", s))
    out.append(("turn", g.active, g.round))
    return out


def from_dict(cls, config, d):
    # HauntedHouse.from_dict: the saved game's checks are loaded for it and
    # dropped again.
    from rules.haunted_house_state import load
    try:
        g = load(cls, config, d)
    finally:
        unload("rules.haunted_house_state")
    if g.phase == OVER:
        g.winners = winners(g)
    return g


# ---- the end of a round, and of the game -------------------------------------

def score_round(g):
    # The ("score_round",) action once its phase and size are checked.
    for p in range(g.n):
        if g.dice_to_enter(p) > 0:
            raise RuleError(MESSAGES[3] % (g.dice_to_enter(p), p))
    cfg = g.cfg
    r = g.round
    out = []
    row = []
    for p in range(g.n):
        d = _dice_points(g, p)
        m = cfg.mscores[len(g.hits[r - 1][p])]
        row.append([d, m])
        out.append(("round_scored", r, p, d, m, d + m))
    g.rounds.append(row)
    if r >= cfg.rounds:
        return out + _finish(g)
    out.append(("collect_dice",))
    for m in cfg.monsters:
        lv = g.monsters[m]
        home = cfg.home[m]
        if lv != home:
            g.monsters[m] = home
            out.append(("monster_home", m, lv, home, cfg.mspot[m][home]))
    _reset_dice(g)
    out += _refill(g)
    g.round = r + 1
    g.hits.append(g._empty())
    q = round_start_player(g)
    out.append(("round_start", g.round, q))
    return out + g._begin_turn(q)


def round_start_player(g, rnd=None):
    r = g.round if rnd is None else rnd
    if g.cfg.rotate:
        return (g.first + r - 1) % g.n
    return g.first


def _dice_points(g, p):
    t = 0
    for e in g.entries[p]:
        if e is not None:
            t += e[0] * (g.cfg.realms[e[1]] if e[1] is not None else 1)
    return t


def _finish(g):
    g.phase = OVER
    g.active = -1
    g.turn_regular = False
    g.turn_launches = 0
    z = [0] * g.n
    g.dice_left = list(z)
    g.summoned = list(z)
    g.due = list(z)
    g.on_table = list(z)
    g.entries = g._empty()
    g.winners = winners(g)
    out = []
    for p in range(g.n):
        out.append(("clues_revealed", p, tuple(g.clues[p]), g.clue_total(p)))
    totals = g.final_scores()
    last = len(g.rounds)
    for p in range(g.n):
        out.append(("final_score", p, totals[p], g.round_total(last, p)))
    out.append(("game_over", tuple(g.winners)))
    return out


def winners(g):
    # Most points wins; a tie goes to the most points in the final round;
    # players still level share the win.
    totals = g.final_scores()
    best = max(totals)
    tied = [p for p in range(g.n) if totals[p] == best]
    if len(tied) > 1:
        last = len(g.rounds)
        lb = max([g.round_total(last, p) for p in tied])
        tied = [p for p in tied if g.round_total(last, p) == lb]
    return tied


def _reset_dice(g):
    n = g.n
    g.dice_left = [g.cfg.dice] * n
    g.summoned = [0] * n
    g.due = [0] * n
    g.on_table = [0] * n
    g.entries = g._empty()


def _refill(g):
    out = []
    for s in g.cfg.clue_spots:
        if g.spots[s] is None and g.deck:
            g.spots[s] = g.deck.pop(0)
            out.append(("clue_placed", s))
    return out


# ---- copies of the state -------------------------------------------------------

def _copy(x):
    # A copy of nested lists and dicts (their other values are immutable).
    if isinstance(x, list):
        return [_copy(y) for y in x]
    if isinstance(x, dict):
        d = {}
        for k in x:
            d[k] = _copy(x[k])
        return d
    return x


def to_dict(g):
    # An independent copy of the state (JSON-serialisable).
    return _copy(g.state_view())


def to_public_dict(g):
    # Everything a spectator may see; clue values stay hidden until the end.
    d = to_dict(g)
    del d["deck"]
    d["deck_left"] = len(g.deck)
    spots = {}
    for s in g.spots:
        spots[s] = g.spots[s] is not None
    d["spots"] = spots
    d["clue_counts"] = [len(c) for c in g.clues]
    if g.phase != "over":
        del d["clues"]
    d["scores"] = [g.score(p) for p in range(g.n)]
    d["winners"] = list(g.winners)
    return d
