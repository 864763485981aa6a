# The settings schema and its checker, imported only when a value is set or a
# saved config is loaded, and dropped again (games/settings.py): it is not in
# RAM for the rest of a game.
#
# Settings are checked as a whole, not one key at a time: a value can be
# fine on its own and wrong with the others (players for the game that is
# set; the servo pulses against each other). check_whole() is the one place
# for those rules, used at `config set` (checked_values) and when a saved
# config is loaded (sanitized).

from games.registry import PLAYERS, players_error

SCHEMA = {
    # key: (type, min, max) for numbers; (bool,) ; (str, choices)
    "game": ("str", tuple(sorted(PLAYERS))),
    "players": ("int", 1, 6),       # the widest range of any game; then the game's own
    "brightness": ("float", 0.0, 1.0),
    "settle_ms": ("int", 200, 10000),
    "reservoir": ("bool",),
    "watchdog": ("bool",),
    "resume": ("bool",),
    "servo.stop_ns": ("int", 500000, 2500000),
    "servo.forward_ns": ("int", 500000, 2500000),
    "servo.min_ns": ("int", 500000, 2500000),
    "servo.max_ns": ("int", 500000, 2500000),
    "servo.type": ("str", ("continuous", "ratchet")),
    "quiet_ms": ("int", 100, 10000),
    "beetlejuice.cards": ("str", ("firmware", "enter")),
    # Roller Ghoster: the firmware rolls the die, or the players roll the real
    # one and enter the face with the buttons (docs/protocol.md, "config").
    "roller-ghoster.die": ("str", ("electronic", "physical")),
}

# The order a saved config is taken in: a key that depends on another comes
# after it (players after game, the pulses after their limits), so the key
# that breaks a rule is the one left out.
ORDER = ("game", "players", "brightness", "settle_ms", "reservoir", "watchdog", "resume",
         "quiet_ms", "beetlejuice.cards", "roller-ghoster.die", "servo.type", "servo.min_ns", "servo.max_ns",
         "servo.stop_ns", "servo.forward_ns")

GAME_DEFAULT = "roller-ghoster"     # as games/settings.py DEFAULTS
PLAYERS_DEFAULT = 4
# The servo pulses a build uses when no setting says otherwise: the pin map's
# (boards/roller-ghoster.json "servo"; a test keeps both the same).
SERVO_DEFAULTS = {"min_ns": 1000000, "max_ns": 2000000, "stop_ns": 1500000,
                  "forward_ns": 1300000}


def check(key, value):
    # Returns an error string, or None if key=value is acceptable on its own.
    spec = SCHEMA.get(key)
    if spec is None:
        return "unknown setting %r" % (key,)
    kind = spec[0]
    if kind == "bool":
        if not isinstance(value, bool):
            return "%s must be true or false" % key
    elif kind == "str":
        if value not in spec[1]:
            return "%s must be one of %s" % (key, ", ".join(spec[1]))
    else:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "%s must be a number" % key
        if kind == "int" and not isinstance(value, int):
            return "%s must be a whole number" % key
        if not (spec[1] <= value <= spec[2]):
            return "%s must be between %s and %s" % (key, spec[1], spec[2])
    return None


def check_whole(values):
    # The rules between settings, on the values as the game will see them
    # (defaults for what is not set). An error string, or None.
    game = values.get("game", GAME_DEFAULT)
    err = players_error(game, values.get("players", PLAYERS_DEFAULT))
    if err is not None:
        return err
    s = {}
    for k in SERVO_DEFAULTS:
        s[k] = values.get("servo." + k, SERVO_DEFAULTS[k])
    if not s["min_ns"] < s["max_ns"]:
        return "servo.min_ns must be below servo.max_ns"
    for k in ("stop_ns", "forward_ns"):
        if not s["min_ns"] <= s[k] <= s["max_ns"]:
            return "servo.%s must lie within servo.min_ns..servo.max_ns (%d..%d)" % (
                k, s["min_ns"], s["max_ns"])
    if s["stop_ns"] == s["forward_ns"]:
        return "servo.forward_ns must differ from servo.stop_ns"
    return None


def checked_values(values, key, value):
    # The settings `values` with key=value, or an error string.
    err = check(key, value)
    if err is not None:
        return err
    trial = dict(values)
    trial[key] = value
    err = check_whole(trial)
    if err is not None:
        return err
    return trial


def sanitized(saved):
    # A saved config taken key by key (ORDER) as far as the whole stays
    # valid: (values, problems). A key that is unknown, wrong on its own or
    # breaks a rule with the keys before it is left out (its default holds)
    # and named in `problems`.
    values = {}
    problems = []
    for k in saved:
        if k not in SCHEMA:
            problems.append("config.json: unknown setting %s ignored" % k)
    for k in ORDER:
        if k in saved:
            trial = checked_values(values, k, saved[k])
            if isinstance(trial, str):
                problems.append("config.json: %s ignored: %s" % (k, trial))
            else:
                values = trial
    return values, problems
