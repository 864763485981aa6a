# The motorized Roller Ghoster tower: turn one notch, then report which
# staircases saw a ball. The tower never guesses: it reports what the notch
# switch and the beams saw, or a fault.
#
# rotate() result: (status, balls) where status is "ok", "jam" (no notch within
# the timeout, after one back-off and retry) and balls a tuple of ball counts per
# staircase seen from the start of the turn to the end of the settle window.

import asyncio
from time import ticks_add, ticks_diff, ticks_ms

OK = "ok"
JAM = "jam"


class Tower:
    def __init__(self, servo, notch, notch_flag, beams, cfg, ratchet=None, reservoir=None):
        self.servo = servo              # ContinuousServo (or None with a ratchet)
        self.ratchet = ratchet          # PositionalServo for the ratchet build
        self.notch = notch              # DebouncedInput, active at a notch
        self.notch_flag = notch_flag
        self.beams = beams              # BeamBank
        self.reservoir = reservoir      # DebouncedInput, active when 3 balls are in, or None
        self.timeout_ms = cfg.get("notch_timeout_ms", 2500)
        self.backoff_ms = cfg.get("backoff_ms", 300)
        rc = cfg.get("ratchet") or {}
        self.push_ms = rc.get("push_ms", 400)
        self.settle_ms = 1500
        self.rotations = 0
        self.jams = 0
        self.turning = False

    def reservoir_full(self):
        if self.reservoir is None:
            return True
        self.reservoir.update()
        return self.reservoir.active()

    async def _wait_notch(self, want_active, deadline):
        n = self.notch
        while True:
            n.update()
            wait = n.settle_wait_ms()
            if wait == 0 and n.active() == want_active:
                return True
            left = ticks_diff(deadline, ticks_ms())
            if left <= 0:
                return False
            if wait:
                await asyncio.sleep_ms(min(wait, left))
            else:
                try:
                    await asyncio.wait_for_ms(self.notch_flag.wait(), left)
                except asyncio.TimeoutError:
                    pass

    async def _one_notch(self):
        deadline = ticks_add(ticks_ms(), self.timeout_ms)
        pushed_at = ticks_ms()
        if self.ratchet is not None:
            # A ratchet push moves exactly one notch, and the tower moves during
            # the stroke: watch the switch while the arm pushes.
            self.ratchet.move(self.ratchet.push_deg)
        else:
            self.servo.drive(1)
        try:
            # Leave the current notch, then arrive at the next one.
            if not await self._wait_notch(False, deadline):
                return False
            return await self._wait_notch(True, deadline)
        finally:
            if self.servo is not None:
                self.servo.stop()
            else:
                # Let the arm finish its stroke, then bring it back to rest.
                left = self.push_ms - ticks_diff(ticks_ms(), pushed_at)
                if left > 0:
                    await asyncio.sleep_ms(left)
                self.ratchet.move(self.ratchet.rest_deg)

    async def _back_off(self):
        if self.servo is not None:
            self.servo.drive(-0.5)
            await asyncio.sleep_ms(self.backoff_ms)
            self.servo.stop()
        elif self.ratchet is not None:
            self.ratchet.move(self.ratchet.rest_deg)
            await asyncio.sleep_ms(self.backoff_ms)

    async def rotate(self):
        self.beams.reset_counts()
        self.turning = True
        try:
            ok = await self._one_notch()
            if not ok:
                await self._back_off()
                ok = await self._one_notch()
        finally:
            self.turning = False
            if self.servo is not None:
                self.servo.off()
            elif self.ratchet is not None:
                self.ratchet.off()
        if not ok:
            self.jams += 1
            return (JAM, self.beams.counts())
        self.rotations += 1
        await self.collect()
        return (OK, self.beams.counts())

    async def collect(self):
        # Balls take a while to roll down: keep counting for the settle window.
        await asyncio.sleep_ms(self.settle_ms)
        self.beams.poll()
