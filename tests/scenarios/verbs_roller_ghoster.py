# Roller Ghoster verbs for the scenario runner (runner.py).
#
# Setup:
#   players red blue green     players in seat order (clockwise)
#   start blue                 start player (default: first)
#   place red 2w3              put a ghost on a space (test setup; also later)
# Actions:
#   roll 2a                    the die shows 2 + arrow (faces: 1 2 3 1a 2a ghost)
#   move | move wall | move outer
#   ghost blue | ghost blue outer | pass
#   balls 1 3 | balls none     staircases a ball came down after the rotation
# Expectations:
#   expect red at 1o2          expect turn blue    expect phase balls
#   expect winner red          expect nowinner
#   expect choice              expect nochoice     (a path choice is offered)
#   expect illegal move outer  expect effect hit red 1o2 1T
# The transcript is one line per effect, used for CPython/VM parity.

from rules.roller_ghoster import RollerGhoster
from scenarios.runner import Verbs


def fmt(effect, names):
    out = [effect[0]]
    for i in range(1, len(effect)):
        x = effect[i]
        if i == 1 and effect[0] != "balls" and isinstance(x, int):
            x = names[x]
        elif isinstance(x, tuple):
            x = ",".join([str(v) for v in x]) or "none"
        out.append(str(x))
    return " ".join(out)


class RollerVerbs(Verbs):
    SETUP = ("players", "start", "place")
    ANYTIME = ("place",)

    def __init__(self, cfg, script):
        Verbs.__init__(self, cfg, script)
        self.names = []
        self.start = 0
        self.placed = {}

    def pidx(self, name):
        if name not in self.names:
            self.fail("unknown player %r" % name)
        return self.names.index(name)

    def setup(self, cmd, w):
        if cmd == "players":
            self.names = w
        elif cmd == "start":
            self.start = self.pidx(w[0])
        elif cmd == "place":
            p = self.pidx(w[0])
            if self.game is None:
                self.placed[p] = w[1]
            else:
                self.game.pos[p] = w[1]

    def new_game(self):
        if not self.names:
            self.fail("no 'players' line before the first move")
        self.game = RollerGhoster(self.cfg, len(self.names), self.start)
        for p in self.placed:
            self.game.pos[p] = self.placed[p]
        return []

    def fmt(self, effect):
        return fmt(effect, self.names)

    def parse(self, w):
        cmd = w[0]
        if cmd == "roll":
            return [("roll", w[1])]
        if cmd == "move":
            return [("move",) if len(w) == 1 else ("move", w[1])]
        if cmd == "ghost":
            return [("ghost", self.pidx(w[1]), w[2] if len(w) > 2 else None)]
        if cmd == "pass":
            return [("pass",)]
        if cmd == "balls":
            stairs = () if w[1:] == ["none"] else tuple([int(x) for x in w[1:]])
            return [("balls", stairs)]
        return None

    def copy(self):
        return RollerGhoster.from_dict(self.cfg, self.game.to_dict())

    def expect(self, what, w):
        g = self.game
        names = self.names
        if len(w) == 2 and w[0] == "at":
            got = g.pos[self.pidx(what)]
            if got != w[1]:
                self.fail("%s is at %s, expected %s" % (what, got, w[1]))
        elif what == "turn":
            if g.turn != self.pidx(w[0]):
                self.fail("turn is %s, expected %s" % (names[g.turn], w[0]))
        elif what == "phase":
            if g.phase != w[0]:
                self.fail("phase is %s, expected %s" % (g.phase, w[0]))
        elif what == "winner":
            if g.winner is None or g.winner != self.pidx(w[0]):
                self.fail("winner is %r, expected %s" % (g.winner, w[0]))
        elif what == "nowinner":
            if g.winner is not None:
                self.fail("unexpected winner %s" % names[g.winner])
        elif what in ("choice", "nochoice"):
            acts = g.legal_actions()
            has = False
            for a in acts:
                if (a[0] == "move" and len(a) > 1) or (a[0] == "ghost" and a[2] is not None):
                    has = True
            if has != (what == "choice"):
                self.fail("path choice offered: %s (%r)" % (has, acts))
        else:
            self.fail("unknown expectation %r" % what)


def run(text, layout, name="script"):
    from scenarios.runner import run as run_script
    return run_script(text, RollerVerbs, layout, name)


def playout(layout, seed, players):
    # A seeded random game; returns its transcript (for CPython/VM parity).
    from rules.rng import Rng
    rng = Rng(seed)
    g = RollerGhoster(layout, players, rng.below(players))
    names = ["p%d" % i for i in range(players)]
    out = []
    while not g.is_over():
        for e in g.apply(rng.choice(g.legal_actions())):
            out.append(fmt(e, names))
    return out
