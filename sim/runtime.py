"""Process-wide state of the simulated board: its clock, IRQ dispatch, resets."""
from __future__ import annotations

from typing import Any, Callable

from sim.clock import VirtualClock

_clock = VirtualClock()


class BoardReset(BaseException):
    """Raised out of the firmware when the simulated board resets (watchdog, reset())."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


_pending_reset: str | None = None
irq_errors: list[BaseException] = []
abandoned: list[Any] = []     # tasks left suspended by a Ctrl-C (sim/install.py: run)


def clock() -> VirtualClock:
    return _clock


def set_clock(c: VirtualClock) -> None:
    global _clock
    _clock = c


def run_irq(handler: Callable[[Any], None], arg: Any, hard: bool) -> None:
    """Call an interrupt handler. An exception in a handler is recorded (MicroPython
    prints it and disables nothing else); tests assert the list stays empty."""
    try:
        handler(arg)
    except Exception as e:  # noqa: BLE001 - mirrors MicroPython printing IRQ errors
        irq_errors.append(e)


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
