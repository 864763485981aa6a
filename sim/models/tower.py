"""Physical model of the motorized Roller Ghoster tower.

It listens to the servo's PWM and drives the notch switch and the four beam
receivers the way the real build would:

- the servo's pulse width sets the angular speed (stop width = still);
- the notch switch closes within a small window around each notch and bounces
  on every transition;
- on each arrival at a notch the tower releases balls through its exits
  (a configurable release model), each ball rolls down its staircase and
  blocks that staircase's beam for a few tens of milliseconds;
- noise (switch bounce, beam glitches, edge chatter) and faults (jammed servo,
  stuck or dead beam, dead notch switch, missing balls) can be injected.

The model keeps the ground truth (`released`) so checks can compare what the
firmware saw with what really happened.
"""
from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from math import log as _log
from typing import Callable

from hauntbox_sim.core import runtime
from hauntbox_sim.fakes import machine


@dataclass
class TowerConfig:
    notches: int = 8
    stop_ns: int = 1_500_000
    forward_ns: int = 1_300_000
    max_speed_dps: float = 120.0           # degrees per second at full forward
    notch_window_deg: float = 4.0          # switch closed within +-2 degrees of a notch
    staircases: int = 4
    balls: int = 3
    release_p: float = 0.35                # chance that each ball in the tower leaves at a notch
    roll_ms: tuple[float, float] = (350.0, 900.0)   # time from release to the beam
    # The physical envelope (hardware/sensing-envelope.md): the receiver's
    # output stays low 7-135 ms for one ball (fastest small ball off-centre,
    # receiver lag included, to the slowest large one).
    pulse_ms: tuple[float, float] = (7.0, 135.0)    # beam blocked by one ball
    # Two balls down one staircase leave at least min_gap_ms of clear beam;
    # follow_p of the balls that share a staircase come right behind the one
    # before (min_gap_ms .. 1.5 x min_gap_ms), the others whenever they roll in.
    min_gap_ms: float = 40.0
    follow_p: float = 0.5
    refill_ms: float = 2500.0              # players put the balls back this long after release
    # ratchet drive: a positional servo whose push (pulse at or above push_ns)
    # advances the tower exactly one notch in push_ms through a pawl
    ratchet: bool = False
    push_ns: int = 1_250_000
    push_ms: float = 250.0
    # noise
    bounce: bool = False                   # notch switch bounces on every transition
    glitches_per_s: float = 0.0            # short false pulses on each beam
    glitch_us: tuple[int, int] = (50, 500)
    chatter: bool = False                  # ball pulses chatter at their edges
    chatter_us: tuple[int, int] = (50, 500)   # each return to "clear" while an edge chatters


@dataclass
class Faults:
    jammed: bool = False
    stuck_beams: set[int] = field(default_factory=set)
    dead_beams: set[int] = field(default_factory=set)
    dead_notch: bool = False
    keep_missing_balls: bool = False       # players forget to put the balls back


class TowerModel:
    def __init__(self, pins: dict[str, int], cfg: TowerConfig | None = None, seed: int = 0,
                 faults: Faults | None = None) -> None:
        self.cfg = cfg or TowerConfig()
        self.faults = faults or Faults()
        self.rng = random.Random(seed)
        self.clock = runtime.clock()
        self.servo_pin = machine.pin(pins["servo"])
        self.notch_pin = machine.pin(pins["notch"])
        self.beam_pins = [machine.pin(pins["beam%d" % k]) for k in range(1, self.cfg.staircases + 1)]
        self.reservoir_pin = machine.pin(pins["reservoir"]) if "reservoir" in pins else None
        self.angle = 0.0                   # degrees, 0 = at notch 0
        self.speed = 0.0                   # degrees per second
        self.t_us = self.clock.now_us      # time of `angle`
        self._gen = 0
        self.at_notch = True
        self.notch_index = 0
        self.balls_in = self.cfg.balls
        self.released: list[tuple[int, int]] = []     # ground truth (staircase, beam time us)
        self.widths: list[int] = []        # how long each of `released` blocks its beam (us)
        self.rotations = 0
        self._beam_busy_until = [0] * self.cfg.staircases
        self._beam_blocked = [0] * self.cfg.staircases
        self.notch_pin.sim_drive(0)
        for p in self.beam_pins:
            p.sim_drive(None)
        self._update_reservoir()
        for k in self.faults.stuck_beams:
            self.beam_pins[k - 1].sim_drive(0)
        self._attach_pwm()
        self.emitters_on = True
        if "emitters" in pins:
            machine.pin(pins["emitters"]).observers.append(self._on_emitters)
        self._glitch_fns = [self._glitch_fn(k) for k in range(self.cfg.staircases)]
        if self.cfg.glitches_per_s > 0:
            for k in range(self.cfg.staircases):
                self._schedule_glitch(k)

    # --- servo ------------------------------------------------------------
    def _attach_pwm(self) -> None:
        pwm = getattr(self.servo_pin, "pwm", None)
        if pwm is None:
            raise RuntimeError("firmware has not set up the servo PWM yet")
        pwm.observers.append(self._on_pwm)

    def _now_angle(self) -> float:
        dt = (self.clock.now_us - self.t_us) / 1e6
        return self.angle + self.speed * dt

    def _on_pwm(self, pwm: machine.PWM) -> None:
        ns = pwm.duty_ns()
        if self.cfg.ratchet:
            self._on_ratchet(ns)
            return
        self.angle = self._now_angle()
        self.t_us = self.clock.now_us
        if ns == 0 or self.faults.jammed:
            speed = 0.0
        else:
            span = self.cfg.stop_ns - self.cfg.forward_ns
            speed = self.cfg.max_speed_dps * (self.cfg.stop_ns - ns) / span
            if abs(speed) < 1.0:
                speed = 0.0
            speed = max(-self.cfg.max_speed_dps, min(self.cfg.max_speed_dps, speed))
        self.speed = speed
        self._gen += 1
        self._schedule_boundary(self._gen)

    def _on_ratchet(self, ns: int) -> None:
        # The pawl engages on the push stroke only; returning to rest does nothing.
        pushing = ns >= self.cfg.push_ns
        if not pushing or getattr(self, "_pushing", False) or self.faults.jammed:
            self._pushing = pushing
            return
        self._pushing = True
        step = 360.0 / self.cfg.notches
        self.angle = self._now_angle()
        self.t_us = self.clock.now_us
        target = (round(self.angle / step) + 1) * step
        self.speed = (target - self.angle) / (self.cfg.push_ms / 1000)
        self._gen += 1
        gen = self._gen
        self._schedule_boundary(gen)

        def stop() -> None:
            if gen == self._gen:
                self.angle = target
                self.t_us = self.clock.now_us
                self.speed = 0.0
                self._gen += 1
        self.clock.after_ms(self.cfg.push_ms, stop)

    def _schedule_boundary(self, gen: int) -> None:
        """Schedule the next time the notch switch changes state at the current speed."""
        if self.speed == 0:
            return
        step = 360.0 / self.cfg.notches
        half = self.cfg.notch_window_deg / 2
        a = self._now_angle()
        # Boundaries sit at k*step +- half; find the next one in the direction of motion.
        k = a / step
        cands = []
        for base in (int(k) - 1, int(k), int(k) + 1, int(k) + 2):
            for edge in (base * step - half, base * step + half):
                d = (edge - a) if self.speed > 0 else (a - edge)
                if d > 1e-9:
                    cands.append(d)
        d = min(cands)
        t = self.clock.now_us + int(d / abs(self.speed) * 1e6) + 1

        def fire() -> None:
            if gen != self._gen:
                return
            self._boundary()
            self._schedule_boundary(gen)
        self.clock.at(t, fire)

    def _boundary(self) -> None:
        step = 360.0 / self.cfg.notches
        a = self._now_angle()
        nearest = round(a / step)
        # Moving forward, the window is entered at its low edge, left at its high edge.
        entering = (a < nearest * step) == (self.speed > 0)
        if entering and not self.at_notch:
            self.at_notch = True
            self.notch_index = nearest % self.cfg.notches
            # The direction before the switch closes: its IRQ may stop the servo
            # at once (the firmware's notch stop), and the tower got here anyway.
            forward = self.speed > 0
            self._switch(True)
            if forward:
                self.rotations += 1
                self._release_balls()
        elif not entering and self.at_notch:
            self.at_notch = False
            self._switch(False)

    def _switch(self, closed: bool) -> None:
        if self.faults.dead_notch:
            return
        level = 0 if closed else None
        pin = self.notch_pin
        if self.cfg.bounce:
            t = self.clock.now_us
            for i in range(self.rng.randint(2, 5)):
                t += self.rng.randint(80, 600)
                lv = (None if closed else 0) if i % 2 == 0 else level
                self.clock.at(t, lambda lv=lv: pin.sim_drive(lv))
            self.clock.at(t + self.rng.randint(80, 600), lambda: pin.sim_drive(level))
        else:
            pin.sim_drive(level)

    def turn_by_hand(self) -> None:
        """Players turn the tower one notch (after a jam): balls fall as usual."""
        step = 360.0 / self.cfg.notches
        self.angle = (round(self._now_angle() / step) + 1) * step
        self.t_us = self.clock.now_us
        self.notch_index = round(self.angle / step) % self.cfg.notches
        self.rotations += 1
        self._release_balls()

    # --- balls and beams ----------------------------------------------------
    def _on_emitters(self, pin: machine.Pin, level: int) -> None:
        # Emitters off: no IR reaches any receiver, so every working one reads blocked.
        on = bool(level)
        if on == self.emitters_on:
            return
        self.emitters_on = on
        for k in range(self.cfg.staircases):
            self._beam(k, not on)

    def _release_balls(self) -> None:
        n = sum(1 for _ in range(self.balls_in) if self.rng.random() < self.cfg.release_p)
        if n == 0:
            return
        self.balls_in -= n
        self._update_reservoir()
        for _ in range(n):
            k = self.rng.randrange(self.cfg.staircases)
            t = self.clock.now_us + int(self.rng.uniform(*self.cfg.roll_ms) * 1000)
            gap = int(self.cfg.min_gap_ms * 1000)
            busy = self._beam_busy_until[k]
            if busy > self.clock.now_us and self.rng.random() < self.cfg.follow_p:
                t = busy + self.rng.randint(gap, gap * 3 // 2)   # right behind the last one
            t = max(t, busy + gap)
            width = int(self.rng.uniform(*self.cfg.pulse_ms) * 1000)
            self._beam_busy_until[k] = t + width
            self.released.append((k + 1, t))
            self.widths.append(width)
            self._ball_pulse(k, t, width)
        if not self.faults.keep_missing_balls:
            self.clock.after_ms(self.cfg.refill_ms, self.refill)

    def refill(self) -> None:
        self.balls_in = self.cfg.balls
        self._update_reservoir()

    def _update_reservoir(self) -> None:
        if self.reservoir_pin is not None:
            self.reservoir_pin.sim_drive(0 if self.balls_in >= self.cfg.balls else None)

    def _beam(self, k: int, blocked: bool) -> None:
        # Several sources (ball, glitch) may block one beam: count them.
        if k + 1 in self.faults.stuck_beams or k + 1 in self.faults.dead_beams:
            return
        self._beam_blocked[k] += 1 if blocked else -1
        self.beam_pins[k].sim_drive(0 if self._beam_blocked[k] > 0 else None)

    def _ball_pulse(self, k: int, t: int, width: int) -> None:
        clk = self.clock
        clk.at(t, lambda: self._beam(k, True))
        if self.cfg.chatter:
            # A few sub-millisecond flickers just after the leading edge and
            # just before the trailing edge.
            # The shadow's edge crosses the receiver's threshold band in a
            # time proportional to the pulse (both go as 1/speed): the
            # flickers are spread and sized as for a 20 ms pulse, scaled down
            # for shorter ones (hardware/sensing-envelope.md).
            f = min(1.0, width / 20000)
            lo, hi = self.cfg.chatter_us
            for base in (t + int(300 * f), t + width - int(1500 * f)):
                for i in range(self.rng.randint(1, 3)):
                    s = base + int(i * 400 * f)
                    clk.at(s, lambda: self._beam(k, False))
                    clk.at(s + max(1, int(self.rng.randint(lo, hi) * f)), lambda: self._beam(k, True))
        clk.at(t + width, lambda: self._beam(k, False))

    def _schedule_glitch(self, k: int) -> None:
        # The next glitch on beam k: self.rng.expovariate(rate), written out
        # (the same draw, the same float: tests/sim/core/test_event_path.py).
        gap_s = -_log(1.0 - self.rng.random()) / self.cfg.glitches_per_s
        self.clock.at(self.clock.now_us + int(gap_s * 1e6), self._glitch_fns[k])

    def _glitch_fn(self, k: int) -> Callable[[], None]:
        """Beam k's glitch event, built once per beam: _beam(k, True), its end
        _beam(k, False) scheduled rng.randint(*cfg.glitch_us) later, the next
        glitch scheduled (_schedule_glitch), each written out with the same
        random draws in the same order. The beam noise makes ten of these a
        simulated second per beam (sim/boards/roller.py)."""
        pin = self.beam_pins[k]
        blocked = self._beam_blocked
        faults = self.faults
        clock = self.clock
        rng = self.rng
        getrandbits = rng.getrandbits
        k1 = k + 1
        push = heapq.heappush

        def end() -> None:
            # self._beam(k, False)
            if not (k1 in faults.stuck_beams or k1 in faults.dead_beams):
                blocked[k] -= 1
                pin.sim_drive(0 if blocked[k] > 0 else None)

        def glitch() -> None:
            # self._beam(k, True)
            if not (k1 in faults.stuck_beams or k1 in faults.dead_beams):
                blocked[k] += 1
                pin.sim_drive(0 if blocked[k] > 0 else None)
            # rng.randint(lo, hi): lo + rng._randbelow(hi - lo + 1), written out
            lo, hi = self.cfg.glitch_us
            n = hi - lo + 1
            bits = n.bit_length()
            r = getrandbits(bits)
            while r >= n:
                r = getrandbits(bits)
            # clock.at(now + that, end), the time an int already
            t = clock.now_us + lo + r
            if t < clock.now_us:
                t = clock.now_us
            push(clock._queue, (t, next(clock._seq), end))
            # self._schedule_glitch(k)
            gap_s = -_log(1.0 - rng.random()) / self.cfg.glitches_per_s
            t = clock.now_us + int(gap_s * 1e6)
            if t < clock.now_us:
                t = clock.now_us
            push(clock._queue, (t, next(clock._seq), glitch))
        return glitch

    def balls_per_staircase(self, since_us: int = 0, until_us: int | None = None) -> tuple[int, ...]:
        counts = [0] * self.cfg.staircases
        for k, t in self.released:
            if t >= since_us and (until_us is None or t <= until_us):
                counts[k - 1] += 1
        return tuple(counts)
