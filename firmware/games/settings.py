# Board settings (config get/set): validated against a schema
# (games/settings_schema.py), persisted in the store, applied at the next game
# start. A bad value is refused with a reason and changes nothing.
#
# Checking runs when a saved config is loaded or a value is set, never during
# play: the schema module is loaded for it and dropped again (ram.py). A saved
# config is checked as a whole: keys that do not fit are left out (their
# defaults hold) and named in `problems` (App reports them as faults); the
# file is not rewritten, so nothing is lost until the next `config set`.

from ram import unload

DEFAULTS = {
    "game": "roller-ghoster", "players": 4, "brightness": 0.15, "settle_ms": 1500,
    "reservoir": False, "watchdog": True, "resume": True, "quiet_ms": 1500,
}


class Settings:
    def __init__(self, store, overrides=None):
        self.store = store
        self.values = {}
        self.problems = []
        try:
            saved = store.load("config", False)
        except ValueError as e:
            saved = None
            self.problems.append("config.json set aside: %s" % e)
            store.set_aside("config")
        if saved:
            from games.settings_schema import sanitized
            try:
                self.values, self.problems = sanitized(saved)
            finally:
                unload("games.settings_schema")
                unload("games.registry")
        if overrides:
            for k in overrides:
                self.values[k] = overrides[k]

    def get(self, key, default=None):
        if key in self.values:
            return self.values[key]
        if key in DEFAULTS:
            return DEFAULTS[key]
        return default

    def set(self, key, value):
        # Returns an error string (nothing changed), or None (set and saved).
        from games.settings_schema import checked_values
        try:
            trial = checked_values(self.values, key, value)
        finally:
            unload("games.settings_schema")
            unload("games.registry")
        if isinstance(trial, str):
            return trial
        self.store.save("config", trial, False)
        self.values = trial
        return None

    def all(self):
        out = dict(DEFAULTS)
        for k in self.values:
            out[k] = self.values[k]
        return out
