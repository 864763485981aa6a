# The settings schema and its checker, imported only when a value is set or a
# saved config is loaded, and dropped again (games/settings.py): it is not in
# RAM for the rest of a game.

SCHEMA = {
    # key: (type, min, max) for numbers; (bool,) ; (str, choices)
    "game": ("str", ("roller-ghoster", "haunted-house", "beetlejuice", "superskill")),
    "players": ("int", 1, 4),
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
}


def check(key, value):
    # Returns an error string, or None if key=value is acceptable.
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


def checked_values(values, key, value):
    # The settings `values` with key=value, or an error string. The servo
    # pulses are checked together: min below max, stop and forward within.
    err = check(key, value)
    if err is not None:
        return err
    trial = dict(values)
    trial[key] = value
    s = {}
    for k in ("min_ns", "max_ns", "stop_ns", "forward_ns"):
        if "servo." + k in trial:
            s[k] = trial["servo." + k]
    lo = s.get("min_ns", 1000000)
    hi = s.get("max_ns", 2000000)
    if not lo < hi:
        return "servo.min_ns must be below servo.max_ns"
    for k in ("stop_ns", "forward_ns"):
        if k in s and not (lo <= s[k] <= hi):
            return "servo.%s must lie within servo.min_ns..servo.max_ns" % k
    return trial
