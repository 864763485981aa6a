# Roller Ghoster rules: a pure state machine (no I/O, no clock, no randomness).
#
# Phases and who acts:
#   "roll"  CHANCE      ("roll", face)            face in FACES
#   "move"  turn player ("move",) or ("move", "wall"|"outer") when a star is passed
#   "ghost" turn player ("ghost", target, None|"wall"|"outer") or ("pass",) if no target
#   "balls" CHANCE      ("balls", (k, ...))       staircases a ball came down after the
#                                                 tower turned one notch (may be empty)
#   "over"  nobody
# Effects (tuples): ("turn", p) ("roll", p, face) ("move", p, from, to) ("slide", p, from, to)
#   ("climb", p, trench, star) ("skip", p, occupied, free) ("rotate", p) ("balls", stairs) ("hit", p, space, trench)
#   ("win", p) ("stay", p, trench)

from rules.errors import RuleError, CHANCE
from rules.roller_layout import Layout, START, TOP
from ram import unload

FACES = ("1", "2", "3", "1a", "2a", "ghost")
STEPS = {"1": 1, "2": 2, "3": 3, "1a": 1, "2a": 2}
ARROW = ("1a", "2a")
PHASES = ("roll", "move", "ghost", "balls", "over")
CHOICES = ("wall", "outer")
MIN_PLAYERS = 2
MAX_PLAYERS = 4
STATE_VERSION = 1


def _normalise(action):
    # JSON gives lists; the engine compares tuples. Ball staircases are a set.
    out = []
    for x in action:
        if isinstance(x, list):
            x = tuple(x)
        out.append(x)
    if out[0] == "balls" and len(out) == 2 and isinstance(out[1], tuple):
        try:
            out[1] = tuple(sorted(set(out[1])))
        except TypeError:
            pass
    return tuple(out)


class RollerGhoster:
    def __init__(self, layout, players, start=0):
        if isinstance(layout, dict):
            layout = Layout(layout)
        self.layout = layout
        if not isinstance(players, int) or isinstance(players, bool) or not (
                MIN_PLAYERS <= players <= MAX_PLAYERS):
            raise RuleError("players must be %d..%d" % (MIN_PLAYERS, MAX_PLAYERS))
        if not isinstance(start, int) or isinstance(start, bool) or not (0 <= start < players):
            raise RuleError("start player must be 0..%d" % (players - 1))
        self.players = players
        self.pos = [START] * players
        self.turn = start
        self.phase = "roll"
        self.face = None
        self.winner = None

    # ---- queries ---------------------------------------------------------

    @property
    def to_act(self):
        if self.phase in ("roll", "balls"):
            return CHANCE
        if self.phase == "over":
            return None
        return self.turn

    @property
    def n(self):
        # The player count under the name every engine gives it (app.py reads
        # `n` for play-again).
        return self.players

    def is_over(self):
        return self.phase == "over"

    def occupant(self, space, exclude=-1):
        # Index of the ghost standing on a step, or -1. Start and trenches hold many.
        if space == START or self.layout.trench_stair(space):
            return -1
        for p in range(self.players):
            if p != exclude and self.pos[p] == space:
                return p
        return -1

    def legal_actions(self):
        ph = self.phase
        if ph == "roll":
            return [("roll", f) for f in FACES]
        if ph == "move":
            return self._move_actions(self.turn, STEPS[self.face], "move")
        if ph == "ghost":
            acts = []
            for p in range(self.players):
                if p != self.turn and self._can_be_pushed(p):
                    for a in self._move_actions(p, 1, "ghost"):
                        acts.append(a)
            return acts if acts else [("pass",)]
        if ph == "balls":
            n = self.layout.n_stairs
            acts = []
            for mask in range(1 << n):
                acts.append(("balls", tuple(k + 1 for k in range(n) if mask & (1 << k))))
            return acts
        return []

    def _is_legal(self, action):
        # Same answer as `action in legal_actions()`, without building the list
        # for the chance phases (16 ball combinations, 6 faces) on every apply.
        ph = self.phase
        if ph == "roll":
            return len(action) == 2 and action[0] == "roll" and action[1] in FACES
        if ph == "balls":
            if len(action) != 2 or action[0] != "balls" or not isinstance(action[1], tuple):
                return False
            prev = 0
            for k in action[1]:
                if not isinstance(k, int) or isinstance(k, bool) or k <= prev or k > self.layout.n_stairs:
                    return False
                prev = k
            return True
        return action in self.legal_actions()

    def _can_be_pushed(self, p):
        # A ghost in a trench stays there until its owner's turn.
        return not self.layout.trench_stair(self.pos[p])

    def _move_actions(self, p, steps, kind):
        # Offer a path choice only when it changes where the ghost ends up.
        a = self._resolve(p, steps, "wall")
        b = self._resolve(p, steps, "outer")
        if a == b:
            choices = (None,)
        else:
            choices = CHOICES
        acts = []
        for c in choices:
            if kind == "move":
                acts.append(("move",) if c is None else ("move", c))
            else:
                acts.append(("ghost", p, c))
        return acts

    # ---- movement --------------------------------------------------------

    def _resolve(self, p, steps, choice):
        # Returns (climb star or None, counted end, landing after skipping occupied
        # steps, final space after a broken-step slide) for moving ghost p.
        lay = self.layout
        pos = self.pos[p]
        climb = None
        k = lay.trench_stair(pos)
        if k:
            # Climbing out onto the star above the trench is the first step.
            pos = "%d*" % k
            climb = pos
            steps -= 1
        while steps > 0 and pos != TOP:
            pos = lay.advance(pos, choice)
            steps -= 1
        counted = pos
        pos = self._skip_occupied(p, pos, choice)
        land = pos
        target = lay.broken.get(pos)
        if target is not None:
            pos = target if target == START else self._skip_occupied(p, target, choice)
        return (climb, counted, land, pos)

    def _skip_occupied(self, p, pos, choice):
        while pos != TOP and self.occupant(pos, p) >= 0:
            pos = self.layout.advance(pos, choice)
        return pos

    def _do_move(self, p, steps, choice, effects):
        climb, counted, land, final = self._resolve(p, steps, choice)
        src = self.pos[p]
        if climb is not None:
            effects.append(("climb", p, src, climb))
            src = climb
        if counted != src:
            effects.append(("move", p, src, counted))
        if land != counted:
            effects.append(("skip", p, counted, land))
        if final != land:
            effects.append(("slide", p, land, final))
        self.pos[p] = final
        if final == TOP:
            self.phase = "over"
            self.winner = p
            effects.append(("win", p))
            return True
        return False

    def preview(self, action):
        # Where a move or ghost action would leave the moved ghost (for displays).
        if action[0] == "move":
            return self._resolve(self.turn, STEPS[self.face], action[1] if len(action) > 1 else None)[3]
        if action[0] == "ghost":
            return self._resolve(action[1], 1, action[2])[3]
        return None

    # ---- actions ---------------------------------------------------------

    def apply(self, action):
        if not isinstance(action, (tuple, list)) or not action:
            raise RuleError("action must be a non-empty list")
        action = _normalise(action)
        if not self._is_legal(action):
            raise RuleError("illegal action %r in phase %s" % (action, self.phase))
        effects = []
        name = action[0]
        if name == "roll":
            face = action[1]
            self.face = face
            effects.append(("roll", self.turn, face))
            if face == "ghost":
                self.phase = "ghost"
            else:
                self.phase = "move"
        elif name == "move":
            choice = action[1] if len(action) > 1 else None
            if self._do_move(self.turn, STEPS[self.face], choice, effects):
                return effects
            if self.face in ARROW:
                effects.append(("rotate", self.turn))
                self.phase = "balls"
            else:
                self._next_turn(effects)
        elif name == "ghost":
            if self._do_move(action[1], 1, action[2], effects):
                return effects
            self._stay_effect(effects)
            self._next_turn(effects)
        elif name == "pass":
            self._stay_effect(effects)
            self._next_turn(effects)
        elif name == "balls":
            effects.append(("balls", action[1]))
            self._knock_down(action[1], effects)
            self._next_turn(effects)
        return effects

    def _stay_effect(self, effects):
        # A trenched ghost whose owner rolled the ghost face stays in the trench.
        if self.layout.trench_stair(self.pos[self.turn]):
            effects.append(("stay", self.turn, self.pos[self.turn]))

    def _knock_down(self, stairs, effects):
        lay = self.layout
        for p in range(self.players):
            k = lay.exposed.get(self.pos[p], 0)
            if k and k in stairs:
                trench = lay.trench(k)
                effects.append(("hit", p, self.pos[p], trench))
                self.pos[p] = trench

    def _next_turn(self, effects):
        self.turn = (self.turn + 1) % self.players
        self.phase = "roll"
        self.face = None
        effects.append(("turn", self.turn))

    # ---- persistence -----------------------------------------------------

    def to_dict(self):
        return {"game": "roller-ghoster", "v": STATE_VERSION, "players": self.players,
                "pos": list(self.pos), "turn": self.turn, "phase": self.phase,
                "face": self.face, "winner": self.winner}

    @classmethod
    def from_dict(cls, layout, d):
        # Validates and rebuilds a saved game (once per boot: the checks are
        # in rules/roller_ghoster_state.py, loaded for it and dropped again).
        from rules.roller_ghoster_state import load
        try:
            return load(cls, layout, d)
        finally:
            unload("rules.roller_ghoster_state")
