# Board settings (config get/set): validated against a schema
# (games/settings_schema.py), persisted in the store, applied at the next game
# start. A bad value is refused with a reason and changes nothing.

DEFAULTS = {
    "game": "roller-ghoster", "players": 4, "brightness": 0.15, "settle_ms": 1500,
    "reservoir": False, "watchdog": True, "resume": True, "quiet_ms": 1500,
}


def check(key, value):
    # Returns an error string, or None if key=value is acceptable.
    from games.settings_schema import check as _check
    return _check(key, value)


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
