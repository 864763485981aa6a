# All staircase beams behind one ThreadSafeFlag: the IRQs set the flag, one task
# decodes balls and reports them. The task sleeps until an edge or until the next
# time-based decision of a decoder; it never busy-polls.
#
# How it waits matters on the Pico: asyncio.wait_for_ms builds two tasks, a
# closure and a cancellation on every call (about 670 B a wake on the rp2 port,
# and a noisy beam wakes the task tens of times a second), so it never uses
# it. The task waits in one of three ways:
# - a decision due soon (a pulse that may become a ball, a gap that may end a
#   glitch): asyncio.sleep_ms, blind to new edges. The IRQs timestamp edges in
#   their rings, and the sleep is never longer than Beam.blind_us, the time
#   before which no edge arriving meanwhile could make a ball due, so no ball
#   is counted later for it.
# - a decision far off (a ball still in the beam, due to be called stuck after
#   stuck_ms) or none at all: the flag alone. The ticker task sets the flag
#   every tick_ms while a beam is not idle, so a stuck beam is reported at most
#   tick_ms late and the decoders' start times never get old enough to wrap.
# - anything else (rare: a decision due soon that another beam's blind limit
#   forbids sleeping through): the flag, which an Alarm (drivers/alarm.py)
#   also sets when the decision is due.

import asyncio
from time import ticks_us

from drivers.alarm import Alarm


class BeamBank:
    def __init__(self, beams, flag, on_ball=None, on_stuck=None, emitters=None):
        self.beams = beams
        self.flag = flag
        self._alarm = Alarm(flag)
        self.emitters = emitters    # output Pin powering the IR emitters (high = on), or None
        self.testing = False
        self.on_ball = on_ball      # on_ball(staircase, count)
        self.on_stuck = on_stuck    # on_stuck(staircase, stuck: bool)
        self._stuck_seen = [False] * len(beams)
        self.on_irq_error = None    # on_irq_error(staircase, errors): its IRQ handler raised
        self._errors_seen = [0] * len(beams)
        # A beam that rejected this many glitches since reset_counts(), or saw
        # an interruption longer than a ball makes, is doubtful (doubtful()).
        self.doubt_glitches = 60
        self._marks = [0] * (2 * len(beams))
        self.tick_ms = 250
        self.coarse_us = 250000     # a decision further off than this waits for the ticker
        self._blind = 0             # the shortest Beam.blind_us of the last poll()
        self._busy = False          # a beam was not idle at the last poll()

    def counts(self):
        return tuple(b.balls for b in self.beams)

    def reset_counts(self):
        m = self._marks
        for k in range(len(self.beams)):
            b = self.beams[k]
            b.reset_count()
            m[2 * k] = b.glitches
            m[2 * k + 1] = b.odd

    def doubtful(self):
        # Staircases whose count this turn cannot be trusted: more glitches
        # than the envelope allows, or an interruption no ball and no glitch
        # makes (hardware/sensing-envelope.md). The game asks the players.
        m = self._marks
        return tuple(k + 1 for k in range(len(self.beams))
                     if self.beams[k].glitches - m[2 * k] >= self.doubt_glitches
                     or self.beams[k].odd != m[2 * k + 1])

    def stuck(self):
        return tuple(k + 1 for k in range(len(self.beams)) if self.beams[k].stuck)

    def poll(self):
        # Decode every beam now; returns the shortest wait (us) any decoder asks for, or -1.
        now = ticks_us()
        wait = -1
        blind = 1 << 30
        busy = False
        for k in range(len(self.beams)):
            b = self.beams[k]
            n = b.poll(now)
            if n and self.on_ball is not None:
                self.on_ball(k + 1, n)
            e = b.rec.errors
            if e != self._errors_seen[k]:
                self._errors_seen[k] = e
                if self.on_irq_error is not None:
                    self.on_irq_error(k + 1, e)
            if b.stuck != self._stuck_seen[k]:
                self._stuck_seen[k] = b.stuck
                if self.on_stuck is not None:
                    self.on_stuck(k + 1, b.stuck)
            if not b._state:    # b.idle() (_IDLE is 0), without a call per beam and poll
                e = b.min_pulse_us      # b.blind_us(now), with no deadline
            else:
                busy = True
                d = b.next_deadline_us(now)
                if d >= 0 and (wait < 0 or d < wait):
                    wait = d
                e = b.blind_us(now)
            if e < blind:
                blind = e
        self._blind = blind
        self._busy = busy
        return wait

    async def test_receivers(self, settle_ms=5):
        # Switch the emitters off: every working receiver must then read
        # "blocked"; one that stays clear is dead or disconnected. Returns the
        # staircases whose receiver failed (empty without an emitter pin).
        if self.emitters is None:
            return ()
        self.testing = True
        dead = []
        try:
            self.emitters.value(0)
            await asyncio.sleep_ms(settle_ms)
            for k in range(len(self.beams)):
                b = self.beams[k]
                if b.rec.level() != b.blocked_level:
                    dead.append(k + 1)
        finally:
            self.emitters.value(1)
        await asyncio.sleep_ms(settle_ms)
        for b in self.beams:
            b.discard()
        self.testing = False
        self.flag.set()         # the run task decides on the beams as they are now
        return tuple(dead)

    async def run(self):
        flag = self.flag
        while True:
            # Cleared before the poll: an edge after it sets the flag again, so
            # none is left unread while the task waits.
            flag.clear()
            wait = -1 if self.testing else self.poll()
            if 0 <= wait <= self._blind:
                await asyncio.sleep_ms((wait + 999) // 1000)
            elif wait < 0 or wait > self.coarse_us:
                await flag.wait()
            else:
                # An alarm left from here after an edge came first sets the
                # flag once more later: one extra poll, nothing else.
                self._alarm.arm_us(wait)
                await flag.wait()

    async def tick(self):
        # The slow decisions' clock (see the top of this file); it only sets
        # the flag, and only while a beam is busy.
        while True:
            await asyncio.sleep_ms(self.tick_ms)
            if self._busy:
                self.flag.set()
