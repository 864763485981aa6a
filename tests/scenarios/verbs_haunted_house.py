# Haunted House verbs for the scenario runner (runner.py).
#
# Setup (before the first action):
#   players orange yellow       colours in clockwise seat order
#   start yellow                start player (default: first listed)
#   deck 1 2 5                  these clue values are drawn first (spots in data
#                               order), the rest of the data deck follows
#   seed 7                      (common verb) shuffle the clue deck with Rng(7) instead
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
from scenarios.runner import Verbs

ACTIONS = ("launch", "monster_hit", "clue_taken", "circle", "hole", "off_table",
           "end_turn", "die_result", "die_lost", "score_round")
# Effects whose argument at this index is a player.
PLAYER_AT = {"turn": 1, "launched": 1, "monster_hit": 1, "clue_taken": 1, "summoned": 1,
             "summon_refused": 1, "die_lost": 1, "extra_launch": 1, "dice_to_enter": 1,
             "die_scored": 1, "clues_revealed": 1, "final_score": 1,
             "round_scored": 2, "round_start": 2}


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
            raise ValueError("deck: no clue %d left in the data deck" % v)
        rest.remove(v)
    return list(front) + rest


class HauntedHouseVerbs(Verbs):
    SETUP = ("players", "start", "deck")
    ECHO = True

    def __init__(self, cfg, script):
        Verbs.__init__(self, cfg, script)
        self.names = []
        self.start = 0
        self.deck = None

    def pidx(self, name):
        if name not in self.names:
            self.fail("unknown player %r" % (name,))
        return self.names.index(name)

    def token(self, t):
        if t in self.names:
            return self.names.index(t)
        if t.isdigit() or (t[:1] == "-" and t[1:].isdigit()):
            return int(t)
        return t

    def setup(self, cmd, w):
        if cmd == "players":
            self.names = list(w)
        elif cmd == "start":
            self.start = self.pidx(w[0])
        elif cmd == "deck":
            self.deck = [int(x) for x in w]

    def new_game(self):
        if not self.names:
            self.fail("no 'players' line before the first action")
        cfg = self.cfg
        try:
            if self.seed is not None:
                g = HauntedHouse(cfg, self.names, rng=Rng(self.seed), start=self.start)
            else:
                try:
                    d = _deck_with_front(cfg, self.deck or [])
                except ValueError as e:
                    self.fail(str(e))
                g = HauntedHouse(cfg, self.names, deck=d, start=self.start)
        except RuleError as e:
            self.fail("setup refused: %s" % e)
        self.game = g
        return g.setup_effects()

    def fmt(self, effect):
        return fmt(effect, self.names)

    def parse(self, w):
        if w[0] in ACTIONS:
            return [tuple([w[0]] + [self.token(t) for t in w[1:]])]
        return None

    def copy(self):
        return HauntedHouse.from_dict(self.cfg, self.game.to_dict())

    def expect(self, what, w):
        _expect(self.game, [what] + w, self.names, self.pidx, self.fail)


def run(text, cfg, name="script"):
    from scenarios.runner import run as run_script
    return run_script(text, HauntedHouseVerbs, cfg, name)


def _check(ok, fail, msg):
    if not ok:
        fail(msg)


def _expect(g, w, names, pidx, fail):
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
            raise RuntimeError("random game did not end")
    return g, transcript
