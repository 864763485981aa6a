# What happens when an exception escapes the game (app.run): it is reported
# and counted on flash, then the board resets and resumes the saved game. It
# runs at most once before that reset, so app.py loads it only then and it
# costs no RAM while a game runs.

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

MAX_CRASHES = const(3)


def handle_crash(app, exc):
    # An exception escaped the game. Report it, count it on flash and reset so
    # the saved game resumes; the third crash in a row sets the save aside
    # (reported), so one bad state cannot make the board crash-loop.
    app.bus.publish(("fault", "crash", repr(exc)))
    try:
        info = app.store.load("crash") or {}
    except ValueError:
        info = {}
    n = info.get("count", 0) + 1 if isinstance(info.get("count", 0), int) else 1
    if n >= MAX_CRASHES:
        app.store.set_aside(app.controller.save_name)
        app.store.remove("crash")
        return "set_aside"
    app.store.save("crash", {"count": n, "last": repr(exc)[:120]})
    return "reset"
