"""Reliability against a hostile but legitimate host, and the notch stop under a
stalled loop (issue 17). `python -m sim.reliability` runs both (see
sim/reliability.py); docs/reliability.md records the figures.

* `notch_overshoot()`: the firmware's Tower turns the simulated tower one notch
  at a time while, during each turn, the asyncio loop is blocked for 500 ms
  (a USB write waiting for a host that stopped reading, as MicroPython's does)
  followed by a save (FlashModel with 25 ms per commit). The notch switch's own
  IRQ stops the servo (devices/tower.py); `irq_stop=False` measures the loop's
  stop alone, as before.
* `hostile_host()`: random sequences of valid requests (hello, state, legal,
  events, act, new, config get/set, calibrate, jog, selftest) sent in every
  phase of real games on the simulated Roller Ghoster board (bots play too),
  with restarts (a reset, the same flash) between sessions. Every reply is
  checked, and every request answered `ok` is checked to have been carried out
  (`_Checker`, one rule per command).
"""
from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

STATE_DIR = "/flash"


# ---- the notch stop ------------------------------------------------------------

@dataclass
class OvershootReport:
    rotations: int = 0
    stalls_over_arrival: int = 0     # turns whose notch arrived while the loop was blocked
    max_past_deg: float = 0.0        # furthest the tower stopped past where the switch closed
    off_notch: int = 0               # stops outside the switch window (+-2 degrees)
    extra_notches: int = 0           # turns that went on to a further notch
    irq_stops: int = 0
    max_block_ms: float = 0.0        # longest the loop was blocked (USB stall + save)


def notch_overshoot(rotations: int = 40, stall_ms: int = 500, flash_ms: int = 25, seed: int = 1,
                    irq_stop: bool = True) -> OvershootReport:
    from sim import install as sim_install
    from sim import runtime
    from sim.models.flash import FlashModel, attach, detach
    from sim.roller_board import RollerSim

    s = RollerSim(players=2, seed=seed, state_dir=STATE_DIR)
    fs = FlashModel(stall_us={"close": flash_ms * 1000, "rename": flash_ms * 1000})
    attach(fs)
    c = s.app.controller
    tower = c.tower
    model = s.tower
    if not irq_stop:
        tower.notch.rec.hook = None
    step = 360.0 / model.cfg.notches
    half = model.cfg.notch_window_deg / 2
    rep = OvershootReport()
    rng = random.Random(seed)
    clk = runtime.clock()
    arrivals: list[int] = []

    first_close: list[float] = []       # angle where the switch first closed, this turn

    def watch_pwm(pwm: Any) -> None:
        if model.speed == 0 and first_close and pwm.duty_ns() in (tower.servo.stop_ns, 0):
            rep.max_past_deg = max(rep.max_past_deg, model._now_angle() - first_close[0])
    model.servo_pin.pwm.observers.append(watch_pwm)

    async def turns() -> None:
        c.new_game(2)
        for _ in range(rotations):
            start_notches = model.rotations
            first_close.clear()
            t_start = clk.now_us
            # Block the loop for stall_ms at a random moment of the ~375 ms turn,
            # then save (the flash model blocks it again per commit).
            delay = rng.uniform(0.0, 0.4)
            blocked: list[tuple[int, int]] = []

            def stall() -> None:
                t0 = clk.now_us
                clk.sleep_us(stall_ms * 1000)
                c.save()
                blocked.append((t0, clk.now_us))
                rep.max_block_ms = max(rep.max_block_ms, (clk.now_us - t0) / 1000)
            h = asyncio.get_running_loop().call_later(delay, stall)
            status, _ = await tower.rotate()
            h.cancel()
            rep.rotations += 1
            if model.rotations - start_notches > 1:
                rep.extra_notches += 1
            a = model._now_angle()
            if abs(a - round(a / step) * step) > half:
                rep.off_notch += 1
            if blocked and any(b0 <= t <= b1 for b0, b1 in blocked for t in arrivals if t >= t_start):
                rep.stalls_over_arrival += 1
            await asyncio.sleep(0.3)
        rep.irq_stops = tower.irq_stops

    switch = model._switch

    def on_switch(closed: bool) -> None:
        if closed:
            arrivals.append(clk.now_us)
            if not first_close and model.speed > 0:
                first_close.append(model._now_angle())
        switch(closed)
    model._switch = on_switch
    try:
        sim_install.run(turns())
    finally:
        detach()
    return rep
