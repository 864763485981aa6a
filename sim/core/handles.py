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
