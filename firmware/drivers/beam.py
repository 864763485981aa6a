# IR break-beam ball counter. Edges come from an EdgeRecorder; this turns them
# into balls: pulses separated by unblocked gaps shorter than gap_us form one
# interruption (edge chatter), an interruption is a ball once the beam has been
# blocked for min_pulse in total (only blocked time counts, so two glitches
# close together never add up to a ball through the gap between them), and a
# beam blocked continuously for longer than stuck_ms is reported as stuck.
# An interruption no ball and no glitch of the envelope makes
# (hardware/sensing-envelope.md) is counted in `odd`: blocked for odd_us or
# more but less than min_pulse (longer than glitches stack, shorter than any
# ball), or lasting longer than long_us but over before stuck_ms (two balls
# run together, a hand). The game then asks the players.
# No allocation per edge; a ball is counted as soon as it has blocked the beam
# for min_pulse, so the LED can react within a few milliseconds.

from time import ticks_add, ticks_diff, ticks_us

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_IDLE = const(0)
_BLOCKED = const(1)
_GAP = const(2)


class Beam:
    def __init__(self, recorder, blocked_level=0, min_pulse_us=4000, gap_us=2000,
                 stuck_ms=2000, long_us=250000, odd_us=0):
        self.rec = recorder
        self.blocked_level = blocked_level
        self.min_pulse_us = min_pulse_us
        self.gap_us = gap_us
        self.stuck_us = stuck_ms * 1000
        self.balls = 0          # balls counted since reset_count()
        self.total = 0          # balls counted since power-up
        self.glitches = 0       # pulses rejected as too short
        self.long_us = long_us
        self.odd_us = odd_us or min_pulse_us
        self.odd = 0            # interruptions of a length no ball or glitch has
        self._first = 0         # start of the current interruption
        self.stuck = False
        self._state = _IDLE
        self._start = 0         # start of the current blocked segment
        self._acc = 0           # blocked time of earlier segments of this interruption
        self._gap_start = 0
        self._counted = False
        self._overruns = 0      # rec.overruns already taken into account
        self._sink = self._edge  # bound once
        if recorder.level() == blocked_level:
            # Blocked at power-up: treat as the start of a (possibly stuck) pulse.
            self._state = _BLOCKED
            self._start = ticks_us()
            self._first = self._start

    def reset_count(self):
        self.balls = 0

    def discard(self):
        # Drop captured edges and forget any pulse in progress (after an emitter
        # test, whose edges are not balls).
        self.rec.read(self._ignore)
        self._state = _IDLE
        if self.rec.level() == self.blocked_level:
            self._state = _BLOCKED
            self._start = ticks_us()
            self._first = self._start
            self._acc = 0
            self._counted = True

    def _ignore(self, t, level):
        pass

    def _count(self):
        self._counted = True
        self.balls += 1
        self.total += 1

    def _edge(self, t, level):
        blocked = level == self.blocked_level
        st = self._state
        if st == _IDLE:
            if blocked:
                self._state = _BLOCKED
                self._start = t
                self._first = t
                self._acc = 0
                self._counted = False
        elif st == _BLOCKED:
            if not blocked:
                self._acc += ticks_diff(t, self._start)
                if not self._counted and self._acc >= self.min_pulse_us:
                    self._count()
                self._state = _GAP
                self._gap_start = t
                self.stuck = False
        else:  # _GAP
            if blocked:
                if ticks_diff(t, self._gap_start) < self.gap_us:
                    self._state = _BLOCKED      # chatter: same interruption
                    self._start = t
                else:
                    self._finish_gap()
                    self._state = _BLOCKED
                    self._start = t
                    self._first = t
                    self._acc = 0
                    self._counted = False

    def _finish_gap(self):
        if not self._counted:
            self.glitches += 1
            if self._acc >= self.odd_us:
                self.odd += 1
        else:
            span = ticks_diff(self._gap_start, self._first)
            if self.long_us < span < self.stuck_us:
                self.odd += 1
        self._state = _IDLE

    def poll(self, now=None):
        # Process captured edges, then time-based transitions. Returns the number
        # of balls newly counted by this call.
        rec = self.rec
        if self._state == _IDLE and not rec.pending() and rec.overruns == self._overruns:
            return 0            # nothing happened and nothing is due: the common case
        before = self.total
        rec.read(self._sink)
        if now is None:
            now = ticks_us()
        if rec.overruns != self._overruns:
            # The ring was full and the newest edges were dropped (the task
            # did not run for a long time): take the beam as it is now.
            self._overruns = rec.overruns
            level = rec.level()
            if (level == self.blocked_level) != (self._state == _BLOCKED):
                self._edge(now, level)
        self._age(now)
        st = self._state
        if st == _BLOCKED:
            held = ticks_diff(now, self._start)
            if not self._counted and self._acc + held >= self.min_pulse_us:
                self._count()
            if held >= self.stuck_us:
                self.stuck = True
        elif st == _GAP and ticks_diff(now, self._gap_start) >= self.gap_us:
            self._finish_gap()
        return self.total - before

    def _age(self, now):
        # ticks_us wraps at 2**30 (about 17.9 minutes) and ticks_diff is only
        # right for times less than half that apart: a start time older than
        # the longest span any decision needs (stuck_us, gap_us) is brought
        # forward to that span, so it never gets old enough to read as the
        # future. poll() runs at least every tick_ms while a beam is not idle
        # (devices/beams.py).
        if self._state == _BLOCKED:
            if ticks_diff(now, self._start) > self.stuck_us:
                if not self._counted:
                    self._count()           # blocked that long: more than a ball's pulse
                self._acc = 0
                self._start = ticks_add(now, -self.stuck_us)
                self._first = self._start
        elif self._state == _GAP and ticks_diff(now, self._gap_start) > self.gap_us:
            self._gap_start = ticks_add(now, -self.gap_us)

    def idle(self):
        return self._state == _IDLE

    def blind_us(self, now):
        # How long the task may sleep without looking at new edges and still
        # count every ball on time: a ball is decided once its interruption
        # has been blocked for min_pulse, so no interruption that starts (or,
        # in a gap, resumes) during the sleep can fall due before this.
        st = self._state
        if st == _BLOCKED and not self._counted:
            return max(0, self.min_pulse_us - self._acc - ticks_diff(now, self._start))
        if st == _GAP and not self._counted:
            return self.min_pulse_us - self._acc
        return self.min_pulse_us

    def next_deadline_us(self, now):
        # Microseconds until poll() has a time-based decision to make, or -1 if
        # only a new edge can change anything (so the task can sleep on its flag).
        st = self._state
        if st == _BLOCKED:
            held = ticks_diff(now, self._start)
            if not self._counted:
                return max(0, self.min_pulse_us - self._acc - held)
            if not self.stuck:
                return max(0, self.stuck_us - held)
            return -1
        if st == _GAP:
            return max(0, self.gap_us - ticks_diff(now, self._gap_start))
        return -1
