"""asyncio's Handle and TimerHandle without the per-call debug look-ups, for
the virtual-time loop out of debug mode (sim/core/loop.py).

asyncio builds a Handle for every task wake-up and a TimerHandle for every
sleep, and its own __init__ asks the loop `get_debug()` each time; the timers'
heap compares them through TimerHandle.__lt__'s isinstance check. These set
the same fields to the same values (no source traceback: not in debug mode)
and compare timers by `_when` alone, as TimerHandle does for two timers (the
heap holds nothing else). They keep asyncio's class names, so their reprs
(in an "Exception in callback" report) read as before.
"""
from __future__ import annotations

import contextvars
import heapq
from asyncio import events
from typing import Any


class Handle(events.Handle):
    __slots__ = ()

    def __init__(self, callback: Any, args: Any, loop: Any, context: Any = None) -> None:
        if context is None:
            context = contextvars.copy_context()
        self._context = context
        self._loop = loop
        self._callback = callback
        self._args = args
        self._cancelled = False
        self._repr = None
        self._source_traceback = None


class TimerHandle(events.TimerHandle):
    __slots__ = ()

    def __init__(self, when: float, callback: Any, args: Any, loop: Any,
                 context: Any = None) -> None:
        Handle.__init__(self, callback, args, loop, context)   # the same fields
        self._when = when
        self._scheduled = False

    def __lt__(self, other: Any) -> bool:
        return self._when < other._when

    __hash__ = events.TimerHandle.__hash__


_new = object.__new__
_copy_context = contextvars.copy_context
_heappush = heapq.heappush


def new_timer(loop: Any, when: float, callback: Any, args: Any, context: Any = None) -> Any:
    """What VirtualTimeLoop.call_at does once the loop is known open and out of
    debug mode: TimerHandle(when, callback, args, loop, context) pushed on
    the loop's heap and marked scheduled, the __init__ written in (one
    Python frame instead of three: every sleep of a task builds one)."""
    timer = _new(TimerHandle)
    timer._context = _copy_context() if context is None else context
    timer._loop = loop
    timer._callback = callback
    timer._args = args
    timer._cancelled = False
    timer._repr = None
    timer._source_traceback = None
    timer._when = when
    timer._scheduled = False
    _heappush(loop._scheduled, timer)
    timer._scheduled = True
    return timer
