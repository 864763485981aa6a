"""Process-wide state of the simulated board: its clock, IRQ dispatch, resets."""
from __future__ import annotations

from typing import Any, Callable

from hauntbox_sim.core.clock import VirtualClock

_clock = VirtualClock()


class BoardReset(BaseException):
    """Raised out of the firmware when the simulated board resets (watchdog, reset())."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


_pending_reset: str | None = None
irq_errors: list[BaseException] = []
abandoned: list[Any] = []     # tasks left suspended by a Ctrl-C (sim/fakes/install.py: run)


def clock() -> VirtualClock:
    return _clock


def set_clock(c: VirtualClock) -> None:
    global _clock
    _clock = c


_irq_off_until = 0
_irq_pending: dict[int, tuple[Callable[[Any], None], Any, bool]] = {}


def run_irq(handler: Callable[[Any], None], arg: Any, hard: bool) -> None:
    """Call an interrupt handler, as the rp2 port does.

    While interrupts are off (`irq_off`) the call waits, and a source that
    fires again meanwhile is called once when they are back (the pin's edges
    latch in one status register): a rise and a fall inside the window
    collapse into one call that sees the level of the end.

    An exception is recorded (tests assert `irq_errors` stays empty); a hard
    handler that raises is disabled for good, as MicroPython's mp_irq_handler
    does ("Uncaught exception in IRQ callback handler")."""
    if _clock.now_us < _irq_off_until:
        _irq_pending.setdefault(id(arg), (handler, arg, hard))
        return
    try:
        handler(arg)
    except Exception as e:  # noqa: BLE001 - mirrors MicroPython printing IRQ errors
        irq_failed(arg, e, hard)


def irq_failed(arg: Any, e: Exception, hard: bool) -> None:
    """What run_irq does with a handler that raised (Pin.sim_drive calls it too)."""
    irq_errors.append(e)
    if hard:
        disable = getattr(arg, "irq_disable", None)
        if disable is not None:
            disable()


def reset_irq_state() -> None:
    global _irq_off_until
    _irq_off_until = 0
    _irq_pending.clear()


def irq_off(us: int) -> None:
    """The CPU busy with interrupts off for `us` (machine.bitstream writing a
    NeoPixel chain, the boot ROM erasing or programming flash): the clock and
    the hardware go on, interrupts wait until the window ends."""
    global _irq_off_until
    end = _clock.now_us + int(us)
    outer = _irq_off_until > _clock.now_us
    _irq_off_until = max(_irq_off_until, end)
    _clock.advance_to(end)
    if outer:
        return
    _irq_off_until = 0
    while _irq_pending:
        key = next(iter(_irq_pending))
        handler, arg, hard = _irq_pending.pop(key)
        run_irq(handler, arg, hard)


def watchdog_expired() -> None:
    global _pending_reset
    _pending_reset = "watchdog"


def request_reset(hard: bool) -> None:
    global _pending_reset
    _pending_reset = "reset" if hard else "soft_reset"
    raise BoardReset(_pending_reset)


def take_pending_reset() -> str | None:
    global _pending_reset
    r, _pending_reset = _pending_reset, None
    return r
