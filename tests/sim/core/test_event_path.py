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
from hauntbox_sim.models import tower as tower_mod


# --- the plain versions the fast paths replace --------------------------------
def _asyncio_pass(loop):
    # One asyncio pass and the board's reset check, for run_virtual's passes.
    asyncio.BaseEventLoop._run_once(loop)
    cause = runtime.take_pending_reset()
    if cause is not None:
        raise runtime.BoardReset(cause)


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


def _sleep_ms_reference(ms):
    return asyncio.sleep(ms / 1000)


def _schedule_glitch_reference(self, k):
    # TowerModel._schedule_glitch as it was first written.
    gap_s = self.rng.expovariate(self.cfg.glitches_per_s)
    t = self.clock.now_us + int(gap_s * 1e6)

    def glitch():
        self._beam(k, True)
        self.clock.at(self.clock.now_us + self.rng.randint(*self.cfg.glitch_us),
                      lambda: self._beam(k, False))
        _schedule_glitch_reference(self, k)
    self.clock.at(t, glitch)


def _asyncio_loop(monkeypatch):
    # asyncio's own pass, call_soon, call_at, call_later, handles, sleep and
    # get_debug.
    monkeypatch.setattr(loop_mod, "run_virtual", _asyncio_pass)
    monkeypatch.setattr(loop_mod, "LEAN_GET_DEBUG", False)
    for name in ("call_soon", "call_at", "call_later"):
        monkeypatch.setattr(loop_mod.VirtualTimeLoop, name, getattr(asyncio.BaseEventLoop, name))
    monkeypatch.setattr(asyncio, "sleep_ms", _sleep_ms_reference, raising=False)


def _reference_paths(monkeypatch):
    _asyncio_loop(monkeypatch)
    monkeypatch.setattr(machine.Pin, "sim_drive", machine.Pin._sim_drive_reference)
    monkeypatch.setattr(machine.Pin, "value", _value_reference)
    monkeypatch.setattr(clock_mod.VirtualClock, "at", _at_reference)
    monkeypatch.setattr(clock_mod.VirtualClock, "advance_to", _advance_to_reference)
    monkeypatch.setattr(tower_mod.TowerModel, "_schedule_glitch", _schedule_glitch_reference)


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
        # The handles call_soon / call_at build in place, field for field.
        for lean, plain in ((loop.call_soon(print, 1, context=ctx),
                             events.Handle(print, (1,), loop, ctx)),
                            (loop.call_at(2.5, print, 1, context=ctx),
                             events.TimerHandle(2.5, print, (1,), loop, ctx))):
            assert type(lean) is getattr(handles, type(plain).__name__)
            names = slots + (("_when",) if isinstance(plain, events.TimerHandle) else ())
            assert [getattr(lean, n) for n in names] == [getattr(plain, n) for n in names]
        assert loop.call_at(2.5, print)._scheduled and loop.call_at(2.5, print)._context is not None
        assert isinstance(loop.call_soon(print)._context, contextvars.Context)
        # get_debug() follows set_debug(), as BaseEventLoop's does.
        assert loop.get_debug() is False
        loop.set_debug(True)
        assert loop.get_debug() is True
        loop.set_debug(False)
        assert loop.get_debug() is False
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


def test_pin_irq_while_interrupts_are_off_and_raising_handlers(clock):
    # sim_drive's inlined run_irq: the calls that wait in an irq_off window,
    # the errors recorded and the hard handlers disabled, as run_irq does.
    rng = random.Random(11)
    out = {}
    for fast in (True, False):
        rng.seed(11)
        sim_install.install()
        trace: list = []
        pins = []
        for i in range(12):
            p = machine.Pin(("irq", i), machine.Pin.IN, rng.choice((None, machine.Pin.PULL_UP)))

            def handler(pin, i=i, trace=trace):
                trace.append((i, pin.value()))
                if rng.random() < 0.1:
                    raise ValueError(i)
            p.irq(handler, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=rng.random() < 0.5)
            pins.append(p)
        index = {id(p): i for i, p in enumerate(pins)}
        for _ in range(600):
            runtime._irq_off_until = runtime.clock().now_us + 1 if rng.random() < 0.2 else 0
            p = rng.choice(pins)
            lv = rng.choice((None, 0, 1))
            if fast:
                p.sim_drive(lv)
            else:
                p._sim_drive_reference(lv)
            trace.append([(index[key], index[id(arg)], hard, h is pins[index[key]]._handler)
                          for key, (h, arg, hard) in runtime._irq_pending.items()])
            if rng.random() < 0.1:
                runtime._irq_pending.clear()
        out[fast] = (trace, [repr(e) for e in runtime.irq_errors],
                     [(p._handler is None, p._trigger, p.irq_count) for p in pins])
        runtime.reset_irq_state()
        runtime.irq_errors.clear()
    assert out[True] == out[False]
    trace, errors, pins_after = out[True]
    assert errors and any(disabled for disabled, _, _ in pins_after)
    assert any(t for t in trace if isinstance(t, list))


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


def test_ticks_diff_is_the_clocks():
    import time
    sim_install.install()
    rng = random.Random(5)
    P = clock_mod.TICKS_PERIOD_MS
    vals = [0, 1, P // 2 - 1, P // 2, P // 2 + 1, P - 1] + [rng.randrange(P) for _ in range(300)]
    for a in vals:
        for b in vals[:40]:
            assert time.ticks_diff(a, b) == clock_mod.VirtualClock.ticks_diff(a, b)


def test_sleep_ms_runs_what_asyncio_sleep_runs(monkeypatch):
    # Tasks that sleep (some cancelled while they sleep, some cancelled in the
    # pass their timer fires) on the fast sleep_ms and on asyncio.sleep: the
    # same trace, the same timers left and cancelled.
    async def board(seed, trace):
        rng = random.Random(seed)
        loop = asyncio.get_running_loop()
        clk = runtime.clock()

        async def sleeper(i):
            try:
                for n in range(40):
                    await asyncio.sleep_ms(rng.choice((0, 1, 1, 2, 3, 7)))
                    trace.append(("s", i, n, clk.now_us, len(loop._scheduled),
                                  loop._timer_cancelled_count))
            except asyncio.CancelledError:
                trace.append(("cancelled", i, clk.now_us, loop._timer_cancelled_count))

        tasks = [asyncio.ensure_future(sleeper(i)) for i in range(6)]
        for _ in range(30):
            await asyncio.sleep_ms(rng.choice((0, 1, 2, 3)))
            t = rng.choice(tasks)
            if rng.random() < 0.3:
                t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        trace.append(("end", clk.now_us, len(loop._scheduled), loop._timer_cancelled_count))

    for seed in range(4):
        out = []
        for ref in (False, True):
            trace: list = []
            with monkeypatch.context() as m:
                if ref:
                    m.setattr(asyncio, "sleep_ms", _sleep_ms_reference, raising=False)
                sim_install.install()
                sim_install.run(board(seed, trace))
            out.append(trace)
        assert any(t[0] == "cancelled" for t in out[0])
        assert out[0] == out[1]


def test_glitch_draws_are_the_rngs():
    # TowerModel's written-out draws against random.Random's own methods.
    import math
    for seed in range(20):
        a, b = random.Random(seed), random.Random(seed)
        for _ in range(500):
            lo, hi = a.choice(((50, 500), (0, 0), (1, 1), (40, 1000), (7, 8)))
            b.choice(((50, 500), (0, 0), (1, 1), (40, 1000), (7, 8)))
            n = hi - lo + 1
            bits = n.bit_length()
            r = a.getrandbits(bits)
            while r >= n:
                r = a.getrandbits(bits)
            assert lo + r == b.randint(lo, hi)
            rate = a.choice((10.0, 0.5, 3))
            b.choice((10.0, 0.5, 3))
            assert -math.log(1.0 - a.random()) / rate == b.expovariate(rate)


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
