# The motorized Roller Ghoster tower: turn one notch, then report which
# staircases saw a ball. The tower never guesses: it reports what the notch
# switch and the beams saw, or a fault.
#
# rotate() result: (status, balls) where status is "ok", "jam" (no notch within
# the timeout, after one back-off and retry) and balls a tuple of ball counts per
# staircase seen from the start of the turn to the end of the settle window.

import asyncio
from time import ticks_add, ticks_diff, ticks_ms, ticks_us

from drivers.alarm import Alarm

OK = "ok"
JAM = "jam"


class Tower:
    def __init__(self, servo, notch, notch_flag, beams, cfg, ratchet=None, reservoir=None):
        self.servo = servo              # ContinuousServo (or None with a ratchet)
        self.ratchet = ratchet          # PositionalServo for the ratchet build
        self.notch = notch              # DebouncedInput, active at a notch
        self.notch_flag = notch_flag
        self._notch_alarm = Alarm(notch_flag)
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
        self.settling = False           # the settle window after a turn: beams still count
        self.on_irq_error = None        # on_irq_error("notch", errors): its IRQ handler raised
        self._irq_errors = 0
        # The notch stop: while the tower seeks the next notch, the switch's
        # own hard IRQ stops the servo the moment it closes, without waiting
        # for the asyncio loop (which a USB write to a host that stopped
        # reading can hold for up to 500 ms, a save or a GC pause for tens
        # of ms). The IRQ follows the turn by itself, so a loop that is late
        # even for the tower leaving its notch cannot make it miss the next:
        # a closing counts once the switch has been open for the debounce
        # time (bounce on leaving is shorter). _notch_irq allocates nothing:
        # bound once here, bools and small ints only. The task then debounces
        # as before; if the closing was a glitch it drives on.
        self._seeking = False
        self._open = False
        self._open_at = 0
        self._leave_us = notch.debounce_us
        self._active_level = notch.active_level
        self.irq_stops = 0
        if servo is not None:
            notch.rec.hook = self._notch_irq

    def reservoir_full(self):
        if self.reservoir is None:
            return True
        self.reservoir.update()
        return self.reservoir.active()

    def _notch_irq(self, level):
        # Hard IRQ (drivers/edges.py hook): no allocation here.
        if not self._seeking:
            return
        now = ticks_us()
        if level != self._active_level:
            self._open = True
            self._open_at = now
        elif self._open and ticks_diff(now, self._open_at) >= self._leave_us:
            self._seeking = False           # the next notch: stop at once
            self.servo.stop()
            self.irq_stops += 1
        else:
            self._open = False              # bounce while leaving the notch

    def _seek(self):
        # Drive towards the next notch with the IRQ stop armed. The switch is
        # taken as open from now if it reads open (after a glitch stop).
        self._open = self.notch.rec.level() != self._active_level
        self._open_at = ticks_us()
        self._seeking = True
        self.servo.drive(1)

    async def _wait_notch(self, want_active, deadline):
        n = self.notch
        while True:
            n.update()
            wait = n.settle_wait_ms()
            if wait == 0 and n.active() == want_active:
                return True
            if self.servo is not None and not self._seeking:
                if not want_active:
                    return True     # the IRQ stopped it at the next notch already
                if wait == 0:
                    self._seek()    # it stopped on a closing that did not hold: drive on
            left = ticks_diff(deadline, ticks_ms())
            if left <= 0:
                return False
            if wait:
                await asyncio.sleep_ms(min(wait, left))
            else:
                # The switch's edge or the deadline (drivers/alarm.py: no
                # wait_for_ms, ~660 B a wake on the port).
                self._notch_alarm.arm_us(left * 1000)
                try:
                    await self.notch_flag.wait()
                finally:
                    self._notch_alarm.cancel()

    async def _one_notch(self):
        deadline = ticks_add(ticks_ms(), self.timeout_ms)
        pushed_at = ticks_ms()
        if self.ratchet is not None:
            # A ratchet push moves exactly one notch, and the tower moves during
            # the stroke: watch the switch while the arm pushes.
            self.ratchet.move(self.ratchet.push_deg)
        else:
            self._seek()            # at the notch: only a closing after leaving counts
        try:
            # Leave the current notch, then arrive at the next one.
            if not await self._wait_notch(False, deadline):
                return False
            return await self._wait_notch(True, deadline)
        finally:
            self._seeking = False
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

    def off(self):
        # Nothing drives the tower any more (the game has stopped: Ctrl-C, a
        # crash). The notch IRQ's stop is disarmed first: it writes a stop
        # pulse from a hard IRQ, and IRQ handlers outlive the program on
        # MicroPython, so a notch reached after the Ctrl-C started the servo's
        # PWM again at the REPL (emulated Pico, 2026-12-02: a pulse 30-150 ms
        # after the Ctrl-C). Never raises.
        self._seeking = False
        for s in (self.servo, self.ratchet):
            if s is not None:
                try:
                    s.off()
                except Exception:  # noqa: BLE001 - keep making the rest safe
                    pass

    def live(self):
        # True while the beams count balls of a turn: turning or settling.
        return self.turning or self.settling

    def check_irq(self):
        e = self.notch.rec.errors
        if e != self._irq_errors:
            self._irq_errors = e
            if self.on_irq_error is not None:
                self.on_irq_error("notch", e)

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
        self.check_irq()
        if not ok:
            self.jams += 1
            return (JAM, self.beams.counts())
        self.rotations += 1
        await self.collect()
        return (OK, self.beams.counts())

    async def collect(self):
        # Balls take a while to roll down: keep counting for the settle window.
        self.settling = True
        try:
            await asyncio.sleep_ms(self.settle_ms)
            self.beams.poll()
        finally:
            self.settling = False

