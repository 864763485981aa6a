# Scenario scripts for Haunted House: one command per line, '#' comments.
# MicroPython-compatible, so the same scripts run under CPython and in the VM.
#
# Setup (before the first action):
#   players orange yellow       colours in clockwise seat order
#   start yellow                start player (default: first listed)
#   deck 1 2 5                  these clue values are drawn first (spots in data
#                               order), the rest of the data deck follows
#   seed 7                      shuffle the clue deck with Rng(7) instead
# Actions (player colours become indices, digits become ints):
#   launch | monster_hit bob | clue_taken clue_top_left | circle orange
#   hole orange | off_table orange | end_turn
#   die_result orange 3 | die_result orange 3 ravens | die_lost orange | score_round
# Expectations:
#   expect phase flight          expect turn yellow          expect round 2
#   expect monster bob top       expect hits yellow bob,frank [round]  (or none)
#   expect round_score orange 1 28                           expect total orange 36
#   expect clues orange 3        expect clue_sum orange 8    expect deck_left 19
#   expect due orange 1          expect summoned orange 1    expect on_table orange 2
#   expect dice_left orange 3    expect spot clue_top_left empty|full
#   expect winner orange         expect winners orange,yellow
#   expect effect summoned orange now 1     expect noeffect monster_hit orange bob 1
#   expect illegal launch        (the action is refused and changes nothing)
# run() returns a transcript: one line per action and effect, for CPython/VM parity.

from rules.errors import RuleError
from rules.haunted_house import HauntedHouse
from rules.rng import Rng

ACTIONS = ("launch", "monster_hit", "clue_taken", "circle", "hole", "off_table",
           "end_turn", "die_result", "die_lost", "score_round")
# Effects whose argument at this index is a player.
PLAYER_AT = {"turn": 1, "launched": 1, "monster_hit": 1, "clue_taken": 1, "summoned": 1,
             "summon_refused": 1, "die_lost": 1, "extra_launch": 1, "dice_to_enter": 1,
             "die_scored": 1, "clues_revealed": 1, "final_score": 1,
             "round_scored": 2, "round_start": 2}


class ScenarioError(Exception):
    pass


def fmt(effect, names):
    out = [effect[0]]
    pi = PLAYER_AT.get(effect[0], -1)
    for i in range(1, len(effect)):
        x = effect[i]
        if i == pi:
            x = names[x]
        elif isinstance(x, tuple):
            if effect[0] == "game_over":
                x = ",".join([names[v] for v in x])
            else:
                x = ",".join([str(v) for v in x])
            x = x or "none"
        out.append(str(x))
    return " ".join(out)


def _deck_with_front(cfg, front):
    rest = list(cfg["clue_deck"])
    for v in front:
        if v not in rest:
            raise ScenarioError("deck: no clue %d left in the data deck" % v)
        rest.remove(v)
    return list(front) + rest


def run(text, cfg):
    names = []
    start = [0]
    deck = [None]
    seed = [None]
    state = {"game": None, "last": []}
    transcript = []
    lineno = [0]

    def fail(msg):
        raise ScenarioError("line %d: %s" % (lineno[0], msg))

    def pidx(name):
        if name not in names:
            fail("unknown player %r" % (name,))
        return names.index(name)

    def token(t):
        if t in names:
            return names.index(t)
        if t.isdigit() or (t[:1] == "-" and t[1:].isdigit()):
            return int(t)
        return t

    def game():
        g = state["game"]
        if g is None:
            if not names:
                fail("no 'players' line before the first action")
            try:
                if seed[0] is not None:
                    g = HauntedHouse(cfg, names, rng=Rng(seed[0]), start=start[0])
                else:
                    d = _deck_with_front(cfg, deck[0] or [])
                    g = HauntedHouse(cfg, names, deck=d, start=start[0])
            except RuleError as e:
                fail("setup refused: %s" % e)
            for e in g.setup_effects():
                transcript.append(fmt(e, names))
            state["game"] = g
        return g

    for raw in text.split("\n"):
        lineno[0] += 1
        line = raw.split("#")[0].strip()
        if not line:
            continue
        w = line.split()
        cmd = w[0]
        if cmd == "players":
            while names:
                names.pop()
            for x in w[1:]:
                names.append(x)
        elif cmd == "start":
            start[0] = pidx(w[1])
        elif cmd == "deck":
            deck[0] = [int(x) for x in w[1:]]
        elif cmd == "seed":
            seed[0] = int(w[1])
        elif cmd in ACTIONS:
            g = game()
            action = tuple([cmd] + [token(t) for t in w[1:]])
            try:
                effects = g.apply(action)
            except RuleError as e:
                fail("%s refused: %s" % (line, e))
            transcript.append("> " + line)
            for e in effects:
                transcript.append(fmt(e, names))
            state["last"] = effects
        elif cmd == "expect":
            _expect(game(), w[1:], names, pidx, token, fail, state["last"])
        else:
            fail("unknown command %r" % cmd)
    return transcript


def _check(ok, fail, msg):
    if not ok:
        fail(msg)


def _expect(g, w, names, pidx, token, fail, last):
    what = w[0]
    if what == "phase":
        _check(g.phase == w[1], fail, "phase is %s, expected %s" % (g.phase, w[1]))
    elif what == "turn":
        _check(g.active == pidx(w[1]), fail, "active is %r, expected %s" % (g.active, w[1]))
    elif what == "round":
        _check(g.round == int(w[1]), fail, "round is %d" % g.round)
    elif what == "monster":
        got = g.monsters[w[1]]
        _check(got == w[2], fail, "%s is on %s, expected %s" % (w[1], got, w[2]))
    elif what == "hits":
        want = [] if w[2] == "none" else w[2].split(",")
        rnd = int(w[3]) if len(w) > 3 else None
        got = g.monsters_hit(pidx(w[1]), rnd)
        _check(sorted(got) == sorted(want), fail, "%s hit %r, expected %r" % (w[1], got, want))
    elif what == "round_score":
        got = g.round_total(int(w[2]), pidx(w[1]))
        _check(got == int(w[3]), fail, "%s scored %d in round %s" % (w[1], got, w[2]))
    elif what == "total":
        got = g.score(pidx(w[1]))
        _check(got == int(w[2]), fail, "%s has %d points, expected %s" % (w[1], got, w[2]))
    elif what in ("clues", "clue_sum", "due", "summoned", "on_table", "dice_left"):
        p = pidx(w[1])
        if what == "clues":
            got = len(g.clue_values(p))
        elif what == "clue_sum":
            got = g.clue_total(p)
        else:
            got = getattr(g, what)[p]
        _check(got == int(w[2]), fail, "%s of %s is %d, expected %s" % (what, w[1], got, w[2]))
    elif what == "deck_left":
        _check(len(g.deck) == int(w[1]), fail, "deck has %d clues" % len(g.deck))
    elif what == "spot":
        full = g.spots[w[1]] is not None
        _check(full == (w[2] == "full"), fail, "spot %s full=%s" % (w[1], full))
    elif what == "winner":
        _check(g.winner == pidx(w[1]), fail, "winner is %r" % (g.winner,))
    elif what == "winners":
        want = [pidx(x) for x in w[1].split(",")]
        _check(g.winners == want, fail, "winners are %r" % (g.winners,))
    elif what in ("effect", "noeffect"):
        want = " ".join(w[1:])
        got = [fmt(e, names) for e in last]
        _check((want in got) == (what == "effect"), fail, "%s %r among %r" % (what, want, got))
    elif what == "illegal":
        action = tuple([token(t) for t in w[1:]])
        before = g.to_dict()
        try:
            g.apply(action)
        except RuleError:
            _check(g.to_dict() == before, fail, "a refused action changed the state")
            return
        fail("action %r was accepted" % (action,))
    else:
        fail("unknown expectation %r" % what)


def random_game(cfg, seed, players, end_bias=3):
    # A seeded random playout through legal actions only; returns the game and
    # its transcript. In flight the table settles with chance 1/end_bias per
    # step, so turns stay short. Deterministic on CPython and MicroPython.
    rng = Rng(seed)
    start = rng.below(players)
    g = HauntedHouse(cfg, players, rng=rng, start=start)
    names = g.colours
    transcript = [fmt(e, names) for e in g.setup_effects()]
    steps = 0
    while not g.is_over():
        acts = g.legal_actions()
        if g.phase == "flight" and rng.chance(1, end_bias):
            a = ("end_turn",)
        else:
            a = acts[rng.below(len(acts))]
        transcript.append("> " + " ".join([str(x) for x in a]))
        for e in g.apply(a):
            transcript.append(fmt(e, names))
        steps += 1
        if steps > 100000:
            raise ScenarioError("random game did not end")
    return g, transcript
