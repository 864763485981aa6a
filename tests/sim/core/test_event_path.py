"""The simulator's fast event path (issue 19, Roller Ghoster's beam noise)
gives what the plain code it replaces gave: the virtual-time loop's own pass
(sim/core/loop_pass.py) against asyncio's, the fake Pin's inlined drive and
read against the first versions, the clock's scheduling and the fake
`time.ticks_*` against VirtualClock's methods. Each fast path is checked on
its own, and all of them together on whole games (the same game log)."""
import asyncio
import contextlib
import contextvars
import heapq
import io
import random
import re

import pytest

from hauntbox_sim import cli
from hauntbox_sim.core import clock as clock_mod
from hauntbox_sim.core import loop as loop_mod
from hauntbox_sim.core import runtime
from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.fakes import machine


# --- the plain versions the fast paths replace --------------------------------
def _asyncio_pass(loop, clk):
    asyncio.BaseEventLoop._run_once(loop)


def _value_reference(self, v=None):
    if v is None:
        return self._level()
    old = self._level()
    self._out = 1 if v else 0
    new = self._level()
    for obs in self.observers:
        obs(self, new)
    self._edge(old, new)
    return None


def _at_reference(self, t_us, fn):
    heapq.heappush(self._queue, (max(int(t_us), self.now_us), next(self._seq), fn))


def _advance_to_reference(self, t_us):
    t_us = int(t_us)
    while self._queue and self._queue[0][0] <= t_us:
        t, _, fn = heapq.heappop(self._queue)
        self.now_us = max(self.now_us, t)
        fn()
    self.now_us = max(self.now_us, t_us)


def _asyncio_loop(monkeypatch):
    # asyncio's own pass, call_soon, call_at, call_later and handles.
    monkeypatch.setattr(loop_mod, "run_once_virtual", _asyncio_pass)
    for name in ("call_soon", "call_at", "call_later"):
        monkeypatch.setattr(loop_mod.VirtualTimeLoop, name, getattr(asyncio.BaseEventLoop, name))


def _reference_paths(monkeypatch):
    _asyncio_loop(monkeypatch)
    monkeypatch.setattr(machine.Pin, "sim_drive", machine.Pin._sim_drive_reference)
    monkeypatch.setattr(machine.Pin, "value", _value_reference)
    monkeypatch.setattr(clock_mod.VirtualClock, "at", _at_reference)
    monkeypatch.setattr(clock_mod.VirtualClock, "advance_to", _advance_to_reference)


# --- the loop pass -------------------------------------------------------------
async def _busy_board(seed, trace):
    # Tasks that sleep, wait on flags set from clock events (IRQs) with and
    # without timeouts (cancelled timer handles), and sleep(0): every kind of
    # work the firmware gives the loop, with a trace of what ran when.
    rng = random.Random(seed)
    clk = runtime.clock()
    flags = [asyncio.ThreadSafeFlag() for _ in range(3)]

    def irq(k):
        trace.append(("irq", k, clk.now_us))
        flags[k].set()

    t = 0
    for _ in range(300):
        t += rng.randint(1, 3000)
        k = rng.randrange(3)
        clk.at(t, lambda k=k: irq(k))

    async def sleeper(i):
        for n in range(60):
            await asyncio.sleep_ms(rng.choice((0, 0, 1, 2, 5)))
            trace.append(("sleep", i, n, clk.now_us))

    async def waiter(k):
        for n in range(50):
            try:
                await asyncio.wait_for_ms(flags[k].wait(), rng.randint(1, 8))
                trace.append(("flag", k, n, clk.now_us))
            except asyncio.TimeoutError:
                trace.append(("timeout", k, n, clk.now_us))

    await asyncio.gather(*(sleeper(i) for i in range(3)), *(waiter(k) for k in range(3)))
    trace.append(("end", clk.now_us))


@pytest.mark.parametrize("seed", range(6))
def test_loop_pass_runs_what_asyncio_runs(seed, monkeypatch):
    fast: list = []
    sim_install.install()
    sim_install.run(_busy_board(seed, fast))
    slow: list = []
    with monkeypatch.context() as m:
        _asyncio_loop(m)
        sim_install.install()
        sim_install.run(_busy_board(seed, slow))
    assert len(fast) > 300
    assert fast == slow


def test_many_cancelled_timers_are_purged_as_asyncio_does(monkeypatch):
    # Over _MIN_SCHEDULED_TIMER_HANDLES timers, half of them cancelled: the
    # pass takes asyncio's other branch (the heap rebuilt).
    async def board(trace):
        loop = asyncio.get_running_loop()
        handles = [loop.call_later(0.001 * (i % 17 + 1), trace.append, i) for i in range(400)]
        for h in handles[::2]:
            h.cancel()
        await asyncio.sleep(0.05)
        trace.append(("end", runtime.clock().now_us, len(loop._scheduled)))

    out = []
    for patch in (False, True):
        trace: list = []
        with monkeypatch.context() as m:
            if patch:
                _asyncio_loop(m)
            sim_install.install()
            sim_install.run(board(trace))
        out.append(trace)
    assert len(out[0]) == 201 and out[0] == out[1]


def test_lean_handles_are_asyncio_handles():
    from asyncio import events

    from hauntbox_sim.core import handles
    loop = loop_mod.VirtualTimeLoop()
    try:
        ctx = contextvars.copy_context()
        slots = ("_callback", "_args", "_cancelled", "_loop", "_source_traceback",
                 "_repr", "_context")
        for lean, plain in ((handles.Handle(print, (1,), loop, ctx),
                             events.Handle(print, (1,), loop, ctx)),
                            (handles.TimerHandle(2.5, print, (1,), loop, ctx),
                             events.TimerHandle(2.5, print, (1,), loop, ctx))):
            assert isinstance(lean, type(plain)) and repr(lean) == repr(plain)
            names = slots + (("_when", "_scheduled") if isinstance(plain, events.TimerHandle) else ())
            assert [getattr(lean, n) for n in names] == [getattr(plain, n) for n in names]
        rng = random.Random(1)
        whens = [rng.choice((0.001, 0.002, 0.5)) + rng.randrange(4) for _ in range(200)]
        for a in whens[:40]:
            for b in whens[40:80]:
                x, y = handles.TimerHandle(a, print, (), loop), handles.TimerHandle(b, print, (), loop)
                assert (x < y) == (events.TimerHandle(a, print, (), loop) < events.TimerHandle(b, print, (), loop))
                assert hash(x) == hash(events.TimerHandle(a, print, (), loop))
        now = loop.time()
        h = loop.call_later(0.25, print)
        assert isinstance(h, handles.TimerHandle) and h._when == now + 0.25 and h._scheduled
        loop.set_debug(True)
        assert type(loop.call_soon(print)) is events.Handle     # debug: asyncio's own
    finally:
        loop.close()
    with pytest.raises(RuntimeError, match="closed"):
        loop.call_soon(print)


# --- the pin ---------------------------------------------------------------------
def test_pin_drive_and_read_match_the_first_versions(clock):
    rng = random.Random(7)
    for case in range(400):
        calls = {True: [], False: []}
        levels = {True: [], False: []}
        mode = rng.choice((machine.Pin.IN, machine.Pin.OUT, machine.Pin.OPEN_DRAIN))
        pull = rng.choice((None, machine.Pin.PULL_UP, machine.Pin.PULL_DOWN))
        trigger = rng.choice((0, machine.Pin.IRQ_FALLING, machine.Pin.IRQ_RISING,
                              machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING))
        handler = rng.random() < 0.9
        drives = [rng.choice((None, 0, 1, 5)) for _ in range(20)]
        for fast in (True, False):
            p = machine.Pin(("t", case, fast), mode, pull)
            if handler:
                p.irq(lambda pin, out=calls[fast]: out.append(pin.value()), trigger)
            for lv in drives:
                if fast:
                    p.sim_drive(lv)
                    levels[fast].append(p.value())
                else:
                    p._sim_drive_reference(lv)
                    levels[fast].append(_value_reference(p))
            levels[fast].append(p.irq_count)
        assert calls[True] == calls[False]
        assert levels[True] == levels[False]


# --- the clock and the ticks -------------------------------------------------------
def test_clock_schedules_as_before():
    rng = random.Random(3)
    fired = {True: [], False: []}
    for fast in (True, False):
        c = clock_mod.VirtualClock(start_us=1000)
        at = c.at if fast else (lambda t, fn, c=c: _at_reference(c, t, fn))
        adv = c.advance_to if fast else (lambda t, c=c: _advance_to_reference(c, t))

        def ev(i, c=c, at=at, fast=fast):
            fired[fast].append((i, c.now_us))
            if i % 3 == 0:      # events that schedule more, some in the past
                at(c.now_us + rng.randint(-50, 50), lambda: fired[fast].append(("child", c.now_us)))
        rng.seed(3)
        for i in range(500):
            at(rng.randint(0, 20000) + rng.random(), lambda i=i: ev(i))
        for t in range(0, 25000, 700):
            adv(t + 0.5)
        fired[fast].append(c.now_us)
    assert fired[True] == fired[False]


def test_ticks_follow_the_current_clock():
    import time
    sim_install.install()
    for now in (0, 999, 1000, 123_456_789, (1 << 30) * 1000 - 1, (1 << 30) * 1000 + 5,
                (1 << 30) - 1, 1 << 30, (1 << 31) + 17):
        c = clock_mod.VirtualClock(start_us=now)
        runtime.set_clock(c)
        assert time.ticks_us() == c.ticks_us() == time.ticks_cpu()
        assert time.ticks_ms() == c.ticks_ms()
    sim_install.install()


def test_sleep_ms_is_asyncio_sleep():
    sim_install.install()

    async def main():
        t0 = runtime.clock().now_us
        await asyncio.sleep_ms(3)
        t1 = runtime.clock().now_us
        await asyncio.sleep_ms(0)
        return t1 - t0, runtime.clock().now_us - t1

    assert sim_install.run(main()) == (3000, 0)


# --- whole games -----------------------------------------------------------------------
class _Null(io.TextIOBase):
    def write(self, s):
        return len(s)


def _game_log(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(argv) == 0
    # The last line ends with the wall-clock time the run took.
    return re.sub(r" simulated in [0-9.]+ s", "", out.getvalue())


@pytest.mark.parametrize("game,seed", [("roller-ghoster", 1), ("roller-ghoster", 5),
                                       ("haunted-house", 2)])
def test_games_play_the_same_on_the_reference_paths(game, seed, monkeypatch):
    argv = ["--game", game, "--seed", str(seed)]
    fast = _game_log(argv)
    with monkeypatch.context() as m:
        _reference_paths(m)
        slow = _game_log(argv)
    assert fast.count("\n") > 20
    assert fast == slow
