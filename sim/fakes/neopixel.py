"""Fake `neopixel` module (MicroPython's API) that encodes frames with adafruit_pixelbuf.

The firmware talks to `neopixel.NeoPixel` exactly as on the Pico (where
`write()` is `machine.bitstream`: it never raises, and it runs with interrupts
off for 30 us per LED plus the latch). On `write()`
the pixel values go through `adafruit_pixelbuf.PixelBuf` (the pixel-buffer
library behind adafruit-circuitpython-neopixel) in GRB order, so `frames`
records the exact byte stream a WS2812 chain would receive.
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
        self.frames: list[tuple[int, bytes]] = []
        self.writes = 0
        self.irq_off_us_total = 0
        pin.neopixel = self  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, i: int, colour: tuple) -> None:
        off = i * self.bpp
        for k in range(self.bpp):
            self.buf[off + self.ORDER[k]] = int(colour[k])

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
        for i in range(self.n):
            self._enc[i] = self[i]
        self._enc.show()
        self.writes += 1
        self.irq_off_us_total += self.write_time_us()
        self.frames.append((runtime.clock().now_us, self._enc.sent))
        if len(self.frames) > 64:
            del self.frames[:32]
        runtime.irq_off(self.write_time_us())

    def write_time_us(self) -> int:
        return self.n * self.bpp * 8 * BIT_NS // 1000 + LATCH_US

    def last_frame(self) -> bytes:
        return self.frames[-1][1] if self.frames else b""

    def decoded(self) -> list[tuple[int, int, int]]:
        """The RGB colours the chain shows, decoded from the last byte stream."""
        raw = self.last_frame()
        out = []
        for i in range(0, len(raw), self.bpp):
            g, r, b = raw[i], raw[i + 1], raw[i + 2]
            out.append((r, g, b))
        return out
