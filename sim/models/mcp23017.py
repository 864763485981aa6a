"""Register-level model of a Microchip MCP23017 I2C port expander.

Attach it to a simulated bus with `machine.attach_i2c_device(bus, addr, model)`;
the fake `machine.I2C` then calls `read_regs(reg_or_None, n)` and
`write_regs(reg, data)` and raises OSError(5) while `responding` is False.

Modelled after the datasheet (DS20001952):

- both register maps: IOCON.BANK=0 (A/B registers interleaved, 0x00..0x15) and
  BANK=1 (port A at 0x00..0x0A, port B at 0x10..0x1A); IOCON appears at two
  addresses in either map;
- the address pointer: sequential mode (IOCON.SEQOP=0) increments after each
  byte (BANK=0 wraps at the end of the map; BANK=1 runs through port A, then
  port B); byte mode (SEQOP=1) toggles between the A/B pair in BANK=0 and stays
  put in BANK=1;
- inputs: the level is what the outside world drives (`set_input`), else the
  100 kOhm pull-up (GPPU) or 0 for a floating pin; IPOL inverts what GPIO and
  INTCAP report; output pins follow OLAT;
- interrupt-on-change per port: a pin enabled in GPINTEN interrupts when it
  changes (INTCON=0, compared with its previous value) or while it differs
  from DEFVAL (INTCON=1). The first interrupt latches the port: INTF gets the
  pins that caused it and INTCAP a copy of the port; further changes do not
  touch INTF/INTCAP until the interrupt is cleared by reading INTCAP or GPIO
  of that port (as each byte is clocked out). A DEFVAL mismatch that persists
  interrupts again at once;
- the INT outputs: INTA for port A and INTB for port B, or both OR-ed together
  with IOCON.MIRROR; push-pull active level IOCON.INTPOL, or open drain
  (IOCON.ODR: driven low when active, released otherwise).

`reset()` models a power cycle (power-on register values). The model logs every
transfer in `transfers` (kind, register, bytes) for tests.
"""
from __future__ import annotations

import random
from typing import Any

from hauntbox_sim.core import runtime

# Register names in BANK=0 order (address = 2*index + port).
NAMES = ("IODIR", "IPOL", "GPINTEN", "DEFVAL", "INTCON", "IOCON", "GPPU", "INTF",
         "INTCAP", "GPIO", "OLAT")

BANK = 0x80
MIRROR = 0x40
SEQOP = 0x20
ODR = 0x04
INTPOL = 0x02


def _decode_address(addr: int, bank1: bool) -> tuple[str, int] | None:
    """(register name, port 0/1) at an address, or None if unimplemented."""
    if bank1:
        port, idx = (0, addr) if addr < 0x10 else (1, addr - 0x10)
        if 0 <= idx < len(NAMES) and addr < 0x1B:
            return NAMES[idx], port
        return None
    if 0 <= addr < 2 * len(NAMES):
        return NAMES[addr // 2], addr % 2
    return None


# Every address of both maps decoded once (the pointer is decoded on every byte).
_DECODED = {(a, b): _decode_address(a, b) for a in range(256) for b in (False, True)}


def decode_address(addr: int, bank1: bool) -> tuple[str, int] | None:
    """(register name, port 0/1) at an address, or None if unimplemented."""
    r = _DECODED.get((addr, bank1), False)
    return _decode_address(addr, bank1) if r is False else r


class Mcp23017Model:
    def __init__(self, int_a: Any = None, int_b: Any = None, name: str = "mcp23017",
                 irq_delay_p: float = 0.0, irq_delay_us: tuple[int, int] = (0, 0), seed: int = 0,
                 irq_off_until: Any = None) -> None:
        """int_a/int_b: fake machine Pins the chip's INTA/INTB outputs drive (or None).

        The Pico does not always take an interrupt at once; the INT edge (and
        so its timestamp and the chip read) then comes late, and short pulses
        may be over by then: only INTCAP still shows what caused the interrupt.
        irq_off_until(): time (us) until which the Pico has interrupts off
        (its own NeoPixel writes); irq_delay_p / irq_delay_us: random extra
        latency (other interrupt handlers)."""
        self.name = name
        self.int_pins = (int_a, int_b)
        self.irq_delay_p = irq_delay_p
        self.irq_delay_us = irq_delay_us
        self.irq_off_until = irq_off_until
        self.rng = random.Random(seed)
        self.delayed = 0
        self.responding = True
        self.ext: list[int | None] = [None] * 16   # what the outside drives on each pin
        self._ext_mask = [0, 0]     # per port: the pins the outside drives (bits)...
        self._ext_val = [0, 0]      # ... and the levels it drives them to
        self.transfers: list[tuple[str, int | None, bytes]] = []
        self.log_transfers = True
        self.reads = 0
        self.writes = 0
        self.reset()

    # --- power-on state ---------------------------------------------------
    def reset(self) -> None:
        """Power cycle: registers to their power-on values, interrupts cleared."""
        self.regs: dict[str, list[int]] = {n: [0, 0] for n in NAMES}
        self.regs["IODIR"] = [0xFF, 0xFF]
        self.iocon = 0
        self.pointer = 0
        self.latched = [False, False]
        self._prev = [self._port_level(0), self._port_level(1)]
        self._drive_int()

    # --- pin levels -------------------------------------------------------
    def _pin_level(self, i: int) -> int:
        port, bit = i >> 3, i & 7
        if not (self.regs["IODIR"][port] >> bit) & 1:
            return (self.regs["OLAT"][port] >> bit) & 1
        e = self.ext[i]
        if e is not None:
            return e
        return (self.regs["GPPU"][port] >> bit) & 1

    def _port_level(self, port: int) -> int:
        # _pin_level for the 8 pins at once (the firmware reads a port on every
        # interrupt and poll: this was most of Haunted House's simulation time).
        iodir = self.regs["IODIR"][port]
        driven = self._ext_mask[port]
        inputs = (driven & self._ext_val[port]) | (~driven & self.regs["GPPU"][port])
        return ((~iodir & self.regs["OLAT"][port]) | (iodir & inputs)) & 0xFF

    def _logical(self, port: int) -> int:
        """What GPIO reads: input pins inverted by IPOL, outputs as driven."""
        return self._port_level(port) ^ (self.regs["IPOL"][port] & self.regs["IODIR"][port])

    def level(self, i: int) -> int:
        """Electrical level of pin i (0..15) as the chip sees it."""
        return self._pin_level(i)

    def set_input(self, i: int, level: int | None) -> None:
        """Drive pin i (A0..A7 = 0..7, B0..B7 = 8..15) from outside; None releases it."""
        self.ext[i] = None if level is None else (1 if level else 0)
        port, bit = i >> 3, 1 << (i & 7)
        if level is None:
            self._ext_mask[port] &= ~bit
        else:
            self._ext_mask[port] |= bit
        if level:
            self._ext_val[port] |= bit
        else:
            self._ext_val[port] &= ~bit
        self._evaluate(port)

    # --- interrupt logic --------------------------------------------------
    def _evaluate(self, port: int, pin_change: bool = True) -> None:
        """Apply the interrupt rules after something on `port` may have changed.

        pin_change=False after a configuration write (IPOL, GPINTEN, INTCON,
        DEFVAL): the reference value moves along without a change interrupt;
        only a DEFVAL comparison can fire."""
        now = self._logical(port)
        prev = now if not pin_change else self._prev[port]
        self._prev[port] = now
        en = self.regs["GPINTEN"][port] & self.regs["IODIR"][port]
        con = self.regs["INTCON"][port]
        cause = ((now ^ prev) & en & ~con) | ((now ^ self.regs["DEFVAL"][port]) & en & con)
        cause &= 0xFF
        if cause and not self.latched[port]:
            self.latched[port] = True
            self.regs["INTF"][port] = cause
            self.regs["INTCAP"][port] = now
            clk = runtime.clock()
            late = self.irq_off_until() - clk.now_us if self.irq_off_until is not None else 0
            if self.irq_delay_p > 0 and self.rng.random() < self.irq_delay_p:
                late = max(late, self.rng.randint(*self.irq_delay_us))
            if late > 0:
                self.delayed += 1
                clk.at(clk.now_us + late, self._drive_int)
                return
        self._drive_int()

    def _clear(self, port: int) -> None:
        self.latched[port] = False
        self.regs["INTF"][port] = 0
        # A DEFVAL comparison that still fails interrupts again immediately.
        now = self._logical(port)
        en = self.regs["GPINTEN"][port] & self.regs["IODIR"][port]
        con = self.regs["INTCON"][port]
        cause = (now ^ self.regs["DEFVAL"][port]) & en & con & 0xFF
        if cause:
            self.latched[port] = True
            self.regs["INTF"][port] = cause
            self.regs["INTCAP"][port] = now
        self._drive_int()

    def int_active(self, which: int = 0) -> bool:
        """Whether INTA (0) or INTB (1) is asserted."""
        if self.iocon & MIRROR:
            return self.latched[0] or self.latched[1]
        return self.latched[which]

    def _drive_int(self) -> None:
        for which, pin in enumerate(self.int_pins):
            if pin is None:
                continue
            active = self.int_active(which)
            if self.iocon & ODR:
                pin.sim_drive(0 if active else None)
            else:
                pol = 1 if self.iocon & INTPOL else 0
                pin.sim_drive(pol if active else 1 - pol)

    # --- register access --------------------------------------------------
    @property
    def bank1(self) -> bool:
        return bool(self.iocon & BANK)

    def _advance(self) -> None:
        p = self.pointer
        if self.iocon & SEQOP:
            if not self.bank1:
                self.pointer = p ^ 1          # byte mode, BANK=0: toggle the A/B pair
            return                            # byte mode, BANK=1: stay
        if self.bank1:
            if p == 0x0A:
                self.pointer = 0x10
            elif p >= 0x1A:
                self.pointer = 0x00
            else:
                self.pointer = p + 1
        else:
            self.pointer = 0 if p >= 0x15 else p + 1

    def _read_one(self) -> int:
        reg = decode_address(self.pointer, self.bank1)
        val = 0
        if reg is not None:
            name, port = reg
            if name == "IOCON":
                val = self.iocon
            elif name == "GPIO":
                val = self._logical(port)
                self._clear(port)
            elif name == "INTCAP":
                val = self.regs["INTCAP"][port]
                self._clear(port)
            else:
                val = self.regs[name][port]
        self._advance()
        return val & 0xFF

    def _write_one(self, v: int) -> None:
        reg = decode_address(self.pointer, self.bank1)
        self._advance()
        if reg is None:
            return
        name, port = reg
        v &= 0xFF
        if name == "IOCON":
            self.iocon = v & 0xFE       # bit 0 is unimplemented
            self._drive_int()
            return
        if name in ("INTF", "INTCAP"):
            return                      # read-only
        if name == "GPIO":
            name = "OLAT"               # a write to GPIO writes the output latch
        self.regs[name][port] = v
        # Direction, pull-up and latch writes can really move a pin; the
        # others only change how it is compared or reported.
        self._evaluate(port, pin_change=name in ("IODIR", "GPPU", "OLAT"))

    def read_regs(self, reg: int | None, n: int) -> bytes:
        if reg is not None:
            self.pointer = reg
        start = self.pointer
        out = bytes(self._read_one() for _ in range(n))
        self.reads += 1
        if self.log_transfers:
            self.transfers.append(("r", start, out))
        return out

    def write_regs(self, reg: int, data: bytes) -> None:
        self.pointer = reg
        for v in data:
            self._write_one(v)
        self.writes += 1
        if self.log_transfers:
            self.transfers.append(("w", reg, bytes(data)))

    # --- helpers for tests --------------------------------------------------
    def reg(self, name: str, port: int = 0) -> int:
        if name == "IOCON":
            return self.iocon
        return self.regs[name][port]

    def reg16(self, name: str) -> int:
        return self.regs[name][0] | (self.regs[name][1] << 8)
