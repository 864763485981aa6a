# IR break-beam ball counter. Edges come from an EdgeRecorder; this turns them
# into balls: pulses separated by unblocked gaps shorter than gap_us form one
# interruption (edge chatter), an interruption is a ball once the beam has been
# blocked for min_pulse in total (only blocked time counts, so two glitches
# close together never add up to a ball through the gap between them), and a
# beam blocked continuously for longer than stuck_ms is reported as stuck.
# No allocation per edge; a ball is counted as soon as it has blocked the beam
# for min_pulse, so the LED can react within a few milliseconds.

from time import ticks_diff, ticks_us

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_IDLE = const(0)
_BLOCKED = const(1)
_GAP = const(2)


class Beam:
    def __init__(self, recorder, blocked_level=0, min_pulse_us=3000, gap_us=4000,
                 stuck_ms=2000):
        self.rec = recorder
        self.blocked_level = blocked_level
        self.min_pulse_us = min_pulse_us
        self.gap_us = gap_us
        self.stuck_us = stuck_ms * 1000
        self.balls = 0          # balls counted since reset_count()
        self.total = 0          # balls counted since power-up
        self.glitches = 0       # pulses rejected as too short
        self.stuck = False
        self._state = _IDLE
        self._start = 0         # start of the current blocked segment
        self._acc = 0           # blocked time of earlier segments of this interruption
        self._gap_start = 0
        self._counted = False
        self._sink = self._edge  # bound once
        if recorder.level() == blocked_level:
            # Blocked at power-up: treat as the start of a (possibly stuck) pulse.
            self._state = _BLOCKED
            self._start = ticks_us()

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
                    self._acc = 0
                    self._counted = False

    def _finish_gap(self):
        if not self._counted:
            self.glitches += 1
        self._state = _IDLE

    def poll(self, now=None):
        # Process captured edges, then time-based transitions. Returns the number
        # of balls newly counted by this call.
        before = self.total
        self.rec.read(self._sink)
        if now is None:
            now = ticks_us()
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
