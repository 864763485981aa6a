# The instrumented pinball table: every sensor line (monster spots, clue spots,
# hole beams, the Summoning Circle, the launch-pad beam) sits on an MCP23017
# pin. The chips' INT lines go to Pico GPIOs whose hard IRQ only records the
# time (EdgeRecorder) and sets one flag; the table task then reads the chip
# (INTCAP + GPIO), feeds the edges to one Line decoder per sensor and queues
# the decoded events. TurnWindow turns that stream into one player's turn.
#
# All lines are normalised by the chip (IPOL) so that 1 = "active": a spot
# whose standee/clue is not in place, a beam that is blocked, an occupied circle.
#
# Events are tuples (line_name, kind, t_us). A Line counts an event when the
# line has been active for min_us in total within one interruption; returns to
# rest shorter than gap_us (contact bounce, beam chatter) belong to the same
# interruption. Short glitches never add up to min_us, so they are dropped.

import asyncio
from array import array
from time import ticks_add, ticks_diff, ticks_ms, ticks_us

from drivers.alarm import Alarm

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_REST = const(0)
_ACTIVE = const(1)
_GAP = const(2)
_IDLE_US = const(1000000)
_MAX_EVENTS = const(64)
# ticks_us wraps at 2**30 (about 17.9 minutes) and ticks_diff is right only for
# times less than 2**29 us (about 8.9 minutes) apart: a time stamp older than
# that reads as the future. Every stamp kept for longer than a decision needs
# is brought forward to _AGE_US before now (step() runs at least once a second,
# run()), so "resting for", "quiet since" and the like stay right after any
# break: 2 minutes is more than any window, quiet or place time asks for.
_AGE_US = const(120000000)
# Every line is looked at (its stamps aged) at least this often; in between a
# step looks only at the lines an edge has made busy (Table._busy).
_SWEEP_US = const(1000000)


# A Line's state, one slot each in its array (see Line).
_LEVEL = const(0)       # the line's level (1 = active)
_STATE = const(1)       # _REST, _ACTIVE or _GAP
_START = const(2)       # when the line last became active
_ACC = const(3)         # time active so far in this interruption
_GAP_START = const(4)   # when the line last went back to rest
_COUNTED = const(5)     # this interruption has been counted as an event
_LAST_EDGE = const(6)
_COUNT = const(7)       # events counted since power-up
_KNOWN = const(8)       # 0 while its chip does not answer
_GLITCHES = const(9)    # interruptions too short to count
_STIRRED = const(10)    # see Line.__init__
_ODD = const(11)        # see Line.__init__
_G_MARK = const(12)     # _GLITCHES and _ODD at Table.mark_noise()
_O_MARK = const(13)
_MIN_US = const(14)
_GAP_US = const(15)
_ACT_US = const(16)
_BUSY = const(17)       # in the table's busy list (Table._busy)
_SLOTS = const(18)


class Line:
    # One sensor line. Its state is in one array of ints (self.v, slots _LEVEL
    # ... _ACT_US above), not in attributes: on MicroPython every attribute of
    # an instance is an entry of its own table, and a Line with 19 attributes
    # took 208 B (measured on the rp2 port: docs/performance.md). Only the
    # name and the kind are attributes (the events carry them).
    def __init__(self, name, kind, min_us, gap_us, act_us=3000):
        self.name = name
        self.kind = kind
        v = self.v = array("i", [0] * _SLOTS)
        v[_MIN_US] = min_us
        v[_GAP_US] = gap_us
        v[_ACT_US] = act_us if act_us < min_us else min_us
        # _STIRRED is set when an interruption ended that shows something moved
        # without being an event: a die left the circle, a die rolled across it
        # (active >= act_us but < min_us). The table counts it as activity.
        # _ODD counts interruptions of a length no event and no glitch has
        # (act_us or more, less than min_us; not the circle, where a die rolling
        # across makes them): hardware/sensing-envelope.md. Table.doubtful()
        # compares them, and the glitches, with the marks of Table.mark_noise().

    def counts(self):
        # (events, glitches, odd interruptions) since power-up.
        v = self.v
        return v[_COUNT], v[_GLITCHES], v[_ODD]

    def init(self, level, t):
        # Level learnt from the chip: an active line at start-up (an empty spot,
        # a die left in the circle) is taken as already counted.
        v = self.v
        v[_LEVEL] = level
        v[_LAST_EDGE] = t
        v[_KNOWN] = 1
        if level:
            v[_STATE] = _ACTIVE
            v[_START] = t
            v[_ACC] = v[_MIN_US]
            v[_COUNTED] = 1
        else:
            v[_STATE] = _REST
            v[_COUNTED] = 0

    def edge(self, t, level):
        # Returns 1 if this edge completed an event.
        v = self.v
        v[_LEVEL] = level
        v[_LAST_EDGE] = t
        st = v[_STATE]
        if st == _REST:
            if level:
                v[_STATE] = _ACTIVE
                v[_START] = t
                v[_ACC] = 0
                v[_COUNTED] = 0
            return 0
        if st == _ACTIVE:
            if not level:
                acc = v[_ACC] + ticks_diff(t, v[_START])
                # Only ever compared with min_us and act_us: capped, so that
                # a line chattering for half an hour still fits its slot.
                v[_ACC] = acc if acc < _AGE_US else _AGE_US
                v[_STATE] = _GAP
                v[_GAP_START] = t
                if not v[_COUNTED] and acc >= v[_MIN_US]:
                    v[_COUNTED] = 1
                    v[_COUNT] += 1
                    return 1
            return 0
        if level:                               # _GAP
            if ticks_diff(t, v[_GAP_START]) < v[_GAP_US]:
                v[_STATE] = _ACTIVE             # bounce/chatter: same interruption
                v[_START] = t
            else:
                self._end_gap()
                v[_STATE] = _ACTIVE
                v[_START] = t
                v[_ACC] = 0
                v[_COUNTED] = 0
        return 0

    def _end_gap(self):
        v = self.v
        if v[_COUNTED] or v[_ACC] >= v[_ACT_US]:
            v[_STIRRED] = 1
            if not v[_COUNTED] and self.kind != "circle":
                v[_ODD] += 1
        else:
            v[_GLITCHES] += 1
        v[_STATE] = _REST

    def poll(self, now):
        # Time-based decisions. Returns 1 if an event was counted now.
        v = self.v
        if ticks_diff(now, v[_LAST_EDGE]) > _AGE_US:
            v[_LAST_EDGE] = ticks_add(now, -_AGE_US)
        st = v[_STATE]
        if st == _ACTIVE and v[_COUNTED] and ticks_diff(now, v[_START]) > _AGE_US:
            v[_START] = ticks_add(now, -_AGE_US)       # only ever compared once counted
        if st == _ACTIVE:
            if not v[_COUNTED] and v[_ACC] + ticks_diff(now, v[_START]) >= v[_MIN_US]:
                v[_COUNTED] = 1
                v[_COUNT] += 1
                return 1
        elif st == _GAP and ticks_diff(now, v[_GAP_START]) >= v[_GAP_US]:
            self._end_gap()
        return 0

    def undecided(self):
        # An interruption is under way that may still become an event, or has
        # just ended and may turn out to be activity (once gap_us has passed).
        v = self.v
        if not v[_KNOWN]:
            return False
        return v[_STATE] == _GAP or (v[_STATE] == _ACTIVE and not v[_COUNTED])

    def deadline_us(self, now):
        # Microseconds until poll() has something to decide, or -1.
        v = self.v
        st = v[_STATE]
        if st == _ACTIVE and not v[_COUNTED]:
            return max(0, v[_MIN_US] - v[_ACC] - ticks_diff(now, v[_START]))
        if st == _GAP:
            return max(0, v[_GAP_US] - ticks_diff(now, v[_GAP_START]))
        return -1

    def resting_for_us(self, now):
        # How long the line has been at rest (in place / clear), or -1 if active.
        v = self.v
        if not v[_KNOWN] or v[_LEVEL]:
            return -1
        return ticks_diff(now, v[_LAST_EDGE])


class Expander:
    # One MCP23017 with its INT recorder and the Line on each of its pins.
    def __init__(self, name, chip, recorder, lines, int_level=0):
        self.name = name
        self.chip = chip
        self.rec = recorder
        self.lines = lines              # list of 16: Line or None
        self.int_level = int_level      # level of the INT line when asserted
        self.t_int = 0
        self.retry_at = 0
        self.check_at = 0
        self.reported = False           # the current outage has been published
        self.int_sink = self._int_edge  # bound once: no allocation per call
        self.pin_sink = self._pin_edge
        self.table = None

    def _int_edge(self, t, level):
        if level == self.int_level:
            self.t_int = t

    def _pin_edge(self, i, t, level):
        ln = self.lines[i]
        if ln is not None:
            if ln.edge(t, level):
                self.table._event(ln, t)
            if not ln.v[_BUSY]:
                self.table._add_busy(ln)


class Table:
    def __init__(self, expanders, flag, bus=None, retry_ms=1000, check_ms=2000):
        self.expanders = expanders
        self.flag = flag
        self.bus = bus
        self.retry_us = retry_ms * 1000
        self.check_us = check_ms * 1000
        self.lines = {}
        for x in expanders:
            x.table = self
            for ln in x.lines:
                if ln is not None:
                    self.lines[ln.name] = ln
        # The lines an edge has touched that may still have a decision to
        # make (an interruption under way or just ended): a step polls only
        # these, and every line once per _SWEEP_US. Polling all ~30 lines took
        # 2.0 ms a step on the rp2 port (docs/performance.md), and a sensor
        # event waits for two steps (the table task's and the turn window's).
        # A fixed list and a count, so that nothing allocates per step.
        self._busy = [None] * len(self.lines)  # type: list
        self._nbusy = 0
        self._sweep_at = ticks_us()
        self.events = []
        # Both waits (the table task's on the INT flag, a consumer's on
        # `changed`) are a ThreadSafeFlag that an edge, an event or an Alarm
        # sets: no asyncio.wait_for_ms, which allocates ~660 B a wake on the
        # port (drivers/alarm.py). `changed` has one waiter at a time (the
        # controller's turn), as a ThreadSafeFlag allows.
        self._alarm = Alarm(flag)
        self.changed = asyncio.ThreadSafeFlag()
        self._change_alarm = Alarm(self.changed)
        # While a turn window is open, its deliver(): the table task hands it
        # the events a step decided at once, instead of waking the window's
        # task for them (one task hop less from a hit to its LEDs, ~2.5 ms
        # on the port: docs/performance.md).
        self.sink = None
        self.last_event_us = ticks_us()
        self.last_activity_us = self.last_event_us   # last event or release
        self.healthy_at = 0
        self.steps = 0
        self.downs = 0          # chip outages so far (a window compares before/after)
        self.dropped = 0        # events dropped from a full queue
        self.doubt_glitches = 20    # glitches on one line in one turn that make it doubtful

    # ---- start-up and faults -------------------------------------------

    def start(self):
        # Configure every chip and learn the line levels. A chip that does not
        # answer is reported and retried by the task.
        now = ticks_us()
        for x in self.expanders:
            x.rec.read(x.int_sink)
            if x.chip.configure():
                self._learn(x, now)
            else:
                self._down(x, now)
            x.check_at = ticks_add(now, self.check_us)

    def _learn(self, x, now):
        st = x.chip.state
        for i in range(16):
            ln = x.lines[i]
            if ln is not None:
                ln.init((st >> i) & 1, now)

    def _down(self, x, now):
        for ln in x.lines:
            if ln is not None:
                ln.v[_KNOWN] = 0
        x.retry_at = ticks_add(now, self.retry_us)
        if not x.reported:
            x.reported = True
            self.downs += 1
            self._publish(("fault", "expander", x.name, self._why(x.chip)))

    def _why(self, chip):
        if chip.status == 2:
            return "does not hold its configuration"
        return "not answering (errno %d)" % chip.errno

    def _up(self, x, now):
        for ln in x.lines:
            if ln is not None:
                ln.v[_KNOWN] = 1
        if x.reported:
            x.reported = False
            self._publish(("fault", "expander_ok", x.name))

    def _publish(self, ev):
        if self.bus is not None:
            self.bus.publish(ev)

    def faulted(self):
        return [x.name for x in self.expanders if not x.chip.ok]

    def any_faulted(self):
        # bool(faulted()) without the list (asked on every LED frame).
        for x in self.expanders:
            if not x.chip.ok:
                return True
        return False

    def mark_noise(self):
        # The start of a turn for doubtful().
        for name in self.lines:
            v = self.lines[name].v
            v[_G_MARK] = v[_GLITCHES]
            v[_O_MARK] = v[_ODD]

    def doubtful(self):
        # The first line that, since mark_noise(), saw an interruption of a
        # length no event and no glitch has, or more glitches than the
        # envelope allows in a turn (hardware/sensing-envelope.md); or None.
        for name in self.lines:
            v = self.lines[name].v
            if v[_ODD] != v[_O_MARK] or v[_GLITCHES] - v[_G_MARK] >= self.doubt_glitches:
                return name
        return None

    def line_ok(self, name):
        ln = self.lines.get(name)
        return ln is not None and ln.v[_KNOWN] == 1

    # ---- the task ------------------------------------------------------

    def _event(self, ln, t):
        if len(self.events) >= _MAX_EVENTS:
            # Nobody is listening (between games): keep the newest only.
            self.events.pop(0)
            self.dropped += 1
        self.events.append((ln.name, ln.kind, t))
        self.last_event_us = t
        self._activity(t)
        self.changed.set()

    def _add_busy(self, ln):
        ln.v[_BUSY] = 1
        self._busy[self._nbusy] = ln
        self._nbusy += 1

    def _activity(self, t):
        if ticks_diff(t, self.last_activity_us) > 0:
            self.last_activity_us = t

    def step(self):
        # Service the chips and decide what time allows. Returns how long (us)
        # the task may sleep if no INT edge comes.
        self.steps += 1
        now = ticks_us()
        if ticks_diff(now, self.last_activity_us) > _AGE_US:
            self.last_activity_us = ticks_add(now, -_AGE_US)
        if ticks_diff(now, self.last_event_us) > _AGE_US:
            self.last_event_us = ticks_add(now, -_AGE_US)
        wait = _IDLE_US
        for x in self.expanders:
            chip = x.chip
            if not chip.ok:
                x.rec.read(x.int_sink)
                if ticks_diff(now, x.retry_at) >= 0:
                    if chip.configure():
                        # Back: take the levels as they are now. What changed
                        # meanwhile is not replayed as events (the referee has
                        # entered what the sensors missed).
                        self._learn(x, now)
                        self._up(x, now)
                        x.check_at = ticks_add(now, self.check_us)
                    else:
                        x.retry_at = ticks_add(now, self.retry_us)
                left = ticks_diff(x.retry_at, now)
                if chip.ok:
                    left = 0
                if left < wait:
                    wait = max(left, 0)
                continue
            n = x.rec.read(x.int_sink)
            asserted = x.rec.level() == x.int_level
            if n or asserted:
                t = x.t_int if n else now
                if chip.service(t, x.pin_sink) < 0:
                    self._down(x, now)
                    continue
                if x.rec.level() == x.int_level:
                    wait = 1000         # still asserted: look again soon
            if ticks_diff(now, x.check_at) >= 0:
                x.check_at = ticks_add(now, self.check_us)
                if not chip.check():
                    # Lost power or its configuration: rewrite and resync.
                    if chip.configure():
                        self.downs += 1
                        self._learn(x, now)
                        self._up(x, now)
                    else:
                        self._down(x, now)
                        continue
            left = ticks_diff(x.check_at, now)
            if left < wait:
                wait = max(left, 0)
        now = ticks_us()
        if ticks_diff(now, self._sweep_at) >= 0:
            self._sweep_at = ticks_add(now, _SWEEP_US)
            for name in self.lines:
                wait = self._poll_line(self.lines[name], now, wait)
        busy = self._busy
        i = 0
        while i < self._nbusy:
            ln = busy[i]
            wait = self._poll_line(ln, now, wait)
            if ln.undecided():
                i += 1
            else:
                # Decided (or its chip is down: _learn starts it afresh):
                # the last busy line takes its place.
                ln.v[_BUSY] = 0
                self._nbusy -= 1
                busy[i] = busy[self._nbusy]
                busy[self._nbusy] = None
        return wait

    def _poll_line(self, ln, now, wait):
        # One line's time-based decisions; returns wait, shortened to its deadline.
        v = ln.v
        if v[_KNOWN]:
            if ln.poll(now):
                self._event(ln, now)
            if v[_STIRRED]:
                # Something moved without making an event: not quiet yet.
                v[_STIRRED] = 0
                self._activity(v[_GAP_START])
            d = ln.deadline_us(now)
            if 0 <= d < wait:
                wait = d
        return wait

    async def run(self):
        flag = self.flag
        try:
            while True:
                self.healthy_at = ticks_ms()
                wait = self.step()
                if self.events and self.sink is not None:
                    self.sink()
                # An INT edge or the alarm, whichever comes first; an alarm
                # left from a wake by an edge is replaced here (arm), and one
                # that fired meanwhile costs one extra step at most.
                self._alarm.arm_us(wait)
                await flag.wait()
        finally:
            self._alarm.cancel()

    # ---- queries for the controller --------------------------------------

    def next_event(self):
        if self.events:
            return self.events.pop(0)
        return None

    def clear_events(self):
        self.events = []

    def undecided(self):
        # Only a busy line can be undecided (an edge made it so).
        busy = self._busy
        for i in range(self._nbusy):
            if busy[i].undecided():
                return True
        return False

    def decide_wait_us(self):
        # Time until the first undecided interruption is decided, or -1.
        now = ticks_us()
        best = -1
        busy = self._busy
        for i in range(self._nbusy):
            ln = busy[i]
            if ln.undecided():
                d = ln.deadline_us(now)
                if d >= 0 and (best < 0 or d < best):
                    best = d
        return best

    def resting(self, name, ms):
        # True if the line has been at rest (object in place / beam clear) for
        # ms, False if not, None if it cannot be known (chip down).
        ln = self.lines.get(name)
        if ln is None or not ln.v[_KNOWN]:
            return None
        r = ln.resting_for_us(ticks_us())
        return r >= ms * 1000

    def rest_wait_ms(self, name, ms):
        # Milliseconds until resting(name, ms) can become true without a new
        # edge, or -1 if the line is active (or unknown).
        ln = self.lines.get(name)
        if ln is None or not ln.v[_KNOWN]:
            return -1
        r = ln.resting_for_us(ticks_us())
        if r < 0:
            return -1
        left = ms * 1000 - r
        return 0 if left <= 0 else left // 1000 + 1

    def active(self, name):
        ln = self.lines.get(name)
        return ln is not None and ln.v[_KNOWN] == 1 and ln.v[_LEVEL] == 1

    def wake(self):
        self.changed.set()

    async def wait_change(self, ms):
        # Sleep until the table has news (an event, a wake()) or ms elapse.
        # The flag clears itself as the wait returns.
        alarm = self._change_alarm
        alarm.arm_us(ms * 1000)
        try:
            await self.changed.wait()
        finally:
            alarm.cancel()


class TurnWindow:
    # One turn's events: they start at the launch (the launch-pad beam, the
    # first event that matters, or the player's confirm) and end once the table
    # has been quiet for quiet_ms (no event counted, no line back at rest after
    # an event or a shorter real interruption, e.g. a die knocked out of or
    # rolling across the circle, and no interruption still being decided), when
    # the player confirms, or after max_ms at most.
    def __init__(self, table, quiet_ms=1500, max_ms=30000):
        self.table = table
        self.quiet_ms = quiet_ms
        self.max_ms = max_ms
        self.reason = None
        self.count = 0
        self.length_ms = 0
        self.wait_us = 0
        self._t0 = 0
        self._last = 0
        self._on_event = None
        self._error = None
        self._deliver = self.deliver    # bound once: the table calls it

    async def wait_start(self, relevant, confirmed=None):
        # Waits for the launch. Returns the event that opened the window (a
        # launch-beam event or the first relevant one), or None if the player
        # confirmed instead. Events that do not matter are dropped.
        while True:
            ev = self.poll_start(relevant)
            if ev is not None:
                return ev
            if confirmed is not None and confirmed():
                return None
            await self.table.wait_change(1000)

    def poll_start(self, relevant):
        # One look at the table before the launch: the opening event, or None.
        t = self.table
        t.step()
        ev = t.next_event()
        while ev is not None:
            if ev[1] == "launch" or relevant(ev):
                return ev
            ev = t.next_event()
        return None

    async def run(self, on_event, confirmed=None, first=None):
        # Calls on_event(ev) for every event of the turn, in order; returns the
        # reason the window closed: "quiet", "confirm" or "timeout".
        self.open(on_event, first)
        try:
            while True:
                reason = self.poll(on_event, confirmed)
                if reason is not None:
                    return reason
                await self.table.wait_change(self.wait_us // 1000 + 1)
        finally:
            self.table.sink = None

    # open() and poll() are run()'s steps without the waiting (the benchmark
    # drives them on a virtual clock).

    def open(self, on_event, first=None):
        self._t0 = ticks_us()
        self._last = self._t0
        self.count = 0
        self.reason = None
        self._on_event = on_event
        self._error = None
        if first is not None and first[1] != "launch":
            self.count += 1
            on_event(first)
            self._last = first[2]
        self.table.sink = self._deliver

    def deliver(self):
        # The table task's call after a step that decided events: on_event
        # for each, in order, in that task. An error is not left to stop the
        # table task: it is kept for the window's own task, which raises it
        # (as if on_event had failed there) at its next poll.
        try:
            self._drain()
        except Exception as e:
            self.table.sink = None
            self._error = e
            self.table.wake()

    def _drain(self):
        t = self.table
        on_event = self._on_event
        ev = t.next_event()
        while ev is not None:
            self.count += 1
            on_event(ev)
            ev = t.next_event()

    def poll(self, on_event, confirmed=None):
        # Hands the events decided so far to on_event. Returns the reason the
        # window closes now, or None (then wait_us: how long nothing can change).
        e = self._error
        if e is not None:
            self._error = None
            raise e
        t = self.table
        self._on_event = on_event
        t.step()
        self._drain()
        if ticks_diff(t.last_activity_us, self._last) > 0:
            self._last = t.last_activity_us
        now = ticks_us()
        t0 = self._t0
        reason = None
        if confirmed is not None and confirmed():
            reason = "confirm"
        elif ticks_diff(now, t0) >= self.max_ms * 1000:
            reason = "timeout"
        else:
            d = t.decide_wait_us()
            if d >= 0:
                wait = d
            else:
                wait = self.quiet_ms * 1000 - ticks_diff(now, self._last)
                if wait <= 0:
                    reason = "quiet"
            if reason is None:
                left = self.max_ms * 1000 - ticks_diff(now, t0)
                self.wait_us = left if left < wait else wait
                return None
        self.reason = reason
        self.length_ms = ticks_diff(ticks_us(), t0) // 1000
        t.sink = None
        return reason
