"""One pass of the virtual-time loop: CPython 3.11's BaseEventLoop._run_once,
step for step, for a clock that is not the wall clock and a loop not in debug
mode (VirtualTimeLoop falls back to asyncio's own pass otherwise), with the
virtual-time select of sim/core/loop.py (`_VirtualSelector.select`) written
into it (it calls the clock's `advance_to` only when an event is due).

Why a copy: a Roller Ghoster game makes about 10,000 loop passes (every beam
glitch wakes the beam task), and asyncio's pass costs two `time()` calls, a
selector call and an empty `_process_events` each time. This one reads the
virtual clock directly, skips the empty event processing and makes no call
for the select, nor for the clock when no event is due; it keeps every step of the original in its
order (the same timeout, the same `end_time = now + clock_resolution` with
the same float arithmetic, the same hardware events fired at the same
times, the same handles run), so the same seed runs the same game
(tests/sim/core/test_event_path.py checks it against asyncio's pass and the
selector's select).
"""
from __future__ import annotations

import heapq
from asyncio import base_events, format_helpers
from typing import Any

from hauntbox_sim.core import runtime

MAXIMUM_SELECT_TIMEOUT = base_events.MAXIMUM_SELECT_TIMEOUT
_MIN_SCHEDULED = base_events._MIN_SCHEDULED_TIMER_HANDLES
_MIN_CANCELLED_FRACTION = base_events._MIN_CANCELLED_TIMER_HANDLES_FRACTION
_heappop = heapq.heappop


class Deadlock(RuntimeError):
    """Every task waits forever and no hardware event is scheduled."""


def run_virtual(loop: Any) -> None:
    """Passes of the virtual-time loop, each asyncio's `_run_once` as said
    above followed by the board's reset check (VirtualTimeLoop._run_once),
    until the loop is stopping (then `run_forever`, which called us, stops:
    it checks `_stopping` after each `_run_once`) or the clock or the loop
    leaves virtual time / enters debug mode (then `run_forever` calls
    `_run_once` again, which picks asyncio's pass). The same passes as one
    `_run_once` a pass, without a method call each."""
    clk = runtime._clock
    events = clk._queue
    # Fixed for the loop's life (asyncio and selectors never replace them).
    ready = loop._ready
    popleft = ready.popleft
    selector = loop._selector
    fd_to_key = selector._fd_to_key
    clock_resolution = loop._clock_resolution
    while True:
        scheduled = loop._scheduled
        sched_count = len(scheduled)
        if (sched_count > _MIN_SCHEDULED and
                loop._timer_cancelled_count / sched_count > _MIN_CANCELLED_FRACTION):
            # Remove delayed calls that were cancelled if their number is too high.
            new_scheduled = []
            for handle in scheduled:
                if handle._cancelled:
                    handle._scheduled = False
                else:
                    new_scheduled.append(handle)
            heapq.heapify(new_scheduled)
            loop._scheduled = scheduled = new_scheduled
            loop._timer_cancelled_count = 0
        else:
            # Remove delayed calls that were cancelled from the head of the queue.
            while scheduled and scheduled[0]._cancelled:
                loop._timer_cancelled_count -= 1
                handle = _heappop(scheduled)
                handle._scheduled = False

        timeout: float | None = None
        if ready or loop._stopping:
            timeout = 0
        elif scheduled:
            # loop.time() is clk.now_us / 1e6 (VirtualTimeLoop.time).
            when = scheduled[0]._when
            # min(max(0, when - now), MAXIMUM_SELECT_TIMEOUT), without the calls
            timeout = when - clk.now_us / 1e6
            if not timeout > 0:
                timeout = 0
            elif timeout > MAXIMUM_SELECT_TIMEOUT:
                timeout = MAXIMUM_SELECT_TIMEOUT

        if len(fd_to_key) > 1:
            # A real file besides the self-pipe: the selector polls it.
            event_list = selector.select(timeout)
            if event_list:
                loop._process_events(event_list)
            event_list = None
        else:
            # _VirtualSelector.select without real I/O: the clock's
            # advance_to (fire every event due up to t, then set now to t),
            # called only when an event is due (the usual pass has none).
            if timeout == 0:
                if events and events[0][0] <= clk.now_us:
                    clk.advance_to(clk.now_us)
            else:
                if timeout is None:
                    target = None
                else:       # now + max(1, int(timeout * 1e6 + 0.999))
                    target = int(timeout * 1e6 + 0.999)
                    target = clk.now_us + (target if target > 1 else 1)
                # The hardware events due before the next timer, one time at a
                # time, until one of them wakes a task (loop.py explains why).
                woke = False
                while events:
                    t_to = events[0][0]
                    if target is not None and t_to >= target:
                        break
                    clk.advance_to(t_to)
                    if ready:
                        woke = True
                        break
                if not woke:
                    if target is None:
                        raise Deadlock("all tasks wait forever and no hardware event is scheduled")
                    clk.advance_to(target)

        # Handle 'later' callbacks that are ready.
        end_time = clk.now_us / 1e6 + clock_resolution
        while scheduled:
            handle = scheduled[0]
            if handle._when >= end_time:
                break
            handle = _heappop(scheduled)
            handle._scheduled = False
            ready.append(handle)

        # Run the callbacks ready now, not those they schedule (next pass);
        # Handle._run written in.
        for _ in range(len(ready)):
            handle = popleft()
            if handle._cancelled:
                continue
            try:
                handle._context.run(handle._callback, *handle._args)
            except (SystemExit, KeyboardInterrupt):
                raise
            except BaseException as exc:
                _callback_failed(handle, exc)
        handle = None

        if runtime._pending_reset is not None:     # take_pending_reset(), without the call
            raise runtime.BoardReset(runtime.take_pending_reset())
        if loop._stopping:
            return
        if runtime._clock is not clk:
            clk = runtime._clock
            events = clk._queue
        if clk.realtime or loop._debug:
            return


def _callback_failed(handle: Any, exc: BaseException) -> None:
    # The except branch of asyncio's Handle._run.
    cb = format_helpers._format_callback_source(handle._callback, handle._args)
    context = {
        'message': f'Exception in callback {cb}',
        'exception': exc,
        'handle': handle,
    }
    if handle._source_traceback:
        context['source_traceback'] = handle._source_traceback
    handle._loop.call_exception_handler(context)
