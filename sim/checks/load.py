"""The load a board carries while its sensors count, for the accuracy checks.

On by default (`hauntbox check beams|hits`, `--no-load` to compare):

* frames: the LED chain is written every `frame_ms` (an animation; the game
  itself also redraws on every ball, prompt and highlight). Each write runs
  machine.bitstream with interrupts off for the chain's length (~30 us per
  LED: 1.5 ms for Roller Ghoster's 51; Haunted House animates its 15-LED
  spot chain, 0.45 ms, since its score chain is held while a die may move),
  modelled by the NeoPixel fake
  (sim/core/runtime.py: irq_off); `extra_irq_off_us` lengthens each window, for
  the sweeps.
* a host console on the serial link, events on and a `state` request every
  100 ms (sim/models/host_link.py: busy_host): the firmware blocks while the USB
  buffer is full.
* saves: every file commit and rename of the firmware's own saves runs with
  interrupts off for `flash_ms` (sim/models/flash.py); the firmware defers
  them while a turn's sensors count (sensors_live).
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from hauntbox_sim.core import runtime


@dataclass
class Load:
    frame_ms: int = 50
    extra_irq_off_us: int = 0
    host: bool = True
    flash_ms: int = 25

    def describe(self) -> str:
        if self.frame_ms:
            parts = [f"a frame every {self.frame_ms} ms"
                     + (f" (+{self.extra_irq_off_us} us interrupts off)" if self.extra_irq_off_us else "")]
        else:
            parts = ["the firmware's own frames"]
        if self.host:
            parts.append("host polling the serial link")
        if self.flash_ms:
            parts.append(f"saves blocking {self.flash_ms} ms per commit and rename (interrupts off)")
        return "load: " + ", ".join(parts)


async def frames(np: Any, frame_ms: int, extra_irq_off_us: int = 0) -> None:
    """Write the chain every frame_ms, as an animation would."""
    while True:
        np.write()
        if extra_irq_off_us:
            runtime.irq_off(extra_irq_off_us)
        await asyncio.sleep(frame_ms / 1000)


def attach_flash(flash_ms: int) -> bool:
    """Saves take flash_ms per commit and rename, interrupts off. Returns
    whether a model was attached (detach with hauntbox_sim.models.flash.detach)."""
    if not flash_ms:
        return False
    from hauntbox_sim.models import flash
    us = flash_ms * 1000
    flash.attach(flash.FlashModel(stall_us={"close": us, "rename": us}))
    return True
