# What happens when an exception escapes the game (app.run): it is reported,
# written to the fault log with the reason (faultlog.py, health.json), and
# the board resets so the saved game resumes. The next boot counts the crash
# (startup.boot_check): counting there, not here, makes a watchdog reset
# count the same way, and the count cannot be lost if this handler itself
# fails. It runs at most once before that reset, so app.py loads it only then
# and it costs no RAM while a game runs.


def handle_crash(app, exc):
    # Report, record and return "reset" (the caller resets the board).
    why = repr(exc)[:120]
    try:
        app.bus.publish(("fault", "crash", why))
    except Exception:  # noqa: BLE001 - the reset must happen whatever the sinks do
        pass
    import faultlog
    faultlog.write(app, True, why)
    return "reset"
