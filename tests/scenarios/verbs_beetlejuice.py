# Watch Out Beetlejuice verbs for the scenario runner (runner.py).
# Dice are numbered from 0 as in the engine; slots 0..2 left to right.
#
#   players 3 | players ann bob     player count or names (before the first action)
#   option expert | option compare_bj
#   deal r01 r11 r21            House draws (chance) for the empty slots, in order
#   drawbj b23                  Beetlejuice card drawn at the start of the turn
#   roll roach bj ghost ...     faces of the dice being rolled, in index order
#   die roach                   one die at a time
#   reroll 3 4 5 | stop | begin
#   collect 0 2 | collect none
#   pass b14 1                  hand a 2-skull card to player 1
#   handbook rolls4 | handbook take 1 | handbook ignore b23 | handbook summon
#   give 0 h1                   test setup before the first action: player 0 holds card
#                               (a Handbook, or a Resident as already scared)
#   expect phase decide         expect turn 1 (whose turn)
#   expect bj up|grave          expect slots r01 - r21   ('-' = empty)
#   expect won 0 r01 r21        expect books 0 h1       expect held 1 b14
#   expect three b23|none       expect bjpile r21       expect dice 7
#   expect rolls_left 2         expect threshold 4      expect forbidden ghost corpse
#   expect winner 0|bj|none     expect winners 0 1      expect points 0 7
#   expect legal reroll 0 1     expect illegal reroll 3 | expect illegal collect 0 1
#   expect effect bj_scares r21 (an effect of the last action)
#   expect noeffect summoned

from rules.beetlejuice import BeetlejuiceGame
from scenarios.runner import Verbs

def fmt(effect):
    out = []
    for x in effect:
        if isinstance(x, (tuple, list)):
            x = ",".join([str(v) for v in x]) or "none"
        elif x is None:
            x = "-"
        out.append(str(x))
    return " ".join(out)


def _ints(ws):
    return tuple([int(x) for x in ws])


def parse_action(w):
    cmd = w[0]
    if cmd == "deal":
        return [("draw_house", c) for c in w[1:]]
    if cmd == "drawbj":
        return [("draw_bj", w[1])]
    if cmd == "roll":
        return [("roll", tuple(w[1:]))]
    if cmd == "die":
        return [("die", w[1])]
    if cmd == "reroll":
        return [("reroll", _ints(w[1:]))]
    if cmd == "stop" or cmd == "begin":
        return [(cmd,)]
    if cmd == "collect":
        if w[1:] == ["none"]:
            return [("collect", ())]
        return [("collect", _ints(w[1:]))]
    if cmd == "pass":
        return [("pass", w[1], int(w[2]))]
    if cmd == "handbook":
        if len(w) == 2:
            return [("handbook", w[1])]
        arg = int(w[2]) if w[1] == "take" else w[2]
        return [("handbook", w[1], arg)]
    return None


class BeetlejuiceVerbs(Verbs):
    SETUP = ("players", "option", "give")

    def __init__(self, cfg, script):
        Verbs.__init__(self, cfg, script)
        self.players = 2
        self.options = {}
        self.gifts = []

    def setup(self, cmd, w):
        if cmd == "players":
            self.players = int(w[0]) if len(w) == 1 and w[0].isdigit() else w
        elif cmd == "option":
            self.options[w[0]] = True
        elif cmd == "give":
            self.gifts.append((int(w[0]), w[1]))

    def new_game(self):
        game = BeetlejuiceGame(self.cfg, self.players, None, self.options)
        for p, c in self.gifts:
            game.house.remove(c)
            if game.cfg.is_handbook(c):
                game.books[p].append(c)
            else:
                game.won[p].append(c)
        self.game = game
        return []

    def fmt(self, effect):
        return fmt(effect)

    def parse(self, w):
        return parse_action(w)

    def copy(self):
        return BeetlejuiceGame.from_dict(self.game.cfg, self.game.to_dict())

    def expect(self, what, w):
        _expect(self.game, [what] + w, self.fail)


def run(text, config, name="script"):
    from scenarios.runner import run as run_script
    return run_script(text, BeetlejuiceVerbs, config, name)


def _cards(ws):
    return [None if x == "-" else x for x in ws]


def _expect(game, w, fail):
    what = w[0]
    arg = w[1:]
    if what == "phase":
        got, want = game.phase, arg[0]
    elif what == "turn":
        got, want = game.cur, int(arg[0])
    elif what == "bj":
        got, want = ("up" if game.bj_up else "grave"), arg[0]
    elif what == "slots":
        got, want = list(game.slots), _cards(arg)
    elif what == "won":
        got, want = game.won[int(arg[0])], arg[1:]
    elif what == "books":
        got, want = game.books[int(arg[0])], arg[1:]
    elif what == "held":
        got, want = game.held[int(arg[0])], arg[1:]
    elif what == "three":
        got, want = game.three, (None if arg[0] == "none" else arg[0])
    elif what == "bjpile":
        got, want = game.bj_pile, arg
    elif what == "discard":
        got, want = game.bj_disc, arg
    elif what == "under":
        got, want = game.under, arg
    elif what == "dice":
        got, want = len(game.dice), int(arg[0])
    elif what == "rolls_left":
        got, want = game.rolls_left(), int(arg[0])
    elif what == "threshold":
        got, want = game.threshold(), int(arg[0])
    elif what == "forbidden":
        got, want = sorted(game.forbidden()), sorted(arg)
    elif what == "points":
        got, want = game.points(int(arg[0])), int(arg[1])
    elif what == "winner":
        want = None if arg[0] == "none" else ("bj" if arg[0] == "bj" else int(arg[0]))
        got = game.winner
        if got == -2:
            got = "bj"
    elif what == "winners":
        got, want = list(game.winners), [int(x) for x in arg]
    else:
        fail("unknown expectation %r" % what)
        return
    if got != want:
        fail("%s is %r, expected %r" % (what, got, want))


def playout(config, seed, players, options=None):
    # A seeded game with random legal choices; the transcript (for parity).
    from rules.beetlejuice import auto_chance
    from rules.errors import CHANCE
    from rules.rng import Rng
    rng = Rng(seed)
    g = BeetlejuiceGame(config, players, rng, options)
    out = []
    steps = 0
    while not g.is_over():
        if g.to_act == CHANCE:
            a = auto_chance(g, rng)
        else:
            acts = g.legal_actions()
            a = acts[rng.below(len(acts))]
        for e in g.apply(a):
            out.append(fmt(e))
        steps += 1
        if steps > 20000:
            raise RuntimeError("playout %d did not end" % seed)
    out.append("end %s %s turns %d" % (g.result, fmt(tuple(g.winners)), g.turn))
    return out
