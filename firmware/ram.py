# Two ways the firmware keeps its RAM use down on the board (the figures are in
# docs/performance.md). Both do nothing on CPython (simulator, tests, host
# tools), where RAM does not matter.
#
# unload(name): forget a module that has done its work (a loader, a board
#   build, a rare host command). MicroPython then frees its bytecode and
#   functions at the next collection; only its names stay interned.
# interned(data, skip): the strings of game data (ids kept for the whole game)
#   interned, so each costs a few bytes once instead of a string object for
#   every copy.

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
