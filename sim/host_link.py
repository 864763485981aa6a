"""A host on the board's USB serial link, in the simulator's virtual time.

The firmware's own `games.link.Link` and `protocol.Protocol` run unchanged; only
the byte transport is simulated:

* `SimUsbSerial.write(line)` is the Pico's `sys.stdout.write` to USB CDC. It
  blocks the firmware for as long as the bytes take to leave (`bytes_per_ms`),
  as a real write does once TinyUSB's small transmit FIFO is full. The hardware
  goes on meanwhile: the clock advances through the scheduled edges, so the
  beams' IRQs record them at their real times.
* `busy_host(...)` is a task that plays a host console: it turns the event
  stream on, then asks for the whole `state` every `period_ms`.

Used by `make bench` to measure sensor-to-LED latency with the serial link
active, and by the tests.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from sim import runtime

#: A conservative USB full-speed CDC rate: a responsive host reads 500 KB/s or
#: more; 256 bytes per ms leaves room for a slow host driver.
DEFAULT_BYTES_PER_MS = 256


@dataclass
class SimUsbSerial:
    bytes_per_ms: int = DEFAULT_BYTES_PER_MS
    lines: int = 0
    bytes_sent: int = 0
    blocked_us: int = 0
    longest_block_us: int = 0
    replies: list[dict] = field(default_factory=list)   # the last few replies (not events)
    events: int = 0

    def write(self, line: bytes) -> None:
        n = len(line)
        us = (n * 1000 + self.bytes_per_ms - 1) // self.bytes_per_ms
        runtime.clock().sleep_us(us)        # the firmware waits; the hardware does not
        self.lines += 1
        self.bytes_sent += n
        self.blocked_us += us
        self.longest_block_us = max(self.longest_block_us, us)
        msg = json.loads(line)
        if "ev" in msg:
            self.events += 1
        else:
            self.replies.append(msg)
            if len(self.replies) > 8:
                del self.replies[:4]


async def busy_host(app: Any, serial: SimUsbSerial, period_ms: int = 100) -> None:
    """A host console on the link: events on, then a `state` request every period_ms."""
    from games.link import Link
    from protocol import Protocol

    link = Link(Protocol(app), serial.write)
    pump = asyncio.create_task(link.pump())
    try:
        link.receive(b'{"cmd":"events","on":true,"id":1}\n')
        n = 2
        while True:
            await asyncio.sleep(period_ms / 1000)
            link.receive(b'{"cmd":"state","id":%d}\n' % n)
            n += 1
    finally:
        pump.cancel()
        link.proto.close()


def host_tasks(app: Any, serial: SimUsbSerial | None, period_ms: int) -> list | None:
    """`extra_tasks` for App.main_async: the busy host when a serial link is given."""
    return None if serial is None else [busy_host(app, serial, period_ms)]
