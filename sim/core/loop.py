"""An asyncio event loop that runs on the simulator's virtual clock.

`time()` is the virtual clock. When every task is waiting, the loop's selector
does not sleep: it jumps the clock to the next timer or hardware event
(whichever is first) and fires the hardware events due, so a whole game runs
in a fraction of a second. In realtime mode (a board on a pseudo-terminal) the
clock follows the wall clock and the selector really waits for file I/O.
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import selectors
from typing import Any

from hauntbox_sim.core import handles, runtime
from hauntbox_sim.core.loop_pass import Deadlock, run_virtual

_Handle = handles.Handle
_new = object.__new__
_copy_context = contextvars.copy_context

__all__ = ["Deadlock", "VirtualTimeLoop"]


class _VirtualSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    def __init__(self) -> None:
        super().__init__()
        self.loop: VirtualTimeLoop | None = None

    def select(self, timeout: float | None = None) -> list[Any]:
        clk = runtime.clock()
        loop = self.loop
        assert loop is not None
        if clk.realtime:
            nxt = clk.next_event_us()
            if nxt is not None:
                wait = max(0.0, (nxt - clk.real_now_us()) / 1e6)
                timeout = wait if timeout is None else min(timeout, wait)
            ready = super().select(timeout)
            clk.advance_to(max(clk.now_us, clk.real_now_us()))
            return ready
        # Virtual time: real I/O is only polled, and only when some file is
        # registered besides the loop's self-pipe: the pipe only wakes a
        # select that blocks, which this one never does (call_soon_threadsafe
        # has already put its callback in the run queue).
        if len(self._fd_to_key) > 1:   # type: ignore[attr-defined]
            ready = super().select(0)
        else:
            ready = []
        if ready or timeout == 0:
            clk.advance_to(clk.now_us)
            return ready
        target = None if timeout is None else clk.now_us + max(1, int(timeout * 1e6 + 0.999))
        # Fire the hardware events due before the next timer one by one, and
        # give the loop back as soon as one of them woke a task (an IRQ set a
        # flag someone waits on): that task runs at that event's time. Events
        # that wake nobody (an edge while the beam task sleeps) cost no loop
        # pass of their own.
        ready = loop._ready     # type: ignore[attr-defined]  # asyncio's run queue
        events = clk._queue     # clk.next_event_us(), without the call
        while events:
            nxt = events[0][0]
            if target is not None and nxt >= target:
                break
            clk.advance_to(nxt)
            if ready:
                return []
        if target is None:
            raise Deadlock("all tasks wait forever and no hardware event is scheduled")
        clk.advance_to(target)
        return []


#: get_debug as a C partial on each new loop (tests compare with asyncio's own).
LEAN_GET_DEBUG = True


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    #: sleep_ms of the fakes (sim/fakes/install.py) builds its timer itself
    #: on such a loop out of debug mode, as call_later below would.
    virtual_timers = True

    def __init__(self) -> None:
        sel = _VirtualSelector()
        super().__init__(sel)
        sel.loop = self
        self.reset_cause: str | None = None
        # get_debug() without a Python frame: every Future the C asyncio
        # builds (each task wake-up and sleep) asks the loop for it. It reads
        # self._debug when called, as BaseEventLoop.get_debug does.
        if LEAN_GET_DEBUG:
            self.get_debug = functools.partial(getattr, self, "_debug")

    def time(self) -> float:
        return runtime._clock.now_us / 1e6

    # call_soon / call_at / call_later as asyncio's, out of debug mode, with
    # the lean handles of sim/core/handles.py built in place (every task
    # wake-up and sleep goes through them); in debug mode, asyncio's own
    # with its checks.
    def call_soon(self, callback: Any, *args: Any, context: Any = None) -> Any:
        if self._debug:     # type: ignore[attr-defined]
            return super().call_soon(callback, *args, context=context)
        if self._closed:    # type: ignore[attr-defined]  # BaseEventLoop._check_closed
            raise RuntimeError("Event loop is closed")
        # handles.Handle(callback, args, self, context), its __init__ written in
        handle = _new(_Handle)
        handle._context = _copy_context() if context is None else context
        handle._loop = self
        handle._callback = callback
        handle._args = args
        handle._cancelled = False
        handle._repr = None
        handle._source_traceback = None
        self._ready.append(handle)  # type: ignore[attr-defined]
        return handle

    def call_at(self, when: Any, callback: Any, *args: Any, context: Any = None) -> Any:
        if self._debug or when is None:     # type: ignore[attr-defined]
            return super().call_at(when, callback, *args, context=context)
        if self._closed:    # type: ignore[attr-defined]
            raise RuntimeError("Event loop is closed")
        return handles.new_timer(self, when, callback, args, context)

    def call_later(self, delay: Any, callback: Any, *args: Any, context: Any = None) -> Any:
        if self._debug or delay is None:    # type: ignore[attr-defined]
            return super().call_later(delay, callback, *args, context=context)
        if self._closed:    # type: ignore[attr-defined]
            raise RuntimeError("Event loop is closed")
        return handles.new_timer(self, runtime._clock.now_us / 1e6 + delay, callback, args,
                                 context)

    def _run_once(self) -> None:  # type: ignore[override]
        clk = runtime._clock
        if clk.realtime or self._debug:   # type: ignore[attr-defined]
            super()._run_once()  # type: ignore[misc]
            cause = runtime.take_pending_reset()
            if cause is not None:
                raise runtime.BoardReset(cause)
        else:
            # Passes until the loop stops (sim/core/loop_pass.py), each with
            # the virtual select (_VirtualSelector.select) written in when no
            # real file is polled, and the reset check above.
            run_virtual(self)
