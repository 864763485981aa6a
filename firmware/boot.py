# Runs on every reset, including mpremote's soft reset into the raw REPL.
# If a previous game left the hardware watchdog running, feed it from a timer so
# the REPL (and flashing) cannot be cut short by a watchdog reset.
try:
    from games import watchdog
    watchdog.guard_if_running()
    # No name of boot.py's stays bound to it (boot.py and main.py share one
    # namespace): the game drops the module once it has stopped the guard.
    del watchdog
except Exception as e:  # noqa: BLE001 - boot.py must never stop the board from booting
    print("boot:", e)
