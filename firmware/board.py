# Board factory: builds the machine objects (Pin, PWM, NeoPixel) for a build
# from its pin map (firmware/boards/<build>.json). Drivers receive these objects;
# they never see pin numbers. In the simulator the same code runs against the
# fake machine module, so the simulated build is wired exactly like the real one.
#
# The map is checked before any pin is touched (pinmap_check.py, the same
# rules `hauntbox pins` and `hauntbox flash` apply), unless it is byte for byte
# the map the flash checked: a map the build cannot be wired from raises
# PinmapError, one line naming the key ("pixels.count: must be ..."); App then
# keeps the game off and reports it (games/halted.py).

import json

from machine import PWM, Pin

from ram import unload

_PULLS = {"up": Pin.PULL_UP, "down": Pin.PULL_DOWN}


_TEXT_KEYS = ("part", "comment", "note")


class PinmapError(ValueError):
    # A pin map the build cannot be wired from; str(e) is "<key>: <problem>".
    pass


def check_pinmap(pm, build):
    # Raises PinmapError with the first problem (and how many more there are).
    import pinmap_check
    try:
        problems = pinmap_check.check(pm, build)
    finally:
        unload("pinmap_check")
    if problems:
        more = len(problems) - 1
        raise PinmapError(problems[0] + (" (+%d more: run hauntbox pins)" % more if more else ""))


def _checked(root, path, raw):
    # True if `hauntbox flash` checked this very content with the same rules
    # (data/pinmaps_checked.json: path -> sha256, written by the build): then
    # the check's code, and the names it would intern for good, are not
    # loaded. A map edited or damaged on the board does not match: checked.
    try:
        import hashlib
        with open(root + "data/pinmaps_checked.json") as f:
            want = json.load(f).get(path)
        # hex by hand: binascii is built in on the rp2 port, but not everywhere
        return want == "".join("%02x" % b for b in hashlib.sha256(raw).digest())
    except Exception:  # noqa: BLE001 - no such file, no hashlib: check the map
        return False


def load_pinmap(build, root=""):
    # build: the build's name ("roller-ghoster"), which is also its file's
    # (boards/roller-ghoster.json); its map must say it is that build.
    path = "boards/" + build + ".json"
    try:
        with open(root + path, "rb") as f:
            raw = f.read()
    except OSError:
        raise PinmapError("%s: missing on the board (run hauntbox flash)" % path)
    try:
        pm = json.loads(raw)
    except Exception as e:  # noqa: BLE001 - ValueError, MemoryError, RuntimeError (nesting)
        raise PinmapError("%s: not a readable JSON file (%s)" % (path, type(e).__name__))
    if not _checked(root, path, raw):
        check_pinmap(pm, build)
    raw = None
    # The part descriptions are for people (hauntbox pins, the docs); drop them
    # so they do not sit in RAM for the whole game.
    for k in _TEXT_KEYS:
        pm.pop(k, None)
    for spec in pm.get("pins", {}).values():
        for k in _TEXT_KEYS:
            spec.pop(k, None)
    return pm


class Board:
    def __init__(self, pinmap):
        self.map = pinmap
        self.pins = pinmap["pins"]

    def has(self, name):
        return name in self.pins

    def spec(self, name):
        # The pin entry, or PinmapError naming it: a build that opens a pin the
        # checks did not require still fails with one clear line.
        p = self.pins.get(name)
        if not isinstance(p, dict) or not isinstance(p.get("gpio"), int):
            raise PinmapError("pins.%s: missing (this build needs it)" % name)
        return p

    def gpio(self, name):
        return self.spec(name)["gpio"]

    def input(self, name):
        p = self.spec(name)
        return Pin(p["gpio"], Pin.IN, _PULLS.get(p.get("pull"), None))

    def active_level(self, name):
        return self.spec(name).get("active", 0)

    def pwm(self, name):
        p = self.spec(name)
        return PWM(Pin(p["gpio"]), freq=p.get("freq", 50), duty_ns=0)

    def neopixel(self, name, count):
        import neopixel
        return neopixel.NeoPixel(Pin(self.spec(name)["gpio"], Pin.OUT), count)
