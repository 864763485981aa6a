"""A host on the board's USB serial link, in the simulator's virtual time.

The firmware's own `games.link.Link`, `PollingWriter` and `protocol.Protocol`
run unchanged, wired as `serve_stdio()` wires them on the Pico; only the port
is simulated:

* `SimUsbSerial` is the Pico's USB serial (TinyUSB CDC) as MicroPython drives
  it: a transmit buffer of `fifo` bytes that the host empties at
  `bytes_per_ms` while it reads. `write(piece)` waits while the piece does not
  fit, up to `timeout_ms` (then the piece is lost), and the firmware is blocked
  meanwhile; the hardware goes on (the clock advances through the scheduled
  edges, so IRQs record them at their real times). `writable()` is POLLOUT:
  room for at least one byte. `pause(at_ms, for_ms)` makes the host stop
  reading for a while (a paused terminal). The host side reassembles the byte
  stream into lines and checks that each is whole JSON.
* The other direction: `host_write(data)` is the host writing to the port.
  The board reads it with the firmware's own reading loop
  (`games.link.serve`, as `serve_stdio()` on the Pico), one byte per wait and
  then what has already arrived, up to 64 bytes, and only while the link is
  ready (no replies waiting): what the board has not taken stays in `rx`,
  the USB buffers and the host's waiting write (`rx_peak`: the most that
  ever waited).
* `busy_host(...)` is a task that plays a host console: it turns the event
  stream on, then asks for the whole `state` every `period_ms`.

Used by `make bench` (latency with the serial link active), by
`python -m hauntbox_sim.checks.accuracy ... --host` and by the tests.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from hauntbox_sim.core import runtime

#: A conservative USB full-speed CDC rate: a responsive host reads 500 KB/s or
#: more; 256 bytes per ms leaves room for a slow host driver.
DEFAULT_BYTES_PER_MS = 256


@dataclass
class SimUsbSerial:
    bytes_per_ms: int = DEFAULT_BYTES_PER_MS
    fifo: int = 256                 # TinyUSB CDC transmit buffer (rp2 port)
    timeout_ms: int = 500           # MicroPython's USB CDC write timeout
    pauses: list[tuple[int, int]] = field(default_factory=list)    # (from_us, to_us)
    level: float = 0.0              # bytes in the transmit buffer
    t_last: int = 0
    lines: int = 0
    events: int = 0
    bad_lines: int = 0              # lines the host could not parse (cut or mixed)
    lost_pieces: int = 0            # pieces dropped by a write timeout
    bytes_sent: int = 0
    blocked_us: int = 0
    longest_block_us: int = 0
    log: list[dict] | None = None   # every message the host got, if a list is given
    writer: Any = None              # the firmware's PollingWriter on this port
    link: Any = None                # the firmware's Link, once the host has spoken
    stream: bytearray = field(default_factory=bytearray)
    rx: bytearray = field(default_factory=bytearray)   # host -> board, not yet read
    rx_peak: int = 0
    _rx_event: Any = None

    # ---- host -> board -----------------------------------------------------
    def host_write(self, data: bytes) -> None:
        self.rx += data
        self.rx_peak = max(self.rx_peak, len(self.rx))
        if self._rx_event is not None:
            self._rx_event.set()

    async def read(self, n: int = 1) -> bytes:
        """The board's `StreamReader.read(1)` on stdin: waits for a byte."""
        while not self.rx:
            if self._rx_event is None:
                self._rx_event = asyncio.Event()
            self._rx_event.clear()
            await self._rx_event.wait()
        b = bytes(self.rx[:n])
        del self.rx[:n]
        return b

    def more(self) -> bytes | None:
        """One more byte that has already arrived (select.poll + read(1))."""
        if not self.rx:
            return None
        b = bytes(self.rx[:1])
        del self.rx[:1]
        return b

    def make_link(self, app: Any) -> Any:
        """The board's link on this port, as stdio_link() makes it on the Pico."""
        from games.link_core import board_link
        self.link = board_link(app, self.write, self.writable)
        self.writer = self.link.writer
        return self.link

    async def serve(self, app: Any) -> None:
        """The firmware's reading loop (games.link.serve) on this port."""
        from games.link import serve
        await serve(app, self.read, self.more, self.make_link)

    def pause(self, at_ms: float, for_ms: float) -> None:
        t = int(at_ms * 1000)
        self.pauses.append((t, t + int(for_ms * 1000)))

    def _reading(self, t: int) -> bool:
        return not any(a <= t < b for a, b in self.pauses)

    def _drain(self) -> None:
        now = runtime.clock().now_us
        if now > self.t_last and self._reading(now):
            self.level = max(0.0, self.level - (now - self.t_last) * self.bytes_per_ms / 1000)
        self.t_last = now

    def writable(self) -> bool:
        self._drain()
        return self.level < self.fifo

    def write(self, piece: Any) -> None:
        data = bytes(piece)
        clk = runtime.clock()
        start = clk.now_us
        while True:
            self._drain()
            if len(data) <= self.fifo - self.level:
                break
            if clk.now_us - start >= self.timeout_ms * 1000:
                self.lost_pieces += 1
                self._blocked(clk.now_us - start)
                return
            clk.sleep_us(1000)          # MicroPython checks for room every ms
        self.level += len(data)
        self.bytes_sent += len(data)
        self._blocked(clk.now_us - start)
        self._receive(data)

    def _blocked(self, us: int) -> None:
        self.blocked_us += us
        self.longest_block_us = max(self.longest_block_us, us)

    def _receive(self, data: bytes) -> None:
        self.stream += data
        while True:
            i = self.stream.find(b"\n")
            if i < 0:
                return
            line = bytes(self.stream[:i])
            del self.stream[:i + 1]
            self.lines += 1
            try:
                msg = json.loads(line)
            except ValueError:
                self.bad_lines += 1
                continue
            if self.log is not None:
                self.log.append(msg)
            if "ev" in msg:
                self.events += 1


async def busy_host(app: Any, serial: SimUsbSerial, period_ms: int = 100) -> None:
    """A host console on the link: events on, then a `state` request every period_ms."""
    board = asyncio.create_task(serial.serve(app))      # the board's side, as serve_stdio
    try:
        serial.host_write(b'{"cmd":"events","on":true,"id":1}\n')
        n = 2
        while True:
            await asyncio.sleep(period_ms / 1000)
            if serial._reading(runtime.clock().now_us):
                serial.host_write(b'{"cmd":"state","id":%d}\n' % n)
                n += 1
    finally:
        board.cancel()


def host_tasks(app: Any, serial: SimUsbSerial | None, period_ms: int) -> list | None:
    """`extra_tasks` for App.main_async: the busy host when a serial link is given."""
    return None if serial is None else [busy_host(app, serial, period_ms)]
