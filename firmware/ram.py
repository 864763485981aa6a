# How the firmware keeps its RAM use down, and its collections out of the
# sensors' way, on the board (the figures are in docs/performance.md). All of
# it does nothing on CPython (simulator, tests, host tools), where RAM and
# collection pauses do not matter.
#
# unload(name): forget a module that has done its work (a loader, a board
#   build, a rare host command). MicroPython then frees its bytecode and
#   functions at the next collection; only its names stay interned.
# interned(data, skip): the strings of game data (ids kept for the whole game)
#   interned, so each costs a few bytes once instead of a string object for
#   every copy.
# collect(), hold_collections() / release_collections(): a collection where
#   the firmware chooses, and none started by gc.threshold while edges are
#   being timed.

import sys

_MP = sys.implementation.name == "micropython"
_LONGEST = 40       # longer strings are text for people: not interned


def collect():
    # A collection on the board, where the next objects land matters:
    # MicroPython frees nothing between collections and allocates from the
    # lowest free block, so after a loader is dropped (or a data file parsed)
    # collecting first lets the long-lived objects made next fill that space
    # instead of landing above it (the largest free block stays large:
    # docs/performance.md). On CPython it would only slow the tests.
    if _MP:
        import gc
        gc.collect()


_held = None         # gc.threshold before hold_collections(), while held


def hold_collections():
    # No collection started by gc.threshold until release_collections(): while
    # the sensors are live (a tower rotation's balls, a Haunted House turn
    # window) a collection (~6 ms of the Roller's heap on the rp2 port) would
    # sit on top of an edge's time to its LEDs, and the host's replies alone
    # can allocate past the threshold within a window. The caller collects
    # just before. The heap is not at risk: when no block is free, MicroPython
    # still collects before it would raise MemoryError, threshold or not.
    global _held
    if _MP and _held is None:
        import gc
        _held = gc.threshold()
        gc.threshold(-1)


def release_collections():
    # Back to the threshold held (no-op if none is held).
    global _held
    if _held is not None:
        import gc
        gc.threshold(_held)
        _held = None


def unload(name):
    if not _MP:
        return
    sys.modules.pop(name, None)
    dot = name.rfind(".")
    if dot > 0:
        pkg = sys.modules.get(name[:dot])
        short = name[dot + 1:]
        if pkg is not None and hasattr(pkg, short):
            delattr(pkg, short)


def interned(data, skip=()):
    # `data` (parsed JSON) with its strings interned, except the values under
    # the keys in `skip` (text for people, dropped after loading). On
    # MicroPython an interned string (a qstr) has no heap object of its own,
    # and json hands out the interned copy of any text that has one: so each
    # string is interned here (getattr interns the name it is given) and the
    # data read back through json. A card or spot id then costs ~10 B once,
    # not ~32 B for each copy (the config's, the game state's, a save read at
    # a resume). Returns new data (on MicroPython).
    if not _MP:
        return data
    _intern(data, skip)
    import json
    return json.loads(json.dumps(data))


def _intern(x, skip):
    if isinstance(x, str):
        if len(x) <= _LONGEST:
            getattr(_intern, x, None)
    elif isinstance(x, dict):
        for k in x:
            _intern(k, skip)
            if k not in skip:
                _intern(x[k], skip)
    elif isinstance(x, list):
        for v in x:
            _intern(v, skip)
