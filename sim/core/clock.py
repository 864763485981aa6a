"""Virtual clock with a queue of scheduled hardware events.

Time is an integer count of microseconds. Physical models schedule signal
changes (a beam breaks at t, a switch bounces at t+0.3 ms); advancing the clock
fires them in order, with `now` set to each event's own time, the way a real
interrupt sees the time it happened.
"""
from __future__ import annotations

import heapq
import itertools
import time as _real_time
from typing import Callable

TICKS_PERIOD_MS = 1 << 30  # MicroPython ticks wrap at 2**30 on the rp2 port.


class VirtualClock:
    def __init__(self, start_us: int = 0, realtime: bool = False) -> None:
        self.now_us = start_us
        self.realtime = realtime
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._real0 = _real_time.monotonic()

    # --- scheduling -------------------------------------------------------
    def at(self, t_us: int, fn: Callable[[], None]) -> None:
        t = int(t_us)
        if t < self.now_us:     # max(), without the call: the models schedule a lot
            t = self.now_us
        heapq.heappush(self._queue, (t, next(self._seq), fn))

    def after_ms(self, ms: float, fn: Callable[[], None]) -> None:
        self.at(self.now_us + int(ms * 1000), fn)

    def next_event_us(self) -> int | None:
        return self._queue[0][0] if self._queue else None

    def advance_to(self, t_us: int) -> None:
        """Fire every event due up to t_us, then set now to t_us."""
        t_us = int(t_us)
        q = self._queue
        pop = heapq.heappop
        while q and q[0][0] <= t_us:
            t, _, fn = pop(q)
            if t > self.now_us:
                self.now_us = t
            fn()
        if t_us > self.now_us:
            self.now_us = t_us

    def advance_ms(self, ms: float) -> None:
        self.advance_to(self.now_us + int(ms * 1000))

    def real_now_us(self) -> int:
        return int((_real_time.monotonic() - self._real0) * 1_000_000)

    # --- MicroPython time API ---------------------------------------------
    def ticks_us(self) -> int:
        return self.now_us % (TICKS_PERIOD_MS)

    def ticks_ms(self) -> int:
        return (self.now_us // 1000) % TICKS_PERIOD_MS

    @staticmethod
    def ticks_add(t: int, delta: int) -> int:
        return (t + delta) % TICKS_PERIOD_MS

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        half = TICKS_PERIOD_MS // 2
        return ((a - b + half) % TICKS_PERIOD_MS) - half

    def sleep_ms(self, ms: float) -> None:
        self.advance_ms(ms)

    def sleep_us(self, us: int) -> None:
        self.advance_to(self.now_us + int(us))
