# What runs instead of a game whose hardware cannot be built from its pin map
# (board.PinmapError at boot, or for a host's "new"): the game stays off, the
# board stays up with the host link, and the fault is said again every
# REPORT_MS, so a host that connects later sees it too (`hauntbox monitor`:
# "FAULT pinmap: pixels.count: ..."). No pin is touched and no save is read or
# removed: after the map is fixed (hauntbox flash) the saved game resumes.
# The watchdog stays fed (nothing is unhealthy), so there is no reset loop.

import asyncio

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

REPORT_MS = const(10000)


class HaltedController:
    min_players = 1
    max_players = 4
    save_name = "halted"            # never written: the game's own save is left alone

    def __init__(self, name, bus, detail):
        self.name = name
        self.bus = bus
        self.detail = detail
        self.off = "the game is off: pin map fault: " + detail
        self.game = None
        self.turns = 0
        self.faults = 1

    def report(self):
        self.bus.publish(("fault", "pinmap", self.detail))

    def tasks(self):
        return []

    def new_game(self, players, start=0, options=None):
        pass

    def resume(self, saved):
        pass

    def public_state(self):
        return None

    async def play(self):
        # Until the host asks for another game (App cancels this task).
        while True:
            await asyncio.sleep_ms(REPORT_MS)
            self.report()


def create_halted(app, name, detail):
    print("hauntbox: fault pinmap: %s (game %s off)" % (detail, name))
    c = HaltedController(name, app.bus, detail)
    c.report()
    return c
