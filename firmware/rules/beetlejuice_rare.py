# Watch Out Beetlejuice: the rare events of a game, as functions of the game
# (rules/beetlejuice.py): setting up a new game, the Handbooks, Beetlejuice
# summoned or banished, the 2-skull cards at the end of a turn, the Residents
# replaced, the grave reshuffled, the end of the game, and the lists of legal
# actions the board's own turn loop rarely asks for.
#
# BeetlejuiceGame._rare() imports this module for one call and, on the board,
# drops it again (ram.unload): a turn without any of these events runs with
# only the engine's core resident (docs/performance.md, the Beetlejuice heap).
# On CPython the module simply stays imported.

from rules.errors import RuleError
from rules.beetlejuice_cards import Config, is_int, subset
from rules.beetlejuice import auto_chance


def setup(g, config, players, rng, options):
    # BeetlejuiceGame.__init__ (see there).
    g.cfg = config if isinstance(config, Config) else Config(config)
    cfg = g.cfg
    if is_int(players):
        names = ["P%d" % (i + 1) for i in range(players)]
    elif isinstance(players, (list, tuple)):
        names = [str(p) for p in players]
    else:
        raise RuleError("players must be a count or a list of names")
    if not cfg.min_players <= len(names) <= cfg.max_players:
        raise RuleError("players must be %d..%d" % (cfg.min_players, cfg.max_players))
    opts = options or {}
    g.names = names
    g.n = len(names)
    g.expert = bool(opts.get("expert", False))
    g.compare = bool(opts.get("compare_bj", False))
    g.house = list(cfg.house_ids)
    g.under = []
    g.slots = [None] * cfg.slots
    g.bj_deck = list(cfg.bj_ids)
    g.bj_disc = []
    g.bj_up = False
    g.three = None
    g.one = None
    g.held = [[] for _ in names]
    g.won = [[] for _ in names]
    g.books = [[] for _ in names]
    g.bj_pile = []
    g.spent = []
    g.cur = 0
    g.turn = 0
    g.phase = "deal"
    g.after = "start"
    g.dice = []
    g.rolling = []
    g.pending = []
    g._rolled = None
    g._reset_turn()
    g.result = None
    g.winners = []
    g._view = None       # see state_view()
    # The index tuples this game will use (every set of slots, all the dice
    # of a roll), made now rather than over the first games (see subset).
    for m in range(1 << cfg.slots):
        subset(m)
    for k in range(cfg.min_dice, cfg.dice + 1):
        subset((1 << k) - 1)
    if rng is not None:
        while g.phase == "deal":
            g.apply(auto_chance(g, rng))


# ---- legal actions ----------------------------------------------------------

def listed(g):
    # legal_actions() in the phases the board lists rarely or never: a card to
    # deal or draw, a die face, the Handbook before rolling, a 2-skull pass.
    p = g.phase
    if p == "deal":
        return [("draw_house", c) for c in g._house_candidates()]
    if p == "draw_bj":
        return [("draw_bj", c) for c in g.bj_deck]
    if p == "roll":
        return [("die", s) for s in g.cfg.symbols]
    if p == "prep":
        return [("begin",)] + g.handbook_actions()
    if p == "pass":
        return [("pass", c, t) for c in g.held[g.cur] for t in range(g.n) if t != g.cur]
    return []


# ---- the Handbook -----------------------------------------------------------

def handbook(g, a, fx):
    eff = a[1]
    book = g.books[g.cur].pop(0)
    g.spent.append(book)
    g.hb_used = True
    arg = a[2] if len(a) > 2 else None
    fx.append(("handbook", g.cur, eff, arg))
    in_prep = g.phase == "prep"
    if eff == "ignore":
        g.ignored = arg
    elif eff == "rolls4":
        g.rolls4 = True
    elif eff == "reroll_bj":
        g.bjre = True
    elif eff == "summon":
        _summon(g, fx)
        if g._check_end(fx):
            return
        g._deal_then("begin", fx)
        return
    elif eff == "banish":
        _banish(g, fx)
    elif eff == "take":
        c = g.slots[arg]
        g.won[g.cur].append(c)
        g.slots[arg] = None
        fx.append(("took", g.cur, c))
        g._deal_then("begin" if in_prep else "decide", fx)
        return
    if in_prep:
        g._begin(fx)
    else:
        g._to_decide(fx)


# ---- Beetlejuice comes and goes ---------------------------------------------

def trigger(g, count, fx):
    # Enough Beetlejuice symbols rolled: he is summoned, or banished if up.
    fx.append(("bj_trigger", g.cur, count))
    if g.bj_up:
        _banish(g, fx)
    else:
        _summon(g, fx)
    g._cleanup(fx)


def _summon(g, fx):
    g.bj_up = True
    fx.append(("summoned",))
    best = -1
    for i in range(len(g.slots)):
        c = g.slots[i]
        if c is not None and g.cfg.is_resident(c):
            if best < 0 or g.cfg.points(c) > g.cfg.points(g.slots[best]):
                best = i
    if best >= 0:
        c = g.slots[best]
        g.bj_pile.append(c)
        g.slots[best] = None
        fx.append(("bj_scares", c))


def _banish(g, fx):
    gone = []
    if g.three is not None:
        gone.append(g.three)
    for h in g.held:
        gone.extend(h)
    if g.one is not None:
        gone.append(g.one)
    g.bj_disc.extend(gone)
    g.three = None
    g.one = None
    g.held = [[] for _ in range(g.n)]
    g.ignored = None
    g.bj_up = False
    fx.append(("banished", tuple(gone)))


def reshuffle(g, fx):
    # The grave is empty: the box bottom becomes the grave again.
    g.bj_deck = sorted(g.bj_disc)
    g.bj_disc = []
    fx.append(("bj_reshuffle", len(g.bj_deck)))


def replace(g, fx):
    # A "replace" card: the face-up cards go under the House pile, new ones
    # are dealt, then the dice are rolled.
    old = [c for c in g.slots if c is not None]
    g.under.extend(old)
    g.slots = [None] * len(g.slots)
    fx.append(("replace_residents", tuple(old)))
    g._deal_then("roll", fx)


# ---- 2-skull cards at the end of a turn -------------------------------------

def held(g, fx):
    # The player to act holds 2-skull cards as the turn ends (and the game
    # goes on): alone, they are discarded; with one other player the pass is
    # forced; otherwise the player chooses whom to pass one to.
    if g.n == 1:
        for c in g.held[g.cur]:
            g.bj_disc.append(c)
            fx.append(("bj_discard", c))
        g.held[g.cur] = []
        g._cleanup(fx)
        return
    h = g.held[g.cur]
    if len(h) == 1 and g.n == 2:
        pass_card(g, h[0], 1 - g.cur, fx)
        return
    g.phase = "pass"


def pass_card(g, card, to, fx):
    for c in g.held[g.cur]:
        if c != card:
            g.bj_disc.append(c)
            fx.append(("bj_discard", c))
    g.held[g.cur] = []
    g.held[to].append(card)
    fx.append(("passed", g.cur, card, to))
    g._cleanup(fx)


# ---- the end ------------------------------------------------------------------

def finish(g, who, fx):
    g.phase = "over"
    g.after = ""
    g.result = who
    if who == "players":
        pts = [g.points(p) for p in range(g.n)]
        best = max(pts)
        g.winners = [p for p in range(g.n) if pts[p] == best]
    else:
        g.winners = []
    fx.append(("game_over", who, tuple(g.winners)))
    if g.compare:
        for p in range(g.n):
            fx.append(("versus_bj", p, g.points(p), g.bj_points()))
