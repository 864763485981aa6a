# Scenario scripts for Roller Ghoster: one command per line, '#' comments.
# MicroPython-compatible, so the same scripts run under CPython and in the VM.
#
#   players red blue green     players in seat order (clockwise)
#   start blue                 start player (default: first)
#   place red 2w3              put a ghost on a space (test setup)
#   roll 2a                    the die shows 2 + arrow (faces: 1 2 3 1a 2a ghost)
#   move | move wall | move outer
#   ghost blue | ghost blue outer | pass
#   balls 1 3 | balls none     staircases a ball came down after the rotation
#   expect red at 1o2          expect turn blue    expect phase balls
#   expect winner red          expect choice       expect nochoice
#   expect illegal move outer  expect effect hit red 1o2 1T
# Returns a transcript: one line per effect, used for CPython/VM parity.

from rules.errors import RuleError
from rules.roller_ghoster import RollerGhoster


class ScenarioError(Exception):
    pass


def _fmt(effect, names):
    out = [effect[0]]
    for i in range(1, len(effect)):
        x = effect[i]
        if i == 1 and effect[0] != "balls" and isinstance(x, int):
            x = names[x]
        elif isinstance(x, tuple):
            x = ",".join([str(v) for v in x]) or "none"
        out.append(str(x))
    return " ".join(out)


def run(text, layout):
    names = []
    game = None
    start = 0
    transcript = []
    placed = {}
    lineno = 0

    def fail(msg):
        raise ScenarioError("line %d: %s" % (lineno, msg))

    def pidx(name):
        if name not in names:
            fail("unknown player %r" % name)
        return names.index(name)

    def ensure_game():
        g = game
        if g is None:
            if not names:
                fail("no 'players' line before the first move")
            g = RollerGhoster(layout, len(names), start)
            for p in placed:
                g.pos[p] = placed[p]
        return g

    def act(action):
        try:
            effects = game.apply(action)
        except RuleError as e:
            fail(str(e))
        for e in effects:
            transcript.append(_fmt(e, names))
        return effects

    last_effects = []
    for raw in text.split("\n"):
        lineno += 1
        line = raw.split("#")[0].strip()
        if not line:
            continue
        w = line.split()
        cmd = w[0]
        if cmd == "players":
            names = w[1:]
        elif cmd == "start":
            start = pidx(w[1])
        elif cmd == "place":
            p = pidx(w[1])
            if game is None:
                placed[p] = w[2]
            else:
                game.pos[p] = w[2]
        elif cmd == "roll":
            game = ensure_game()
            last_effects = act(("roll", w[1]))
        elif cmd == "move":
            last_effects = act(("move",) if len(w) == 1 else ("move", w[1]))
        elif cmd == "ghost":
            last_effects = act(("ghost", pidx(w[1]), w[2] if len(w) > 2 else None))
        elif cmd == "pass":
            last_effects = act(("pass",))
        elif cmd == "balls":
            stairs = () if w[1:] == ["none"] else tuple([int(x) for x in w[1:]])
            last_effects = act(("balls", stairs))
        elif cmd == "expect":
            game = ensure_game()
            _expect(game, w[1:], names, pidx, fail, last_effects)
        else:
            fail("unknown command %r" % cmd)
    return transcript


def _expect(game, w, names, pidx, fail, last_effects):
    what = w[0]
    if len(w) == 3 and w[1] == "at":
        got = game.pos[pidx(w[0])]
        if got != w[2]:
            fail("%s is at %s, expected %s" % (w[0], got, w[2]))
    elif what == "turn":
        if game.turn != pidx(w[1]):
            fail("turn is %s, expected %s" % (names[game.turn], w[1]))
    elif what == "phase":
        if game.phase != w[1]:
            fail("phase is %s, expected %s" % (game.phase, w[1]))
    elif what == "winner":
        if game.winner is None or game.winner != pidx(w[1]):
            fail("winner is %r, expected %s" % (game.winner, w[1]))
    elif what == "nowinner":
        if game.winner is not None:
            fail("unexpected winner %s" % names[game.winner])
    elif what in ("choice", "nochoice"):
        acts = game.legal_actions()
        has = False
        for a in acts:
            if (a[0] == "move" and len(a) > 1) or (a[0] == "ghost" and a[2] is not None):
                has = True
        if has != (what == "choice"):
            fail("path choice offered: %s (%r)" % (has, acts))
    elif what == "illegal":
        cmd = w[1]
        if cmd == "move":
            action = ("move",) if len(w) == 2 else ("move", w[2])
        elif cmd == "ghost":
            action = ("ghost", pidx(w[2]), w[3] if len(w) > 3 else None)
        elif cmd == "roll":
            action = ("roll", w[2])
        elif cmd == "pass":
            action = ("pass",)
        else:
            fail("expect illegal: unsupported %r" % cmd)
        before = game.to_dict()
        try:
            game.apply(action)
        except RuleError:
            if game.to_dict() != before:
                fail("a rejected action changed the state")
            return
        fail("action %r was accepted" % (action,))
    elif what == "effect":
        want = " ".join(w[1:])
        got = [_fmt(e, names) for e in last_effects]
        if want not in got:
            fail("effect %r not among %r" % (want, got))
    else:
        fail("unknown expectation %r" % what)


def playout(layout, seed, players):
    # A seeded random game; returns its transcript (for CPython/VM parity).
    from rules.rng import Rng
    rng = Rng(seed)
    g = RollerGhoster(layout, players, rng.below(players))
    names = ["p%d" % i for i in range(players)]
    out = []
    while not g.is_over():
        for e in g.apply(rng.choice(g.legal_actions())):
            out.append(_fmt(e, names))
    return out
