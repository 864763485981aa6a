# Board factory: builds the machine objects (Pin, PWM, NeoPixel) for a build
# from its pin map (firmware/boards/<build>.json). Drivers receive these objects;
# they never see pin numbers. In the simulator the same code runs against the
# fake machine module, so the simulated build is wired exactly like the real one.

import json

from machine import PWM, Pin

_PULLS = {"up": Pin.PULL_UP, "down": Pin.PULL_DOWN}


_TEXT_KEYS = ("part", "comment", "note")


def load_pinmap(build, root=""):
    with open(root + "boards/" + build + ".json") as f:
        pm = json.load(f)
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

    def gpio(self, name):
        return self.pins[name]["gpio"]

    def input(self, name):
        p = self.pins[name]
        return Pin(p["gpio"], Pin.IN, _PULLS.get(p.get("pull"), None))

    def active_level(self, name):
        return self.pins[name].get("active", 0)

    def pwm(self, name):
        p = self.pins[name]
        return PWM(Pin(p["gpio"]), freq=p.get("freq", 50), duty_ns=0)

    def neopixel(self, name, count):
        import neopixel
        return neopixel.NeoPixel(Pin(self.pins[name]["gpio"], Pin.OUT), count)
