# Hardware watchdog handling.
#
# In game mode the watchdog is fed by the app's health task only while every
# task is healthy, so a hung or crashed task resets the board and the saved game
# resumes. Once started, the RP2040's watchdog cannot be stopped; so whenever
# the game is not running (Ctrl-C to the REPL, mpremote's soft reset into the raw
# REPL, which runs boot.py but not main.py) a soft timer feeds it, keeping the
# REPL and mpremote usable. boot.py calls guard_if_running() for that case.
# Safe boot never starts the watchdog.

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_TIMEOUT_MS = const(8000)       # rp2 maximum is 8388 ms
_ENABLE = const(0x40000000)     # WATCHDOG CTRL bit 30
_CTRL = {"RP2040": 0x40058000, "RP2350": 0x400D8000}

_guard_timer = None


def _ctrl_address():
    import sys
    m = getattr(sys.implementation, "_machine", "")
    for chip in _CTRL:
        if chip in m:
            return _CTRL[chip]
    return _CTRL["RP2040"]


def running():
    # True if the hardware watchdog is counting (survives soft resets).
    try:
        from machine import mem32
        return bool(mem32[_ctrl_address()] & _ENABLE)
    except (ImportError, AttributeError, OSError, KeyError):
        return False


def guard():
    # Feed the watchdog from a 1 s soft timer until the game takes over.
    global _guard_timer
    from machine import WDT, Timer
    wdt = WDT(timeout=_TIMEOUT_MS)
    if _guard_timer is None:
        _guard_timer = Timer(-1)   # -1: a virtual (soft) timer
    _guard_timer.init(period=1000, mode=Timer.PERIODIC, callback=lambda t: wdt.feed())


def guard_if_running():
    if running():
        guard()
        return True
    return False


def unguard():
    if _guard_timer is not None:
        _guard_timer.deinit()


def start(timeout_ms=_TIMEOUT_MS):
    # The game takes over: the REPL guard stops and the hardware watchdog runs
    # (machine.WDT; the caller feeds it). Nothing of this module is needed
    # after that, so App drops it for the rest of the game (ram.py).
    from machine import WDT
    unguard()
    return WDT(timeout=timeout_ms)
