# Board settings (config get/set): validated against a schema, persisted in the
# store, applied at the next game start. A bad value is refused with a reason
# and changes nothing.

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
}

DEFAULTS = {
    "game": "roller-ghoster", "players": 4, "brightness": 0.15, "settle_ms": 1500,
    "reservoir": False, "watchdog": True, "resume": True, "quiet_ms": 1500,
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


class Settings:
    def __init__(self, store, overrides=None):
        self.store = store
        self.values = {}
        self.problem = None
        try:
            saved = store.load("config")
        except ValueError as e:
            saved = None
            self.problem = str(e)
            store.set_aside("config")
        if saved:
            for k in saved:
                if check(k, saved[k]) is None:
                    self.values[k] = saved[k]
                else:
                    self.problem = "ignored saved setting %s" % k
        if overrides:
            for k in overrides:
                self.values[k] = overrides[k]

    def get(self, key, default=None):
        if key in self.values:
            return self.values[key]
        if key in DEFAULTS:
            return DEFAULTS[key]
        return default

    def servo(self):
        out = {}
        for k in self.values:
            if k.startswith("servo."):
                out[k[6:]] = self.values[k]
        return out

    def set(self, key, value):
        err = check(key, value)
        if err is not None:
            return err
        trial = dict(self.values)
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
        self.values = trial
        self.store.save("config", self.values)
        return None

    def all(self):
        out = dict(DEFAULTS)
        for k in self.values:
            out[k] = self.values[k]
        return out
