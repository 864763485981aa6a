"""Fake `neopixel` module (MicroPython's API) that encodes frames with adafruit_pixelbuf.

The firmware talks to `neopixel.NeoPixel` exactly as on the Pico (where
`write()` is `machine.bitstream`: it never raises, and it runs with interrupts
off for 30 us per LED plus the latch). The pixel values of each written frame
go through `adafruit_pixelbuf.PixelBuf` (the pixel-buffer library behind
adafruit-circuitpython-neopixel) in GRB order, so `frames` records the exact
byte stream a WS2812 chain would receive.

The encoding is lazy: `write()` keeps a copy of `buf` (what the Pico clocks
out at that instant), and a frame is put through PixelBuf only when something
reads it (`frames`, `last_frame()`, `decoded()`). Most frames of a game are
never looked at, and encoding every LED of every write was most of the
simulator's time on the companion games.
"""
from __future__ import annotations

from typing import Any

import adafruit_pixelbuf

from hauntbox_sim.core import runtime

# WS2812 timing: 1.25 us per bit, 24 bits per LED, plus a >50 us latch.
BIT_NS = 1250
LATCH_US = 50


class _Encoder(adafruit_pixelbuf.PixelBuf):
    def __init__(self, n: int, order: str) -> None:
        self.sent = b""
        super().__init__(n, byteorder=order, brightness=1.0, auto_write=False)

    def _transmit(self, buffer: bytearray) -> None:
        self.sent = bytes(buffer)


class NeoPixel:
    """MicroPython's neopixel.NeoPixel: pixels live in `buf` (bytes in ORDER)."""

    ORDER = (1, 0, 2, 3)  # GRB, as MicroPython's driver

    def __init__(self, pin: Any, n: int, bpp: int = 3, timing: int = 1) -> None:
        if bpp not in (3, 4):
            raise ValueError("bpp must be 3 or 4")
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self._enc = _Encoder(n, "GRB" if bpp == 3 else "GRBW")
        # (time, bytes as written, or the encoded stream once read): see frames
        self._frames: list[list] = []
        self.writes = 0
        self.irq_off_us_total = 0
        pin.neopixel = self  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, i: int, colour: tuple) -> None:
        off = i * self.bpp
        buf = self.buf
        if self.bpp == 3:       # unrolled ORDER (1, 0, 2): the firmware sets every LED of a frame
            buf[off + 1] = int(colour[0])
            buf[off] = int(colour[1])
            buf[off + 2] = int(colour[2])
            return
        for k in range(self.bpp):
            buf[off + self.ORDER[k]] = int(colour[k])

    def __getitem__(self, i: int) -> tuple:
        off = i * self.bpp
        return tuple(self.buf[off + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, colour: tuple) -> None:
        for i in range(self.n):
            self[i] = colour

    def write(self) -> None:
        if len(self.buf) != self.n * self.bpp:
            raise ValueError("buf has the wrong length")
        # machine.bitstream never fails: it cannot tell whether a chain is
        # attached. It sends the frame with interrupts off, which the CPU
        # spends busy (sim/core/runtime.py: irq_off).
        self.writes += 1
        self.irq_off_us_total += self.write_time_us()
        self._frames.append([runtime.clock().now_us, bytes(self.buf), False])
        if len(self._frames) > 64:
            del self._frames[:32]
        runtime.irq_off(self.write_time_us())

    def _encoded(self, f: list) -> bytes:
        """Frame f's byte stream, through PixelBuf the first time it is read."""
        if not f[2]:
            raw, bpp, order = f[1], self.bpp, self.ORDER
            for i in range(self.n):
                off = i * bpp
                self._enc[i] = tuple(raw[off + order[k]] for k in range(bpp))
            self._enc.show()
            f[1] = self._enc.sent
            f[2] = True
        return f[1]

    @property
    def frames(self) -> list[tuple[int, bytes]]:
        """The last frames written (32 to 64 of them): (time in us, byte stream)."""
        return [(f[0], self._encoded(f)) for f in self._frames]

    def write_time_us(self) -> int:
        return self.n * self.bpp * 8 * BIT_NS // 1000 + LATCH_US

    def last_frame(self) -> bytes:
        return self._encoded(self._frames[-1]) if self._frames else b""

    def decoded(self) -> list[tuple[int, int, int]]:
        """The RGB colours the chain shows, decoded from the last byte stream."""
        raw = self.last_frame()
        out = []
        for i in range(0, len(raw), self.bpp):
            g, r, b = raw[i], raw[i + 1], raw[i + 2]
            out.append((r, g, b))
        return out
