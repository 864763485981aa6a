# Star Trek: Super-Skill Pinball verbs for the scenario runner (runner.py).
# Players are numbered from 0 and written p0, p1 ...; a verb without one acts
# for the player to act (actions) or on p0 (set, expect). Die values, not die
# indices: "with 5" uses the free die showing 5.
#
# Setup:
#   table lower-decks            starfleet-academy | tribbles | lower-decks | borg-attack
#   players 3                    player count (default 1)
#   set [pN] FIELD VALUES        edit the saved state and reload it (checked
#                                by from_dict, so only a valid position loads);
#                                allowed at any time. FIELD: stars, round,
#                                nudges, namt, done, skills 1 3, flags KEY..., balls
#                                FEATURE|start|- FEATURE|start|-, filled
#                                FEATURE 0 1 1, x KEY VALUE (table extras;
#                                lists as 1,0,1)
# Actions (to the engine's tuples, see firmware/rules/superskill/engine.py):
#   roll 2 5
#   fill FEATURE[.BOX] with D [skill S] [nudge +N|-N] [ball B]
#   through SPINNER[.BOX|.none] FEATURE[.BOX] with D [skill S] [nudge N] [ball B]
#   wild SOURCE FEATURE[.BOX] with D to V [ball B]
#   drain [B] | bonus MENU OPTION | skill N | choose KIND ARGS... | pass
#   act WORDS...                 any other engine action (numbers become ints)
#   A fill without .BOX takes the box the engine offers for that value (or,
#   for "expect illegal", the first box of the feature showing it).
# Expectations:
#   expect stars [pN] 12         expect round [pN] 2      expect done [pN]
#   expect ball [pN] [bB] FEATURE|start|none              expect nballs [pN] 2
#   expect filled [pN] FEATURE 1 0 1                      expect nudges [pN] 1
#   expect namt [pN] 2           expect skills [pN] 1 3|none
#   expect flag [pN] KEY | expect noflag [pN] KEY         expect x [pN] KEY VALUE
#   expect phase move            expect turn pN|chance    expect winners 0 1|none
#   expect drain / expect nodrain      ("drain" offered for the ball to act)
#   expect nudged_fills N        fills/throughs with a Nudge on offer now
import json

from rules.superskill import START, SuperSkillGame
from scenarios.runner import Verbs, fmt_value

TABLES = {"starfleet-academy": "starfleet_academy", "tribbles": "tribbles",
          "lower-decks": "lower_decks", "borg-attack": "borg_attack"}


def _word(x):
    if x == "-" or x == "none":
        return None
    if x == "start":
        return START
    return x


def _num(x):
    if x.isdigit() or (x[:1] in "+-" and x[1:].isdigit()):
        return int(x)
    return x


class SuperSkillVerbs(Verbs):
    SETUP = ("table", "players", "set")
    ANYTIME = ("set",)

    def __init__(self, cfg, script):
        # cfg: a function table name -> table data (the runner reads no files)
        Verbs.__init__(self, cfg, script)
        self.table = None
        self.players = 1
        self.data = None

    # ---- setup ------------------------------------------------------------------

    def setup(self, cmd, w):
        if cmd == "table":
            if w[0] not in TABLES:
                self.fail("unknown table %r (one of %s)" % (w[0], " ".join(sorted(TABLES))))
            self.table = w[0]
            self.data = self.cfg(TABLES[w[0]])
        elif cmd == "players":
            self.players = self.int(w[0])
        elif cmd == "set":
            if self.game is None:
                self.new_game()
            self._set(w)

    def new_game(self):
        if self.data is None:
            self.fail("no 'table' line before the first action")
        self.game = SuperSkillGame(self.data, self.players)
        return []

    def _player(self, w):
        # optional leading pN; returns (player, rest)
        if w and w[0][:1] == "p" and w[0][1:].isdigit():
            p = int(w[0][1:])
            if p >= len(self.game.players):
                self.fail("no player %s" % w[0])
            return p, w[1:]
        return 0, w

    def _set(self, w):
        p, w = self._player(w)
        d = self.game.to_dict()
        pd = d["players"][p]
        field = w[0]
        args = w[1:]
        if field in ("stars", "round", "nudges", "namt", "fin"):
            pd[field] = self.int(args[0])
        elif field == "done":
            # a player whose game is over (finished on roll 0)
            pd["done"] = True
            pd["fin"] = 0
            pd["balls"] = [None, None]
        elif field == "skills":
            pd["skills"] = [] if args == ["none"] else [self.int(a) for a in args]
        elif field == "flags":
            pd["flags"] = [] if args == ["none"] else list(args)
        elif field == "balls":
            pd["balls"] = [_word(a) for a in args]
            pd["mb"] = pd["balls"][0] is not None and pd["balls"][1] is not None
        elif field == "filled":
            pd["filled"][args[0]] = [self.int(a) for a in args[1:]]
        elif field == "x":
            v = args[1]
            if "," in v:
                v = [_num(a) for a in v.split(",")]
            else:
                v = _num(v)
            pd["x"][args[0]] = v
        else:
            self.fail("set: unknown field %r" % field)
        try:
            self.game = SuperSkillGame.from_dict(self.data, json.loads(json.dumps(d)))
        except Exception as e:
            self.fail("set %s: the state does not load: %s" % (" ".join(w), e))

    # ---- actions ------------------------------------------------------------------

    def _opts(self, w, names):
        # trailing "name value" pairs after the positional words
        out = {}
        i = 0
        while i < len(w):
            if w[i] not in names or i + 1 >= len(w):
                self.fail("expected one of %s, got %r" % (" ".join(names), w[i]))
            out[w[i]] = w[i + 1]
            i += 2
        return out

    def _die(self, p, value):
        # index of the free die showing value
        g = self.game
        if g.dice is None:
            self.fail("no roll yet")
        for d in (0, 1):
            if g.dice[d] == value and d not in g.players[p].used:
                return d
        # a used die: the action is built anyway, for the engine to refuse
        for d in (0, 1):
            if g.dice[d] == value:
                return d
        self.fail("no die shows %d (roll %d %d)" % (value, g.dice[0], g.dice[1]))

    def _ball(self, p, o):
        if "ball" in o:
            return self.int(o["ball"])
        todo = self.game.players[p].todo
        return todo[0] if todo else 0

    def _box(self, spec):
        # FEATURE or FEATURE.BOX (None: the box is still to be found)
        if "." in spec:
            fid, box = spec.split(".", 1)
            return fid, (-1 if box == "none" else self.int(box))
        f = self.game.table.fmap.get(spec)
        if f is None:
            self.fail("no feature %r on this table" % spec)
        return spec, None

    def _guess_box(self, fid, value):
        f = self.game.table.fmap[fid]
        for i in range(f.nbox):
            if value in f.faces[i]:
                return i
        return 0

    def parse(self, w):
        cmd = w[0]
        g = self.game
        p = g.cur if g.cur >= 0 else 0
        if cmd == "roll":
            return [("roll", self.int(w[1]), self.int(w[2]))]
        if cmd == "drain":
            return [("drain", self.int(w[1]) if len(w) > 1 else self._ball(p, {}))]
        if cmd == "bonus":
            return [("bonus", w[1], w[2])]
        if cmd == "skill":
            return [("skill", self.int(w[1]))]
        if cmd == "choose":
            return [tuple(["choose"] + [_num(x) for x in w[1:]])]
        if cmd == "pass":
            return [("pass",)]
        if cmd == "act":
            return [tuple([_num(x) for x in w[1:]])]
        if cmd == "fill":
            if len(w) < 4 or w[2] != "with":
                self.fail("fill FEATURE[.BOX] with D [skill S] [nudge N] [ball B]")
            o = self._opts(w[4:], ("skill", "nudge", "ball"))
            return [self._fill(p, None, w[1], self.int(w[3]), o)]
        if cmd == "through":
            if len(w) < 5 or w[3] != "with":
                self.fail("through SPINNER[.BOX] FEATURE[.BOX] with D [skill S] [nudge N]")
            o = self._opts(w[5:], ("skill", "nudge", "ball"))
            return [self._fill(p, w[1], w[2], self.int(w[4]), o)]
        if cmd == "wild":
            if len(w) < 7 or w[3] != "with" or w[5] != "to":
                self.fail("wild SOURCE FEATURE[.BOX] with D to V [ball B]")
            o = self._opts(w[7:], ("ball",))
            b = self._ball(p, o)
            d = self._die(p, self.int(w[4]))
            v = self.int(w[6])
            fid, i = self._box(w[2])
            if i is None:
                i = self._offered(lambda a: a[0] == "wild" and a[1:6] == (b, d, w[1], v, fid), 6)
                if i is None:
                    i = self._guess_box(fid, v)
            return [("wild", b, d, w[1], v, fid, i)]
        return None

    def _offered(self, match, at):
        for a in self.game.legal_actions():
            if match(a):
                return a[at]
        return None

    def _fill(self, p, spin, spec, dv, o):
        b = self._ball(p, o)
        s = self.int(o.get("skill", "0"))
        n = self.int(o.get("nudge", "0"))
        d = self._die(p, dv)
        fid, i = self._box(spec)
        v = (s or dv) + n
        if spin is None:
            head = ("fill", b, d, s, n, fid)
            if i is None:
                i = self._offered(lambda a: a[:6] == head, 6)
                if i is None:
                    i = self._guess_box(fid, v)
            return head + (i,)
        sf, sb = self._box(spin)
        if sb is None:
            sb = self.game.spinner_box(p, sf, self.game.dice[1 - d])
        head = ("through", b, d, s, n, sf, sb, fid)
        if i is None:
            i = self._offered(lambda a: a[:8] == head, 8)
            if i is None:
                i = self._guess_box(fid, v)
        return head + (i,)

    # ---- expectations ----------------------------------------------------------------

    def expect(self, what, w):
        g = self.game
        if what == "phase":
            return self.check("phase", g.phase, w[0])
        if what == "turn":
            want = -1 if w[0] == "chance" else self.int(w[0][1:])
            return self.check("turn", g.cur, want)
        if what == "winners":
            want = [] if w == ["none"] else [self.int(x) for x in w]
            return self.check("winners", g.winners(), want)
        if what in ("drain", "nodrain"):
            p = g.cur
            b = self._ball(p, {})
            has = ("drain", b) in g.legal_actions()
            if has != (what == "drain"):
                self.fail("drain %s offered" % ("is" if has else "is not"))
            return
        if what == "nudged_fills":
            n = 0
            for a in g.legal_actions():
                if a[0] in ("fill", "through") and a[4]:
                    n += 1
            return self.check("nudged fills", n, self.int(w[0]))
        p, w = self._player(w)
        ps = g.players[p]
        if what in ("stars", "round", "nudges", "namt"):
            return self.check(what, getattr(ps, what), self.int(w[0]))
        if what == "done":
            return self.check("done", ps.done, True)
        if what == "nballs":
            return self.check("balls in play", ps.nballs(), self.int(w[0]))
        if what == "ball":
            b = 0
            if len(w) > 1:
                b = self.int(w[0][1:])
                w = w[1:]
            return self.check("ball %d" % b, ps.balls[b], _word(w[0]))
        if what == "filled":
            return self.check("filled " + w[0], ps.filled[w[0]], [self.int(x) for x in w[1:]])
        if what == "skills":
            want = [] if w == ["none"] else [self.int(x) for x in w]
            return self.check("skills", ps.skills, want)
        if what in ("flag", "noflag"):
            if (w[0] in ps.flags) != (what == "flag"):
                self.fail("flags are %r" % (ps.flags,))
            return
        if what == "x":
            got = ps.x.get(w[0])
            want = w[1]
            return self.check("x " + w[0], fmt_value(got) if isinstance(got, list)
                              else str(got), want)
        self.fail("unknown expectation %r" % what)
