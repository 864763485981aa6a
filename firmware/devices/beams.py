# All staircase beams behind one ThreadSafeFlag: the IRQs set the flag, one task
# decodes balls and reports them. The task sleeps until an edge or until the next
# time-based decision of a decoder; it never busy-polls.

import asyncio
from time import ticks_us


class BeamBank:
    def __init__(self, beams, flag, on_ball=None, on_stuck=None, emitters=None):
        self.beams = beams
        self.flag = flag
        self.emitters = emitters    # output Pin powering the IR emitters (high = on), or None
        self.testing = False
        self.on_ball = on_ball      # on_ball(staircase, count)
        self.on_stuck = on_stuck    # on_stuck(staircase, stuck: bool)
        self._stuck_seen = [False] * len(beams)
        self.on_irq_error = None    # on_irq_error(staircase, errors): its IRQ handler raised
        self._errors_seen = [0] * len(beams)
        self.healthy_at = 0         # ticks_ms of the last loop pass (watchdog health)
        # A beam that rejected this many glitches since reset_counts(), or saw
        # an interruption longer than a ball makes, is doubtful (doubtful()).
        self.doubt_glitches = 60
        self._marks = [0] * (2 * len(beams))

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
            d = b.next_deadline_us(now)
            if d >= 0 and (wait < 0 or d < wait):
                wait = d
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
        return tuple(dead)

    async def run(self):
        from time import ticks_ms
        while True:
            self.healthy_at = ticks_ms()
            wait = -1 if self.testing else self.poll()
            if wait < 0:
                # Idle: wake on an edge, or once a second to show we are alive.
                wait = 1000000
            try:
                await asyncio.wait_for_ms(self.flag.wait(), wait // 1000 + 1)
            except asyncio.TimeoutError:
                pass
