# Forgetting a module that has done its work (a loader, a board build, a rare
# host command): MicroPython then frees its bytecode and functions at the next
# collection; only its names stay interned. Used for code that runs once per
# game or per request, so it is not in RAM for the rest of the game
# (docs/performance.md). On CPython (simulator, tests) RAM does not matter and
# the module stays.

import sys


def unload(name):
    if sys.implementation.name != "micropython":
        return
    sys.modules.pop(name, None)
    dot = name.rfind(".")
    if dot > 0:
        pkg = sys.modules.get(name[:dot])
        short = name[dot + 1:]
        if pkg is not None and hasattr(pkg, short):
            delattr(pkg, short)
