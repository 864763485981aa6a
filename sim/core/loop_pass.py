"""One pass of the virtual-time loop: CPython 3.11's BaseEventLoop._run_once,
step for step, for a clock that is not the wall clock and a loop not in debug
mode (VirtualTimeLoop falls back to asyncio's own pass otherwise).

Why a copy: a Roller Ghoster game makes about 10,000 loop passes (every beam
glitch wakes the beam task), and asyncio's pass costs two `time()` calls, a
selector call and an empty `_process_events` each time. This one reads the
virtual clock directly and skips the empty event processing; it keeps every
step of the original in its order (the same timeout, the same
`end_time = now + clock_resolution` with the same float arithmetic, the same
handles run), so the same seed runs the same game
(tests/sim/core/test_fast_paths.py checks it against asyncio's pass).
"""
from __future__ import annotations

import heapq
from asyncio import base_events
from typing import Any

MAXIMUM_SELECT_TIMEOUT = base_events.MAXIMUM_SELECT_TIMEOUT
_MIN_SCHEDULED = base_events._MIN_SCHEDULED_TIMER_HANDLES
_MIN_CANCELLED_FRACTION = base_events._MIN_CANCELLED_TIMER_HANDLES_FRACTION


def run_once_virtual(loop: Any, clk: Any) -> None:
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
            handle = heapq.heappop(scheduled)
            handle._scheduled = False

    ready = loop._ready
    timeout: float | None = None
    if ready or loop._stopping:
        timeout = 0
    elif scheduled:
        # loop.time() is clk.now_us / 1e6 (VirtualTimeLoop.time).
        when = scheduled[0]._when
        timeout = min(max(0, when - clk.now_us / 1e6), MAXIMUM_SELECT_TIMEOUT)

    event_list = loop._selector.select(timeout)
    if event_list:
        loop._process_events(event_list)
    event_list = None

    # Handle 'later' callbacks that are ready.
    end_time = clk.now_us / 1e6 + loop._clock_resolution
    while scheduled:
        handle = scheduled[0]
        if handle._when >= end_time:
            break
        handle = heapq.heappop(scheduled)
        handle._scheduled = False
        ready.append(handle)

    # Run the callbacks ready now, not those they schedule (next pass).
    popleft = ready.popleft
    for _ in range(len(ready)):
        handle = popleft()
        if handle._cancelled:
            continue
        handle._run()
    handle = None
