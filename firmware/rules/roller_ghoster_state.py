# Roller Ghoster: a saved game checked and rebuilt (RollerGhoster.from_dict).
# Runs once per boot, so this module is loaded for it and dropped again
# (ram.py): the checks are not in RAM during play.

from rules.errors import RuleError
from rules.roller_ghoster import ARROW, PHASES, STATE_VERSION, STEPS
from rules.roller_layout import START, TOP


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def load(cls, layout, d):
    if not isinstance(d, dict):
        raise RuleError("state must be an object")
    if d.get("game") != "roller-ghoster" or d.get("v") != STATE_VERSION:
        raise RuleError("state is not a roller-ghoster v%d state" % STATE_VERSION)
    n = d.get("players")
    turn = d.get("turn")
    # JSON true is an int to Python (True == 1): a damaged save must not read
    # as player 1 (players, turn, winner are checked as ints, not bools).
    if not _is_int(n):
        raise RuleError("state: 'players' must be a whole number")
    if not _is_int(turn):
        raise RuleError("state: bad turn %r" % (turn,))
    g = cls(layout, n, turn if 0 <= turn < n else -1)
    pos = d.get("pos")
    if not isinstance(pos, list) or len(pos) != n:
        raise RuleError("state: 'pos' must list %d spaces" % n)
    seen = {}
    for p in range(n):
        s = pos[p]
        if not isinstance(s, str) or not g.layout.is_valid_position(s):
            raise RuleError("state: bad space %r" % (s,))
        if s != START and not g.layout.trench_stair(s):
            if s in seen:
                raise RuleError("state: two ghosts on %s" % s)
            seen[s] = p
    phase = d.get("phase")
    if phase not in PHASES:
        raise RuleError("state: bad phase %r" % (phase,))
    face = d.get("face")
    winner = d.get("winner")
    at_top = [p for p in range(n) if pos[p] == TOP]
    if winner is not None and not _is_int(winner):
        raise RuleError("state: bad winner %r" % (winner,))
    if phase == "over":
        if len(at_top) != 1 or winner != at_top[0]:
            raise RuleError("state: a finished game needs exactly one ghost at the top")
    else:
        if at_top or winner is not None:
            raise RuleError("state: a ghost at the top but the game is not over")
    if phase in ("move", "balls"):
        if face not in STEPS or (phase == "balls" and face not in ARROW):
            raise RuleError("state: face %r does not fit phase %s" % (face, phase))
    elif phase == "ghost":
        if face != "ghost":
            raise RuleError("state: phase ghost needs the ghost face")
    elif face is not None and phase != "over":
        raise RuleError("state: no face expected in phase %s" % phase)
    g.pos = list(pos)
    g.phase = phase
    g.face = face
    g.winner = winner
    return g
