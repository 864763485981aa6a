"""Install the fake MicroPython modules so the unmodified firmware imports on CPython.

After `install()`:
- `import machine`, `neopixel`, `micropython`, `rp2` give the simulator's fakes;
- `time.ticks_ms/ticks_us/ticks_diff/ticks_add/sleep_ms/sleep_us` exist and run
  on the virtual clock;
- `asyncio.sleep_ms`, `asyncio.wait_for_ms` and `asyncio.ThreadSafeFlag` exist
  (MicroPython's asyncio extensions), built on CPython's asyncio;
- `firmware/` is on sys.path.
"""
from __future__ import annotations

import asyncio
import sys
import time
import types
from asyncio.futures import _set_result_unless_cancelled
from typing import Any

from hauntbox_sim.core import runtime
from hauntbox_sim.core.handles import new_timer as _new_timer
from hauntbox_sim.core.clock import TICKS_PERIOD_MS, VirtualClock

from hauntbox_fw.paths import FIRMWARE_DIR as FIRMWARE  # noqa: F401  (boards read it here)
from hauntbox_fw.paths import prepend_firmware  # noqa: E402


_Future = asyncio.Future
_get_running_loop = asyncio.get_running_loop


class ThreadSafeFlag:
    """MicroPython's asyncio.ThreadSafeFlag: set() from an IRQ, auto-clear, one waiter.

    One waiter as on the rp2 port (measured on the emulated Pico,
    tests/sim/pico/test_fakes_match_port.py): the port's asyncio keeps one reader
    per stream, so a second task that waits takes the place of the first, and
    the first is never woken."""

    def __init__(self) -> None:
        self._set = False
        self._waiter: asyncio.Future | None = None

    def set(self) -> None:
        self._set = True
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> None:
        if not self._set:
            w = _Future(loop=_get_running_loop())   # loop.create_future()
            self._waiter = w        # a waiter before this one is never woken
            try:
                await w
            finally:
                if self._waiter is w:
                    self._waiter = None
        self._set = False


@types.coroutine
def _sleep0() -> Any:
    # asyncio.tasks.__sleep0: one bare yield (the task steps again next pass).
    yield


async def _sleep_ms(ms: float) -> None:
    """asyncio.sleep(ms / 1000), step for step, with its timer built in place
    on the simulator's loop out of debug mode (sim/core/handles.new_timer:
    what the loop's call_later does) and cancelled in place after it (what
    TimerHandle.cancel does out of debug mode): the beam task sleeps on
    every near decision. The same awaits in the same loop passes, the same
    timer at the same time (tests/sim/core/test_event_path.py)."""
    delay = ms / 1000
    if delay <= 0:
        await _sleep0()
        return None
    loop = _get_running_loop()
    future = _Future(loop=loop)      # loop.create_future()
    if loop._debug or not getattr(loop, "virtual_timers", False):
        h = loop.call_later(delay, _set_result_unless_cancelled, future, None)
        try:
            return await future
        finally:
            h.cancel()
    if loop._closed:
        raise RuntimeError("Event loop is closed")
    h = _new_timer(loop, runtime._clock.now_us / 1e6 + delay, _set_result_unless_cancelled,
                   (future, None))
    try:
        return await future
    finally:
        if not h._cancelled:            # h.cancel()
            if h._scheduled:            # loop._timer_handle_cancelled(h)
                loop._timer_cancelled_count += 1
            h._cancelled = True
            h._callback = None
            h._args = None


async def _wait_for_ms(aw: Any, ms: float) -> Any:
    # asyncio.timeout (3.11+) runs `aw` in the waiting task itself. CPython
    # 3.11's wait_for wraps it in a second task, and a cancellation that meets
    # its timeout and the wrapped task finishing in the same loop pass can be
    # lost: App.stop_tasks then waited for ever on a cancelled Table.run (seen
    # with a host on the serial link and saves that take time,
    # `hauntbox_sim.checks.accuracy hits --host --flash-ms 25`, seed 19).
    timeout = getattr(asyncio, "timeout", None)
    if timeout is None:
        return await asyncio.wait_for(aw, ms / 1000)
    async with timeout(ms / 1000):
        return await aw


def _ticks_us() -> int:
    # VirtualClock.ticks_us of the current clock, read without two calls:
    # every IRQ handler and every poll of the firmware asks for it.
    return runtime._clock.now_us % TICKS_PERIOD_MS


def _ticks_ms() -> int:
    return (runtime._clock.now_us // 1000) % TICKS_PERIOD_MS


_HALF = TICKS_PERIOD_MS // 2


def _ticks_diff(a: int, b: int) -> int:
    # VirtualClock.ticks_diff without computing the half period on each call
    # (the beam decoders call it about 70,000 times in three Roller games).
    return ((a - b + _HALF) % TICKS_PERIOD_MS) - _HALF


def _patch_time() -> None:
    def clk() -> VirtualClock:
        return runtime.clock()
    # The firmware binds these once (`from time import ticks_us`), so they
    # must follow runtime.set_clock: they read runtime._clock on every call.
    time.ticks_ms = _ticks_ms  # type: ignore[attr-defined]
    time.ticks_us = _ticks_us  # type: ignore[attr-defined]
    time.ticks_cpu = _ticks_us  # type: ignore[attr-defined]
    time.ticks_add = VirtualClock.ticks_add  # type: ignore[attr-defined]
    time.ticks_diff = _ticks_diff  # type: ignore[attr-defined]
    time.sleep_ms = lambda ms: clk().sleep_ms(ms)  # type: ignore[attr-defined]
    time.sleep_us = lambda us: clk().sleep_us(us)  # type: ignore[attr-defined]


_installed = False


def install(clock: VirtualClock | None = None) -> VirtualClock:
    """Install the fakes (idempotent) and start a fresh virtual clock and board."""
    global _installed
    from hauntbox_sim.fakes import machine, micropython, neopixel, rp2

    if not _installed:
        sys.modules["machine"] = machine
        sys.modules["neopixel"] = neopixel
        sys.modules["micropython"] = micropython
        sys.modules["rp2"] = rp2
        _patch_time()
        asyncio.sleep_ms = _sleep_ms  # type: ignore[attr-defined]
        asyncio.wait_for_ms = _wait_for_ms  # type: ignore[attr-defined]
        asyncio.ThreadSafeFlag = ThreadSafeFlag  # type: ignore[attr-defined]
        prepend_firmware()   # first: Blinka's top-level `board`/`micropython` must not win
        _installed = True
    clk = clock or VirtualClock()
    runtime.set_clock(clk)
    runtime.irq_errors.clear()
    runtime.take_pending_reset()
    machine.reset_state()
    runtime.reset_irq_state()
    return clk


def run(coro: Any, clock: VirtualClock | None = None) -> Any:
    """Run a coroutine to completion on a new virtual-time loop."""
    from hauntbox_sim.core.loop import VirtualTimeLoop
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(coro)
    except KeyboardInterrupt:
        # As on MicroPython: Ctrl-C escapes the loop and the other tasks are
        # neither cancelled nor resumed, so none of their `finally` blocks runs
        # (CPython's asyncio.run would cancel them: kinder than the port). They
        # are kept referenced so CPython does not run those blocks either when
        # it collects the suspended coroutines.
        runtime.abandoned.extend(t for t in asyncio.all_tasks(loop) if not t.done())
        raise
    except BaseException:
        # A reset or power cut: the board stops. Cancel and drain every task on
        # the still-open loop, so no suspended coroutine is left to be finalised
        # later (at an arbitrary point in another test). Nothing the firmware
        # does while unwinding is persisted: it only cancels its own tasks.
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            runtime.take_pending_reset()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        raise
    finally:
        loop.close()
