# One scenario language for every game: this core reads the script, and a
# per-game verb table (tests/scenarios/verbs_<game>.py) knows the game.
# MicroPython-compatible: the same scripts run under CPython and in the VM.
#
# A script is one command per line; '#' starts a comment. Common verbs:
#   seed 7                       seed the game's chance (what it seeds is the game's)
#   expect effect WORDS          the last action produced this effect line
#   expect noeffect WORDS        ... did not
#   expect legal ACTION          the action would be accepted (tried on a copy)
#   expect illegal ACTION        it is refused and the refusal changes nothing
#   expect illegal ACTION -- TEXT   ... and the refusal's message contains TEXT
# Everything else is the game's: setup verbs (before the first action), action
# verbs and other expectations. A failure names the script, the line and what
# differed: "name.txt line 12: stars is 3, expected 4".
#
# A verb table is a class deriving from Verbs below; run() returns the
# transcript (one line per effect; the game may echo its actions too), which
# the VM tests compare between CPython and MicroPython.

from rules.errors import RuleError


class ScenarioError(Exception):
    pass


def fmt_value(x):
    if isinstance(x, (tuple, list)):
        return ",".join([str(v) for v in x]) or "none"
    if x is None:
        return "-"
    return str(x)


def fmt_effect(effect):
    # The default effect line: the words joined, lists as a,b,c.
    return " ".join([fmt_value(x) for x in effect])


class Verbs:
    # Setup verbs: names handled by setup() while no action has been played.
    SETUP = ()
    # Echo each action line ("> line") in the transcript before its effects.
    ECHO = False

    def __init__(self, cfg, script):
        self.cfg = cfg
        self.script = script
        self.game = None
        self.seed = None

    def fail(self, msg):
        self.script.fail(msg)

    # ---- what a game provides -------------------------------------------------

    def setup(self, cmd, w):
        # A setup verb (cmd in SETUP); w: its words after the verb.
        self.fail("unknown command %r" % cmd)

    def new_game(self):
        # Build the game from the setup; return the effects setup produced.
        raise NotImplementedError

    def parse(self, w):
        # The engine actions one action line stands for (a list), or None.
        return None

    def apply(self, action):
        return self.game.apply(action)

    def fmt(self, effect):
        return fmt_effect(effect)

    def expect(self, what, w):
        # A game expectation: what is its name, w its words; unknown: fail.
        self.fail("unknown expectation %r" % what)

    def snapshot(self):
        return self.game.to_dict()

    def copy(self):
        # A throwaway copy of the game for "expect legal".
        return self.game.clone()

    # ---- helpers for the verb tables ---------------------------------------------

    def check(self, what, got, want):
        if got != want:
            self.fail("%s is %r, expected %r" % (what, got, want))

    def int(self, word):
        try:
            return int(word)
        except ValueError:
            self.fail("not a number: %r" % word)


class Script:
    def __init__(self, name):
        self.name = name
        self.lineno = 0

    def fail(self, msg):
        raise ScenarioError("%s line %d: %s" % (self.name, self.lineno, msg))


def run(text, verbs, cfg, name="script"):
    # verbs: the game's Verbs class; cfg: its data (or whatever it takes).
    script = Script(name)
    v = verbs(cfg, script)
    transcript = []
    last = []
    for raw in text.split("\n"):
        script.lineno += 1
        line = raw.split("#")[0].strip()
        if not line:
            continue
        w = line.split()
        cmd = w[0]
        if cmd == "seed":
            if v.game is not None:
                v.fail("seed after the game started")
            v.seed = v.int(w[1]) if len(w) == 2 else v.fail("seed takes one number")
            continue
        if cmd in v.SETUP and (v.game is None or cmd in getattr(v, "ANYTIME", ())):
            v.setup(cmd, w[1:])
            continue
        if cmd in v.SETUP:
            v.fail("%s after the game started" % cmd)
        if v.game is None:
            for e in v.new_game() or ():
                transcript.append(v.fmt(e))
        if cmd == "expect":
            if len(w) < 2:
                v.fail("expect what?")
            if not _common_expect(v, w[1], w[2:], last):
                v.expect(w[1], w[2:])
            continue
        actions = v.parse(w)
        if actions is None:
            v.fail("unknown command %r" % cmd)
        if v.ECHO:
            transcript.append("> " + line)
        last = []
        for a in actions:
            try:
                fx = v.apply(a)
            except RuleError as e:
                v.fail("%s refused: %s" % (line, e))
            last.extend(fx)
            for e in fx:
                transcript.append(v.fmt(e))
    return transcript


def _common_expect(v, what, w, last):
    if what == "effect" or what == "noeffect":
        want = " ".join(w)
        lines = [v.fmt(e) for e in last]
        if (want in lines) != (what == "effect"):
            v.fail("effect %r %s among %r" % (want, "missing" if what == "effect"
                                               else "present", lines))
        return True
    if what == "legal" or what == "illegal":
        text = None
        if "--" in w:
            k = w.index("--")
            text = " ".join(w[k + 1:])
            w = w[:k]
        actions = v.parse(w)
        if not actions or len(actions) != 1:
            v.fail("expect %s: not one action: %s" % (what, " ".join(w)))
        action = actions[0]
        if what == "legal":
            game = v.game
            v.game = v.copy()
            try:
                v.apply(action)
            except RuleError as e:
                v.fail("%r is refused: %s" % (action, e))
            finally:
                v.game = game
            return True
        before = v.snapshot()
        try:
            v.apply(action)
        except RuleError as e:
            if v.snapshot() != before:
                v.fail("a refused action changed the state")
            if text is not None and text not in str(e):
                v.fail("refusal %r does not say %r" % (str(e), text))
            return True
        v.fail("action %r was accepted" % (action,))
    return False
