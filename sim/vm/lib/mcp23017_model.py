# A register-level MCP23017 for the MicroPython VM benchmark (the CPython
# simulator has the full model in sim/models/mcp23017.py; tests/sim/vm/test_mcp23017_vm.py
# runs the driver on both and wants the same transcript). BANK=0 map only
# (the driver's write of 0 to 0x05, IOCON in BANK=1, is GPINTENB here and is
# rewritten anyway), sequential addressing over the 22 registers, IPOL,
# interrupt-on-change against the previous level (INTCON = 0) or DEFVAL,
# INTF/INTCAP latched per port by the first change and cleared by reading
# INTCAP or GPIO of that port, MIRROR (INTA = either port), open-drain INT
# (active low) on a fake machine.Pin: the Pico's INT handler runs at the change.
# Nothing here allocates once built: the benchmark measures the firmware's
# allocations with this chip in the loop.
#
#   chip = Mcp23017Model(0x20, int_gpio=6)    then machine.I2C.devices[0x20] = chip
#   chip.set_pin(i, 0)     the electrical level of pin i (0..15: A0..B7)
#   chip.set_line(i, 1)    pin i as the firmware reads it (after IPOL)

from machine import Pin

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_NREG = const(22)
_IODIRA = const(0x00)
_IPOLA = const(0x02)
_GPINTENA = const(0x04)
_DEFVALA = const(0x06)
_INTCONA = const(0x08)
_INTFA = const(0x0E)
_INTCAPA = const(0x10)
_GPIOA = const(0x12)


class Mcp23017Model:
    def __init__(self, addr, int_gpio=None):
        self.addr = addr
        self.int_gpio = int_gpio
        self.r = bytearray(_NREG)
        self.pins = bytearray(2)        # electrical levels, port A and B
        self.responding = True
        self.reads = 0
        self.writes = 0
        self.reset()

    def reset(self):
        # Power-on defaults: all inputs, everything else 0; pins pulled high.
        r = self.r
        for i in range(_NREG):
            r[i] = 0
        r[_IODIRA] = 0xFF
        r[_IODIRA + 1] = 0xFF
        self.pins[0] = 0xFF
        self.pins[1] = 0xFF
        self._int_out()

    def _level(self, port):
        # GPIO as read: electrical level XOR IPOL (input pins).
        return (self.pins[port] ^ self.r[_IPOLA + port]) & 0xFF

    def _int_out(self):
        # Open-drain INTA, active low, mirrored: low while either port is flagged.
        g = self.int_gpio
        if g is None:
            return
        p = Pin._all.get(g)
        if p is not None:
            p.drive(0 if (self.r[_INTFA] or self.r[_INTFA + 1]) else 1)

    def set_line(self, i, v):
        # Set pin i so that the firmware reads v (1 = active) in GPIO.
        self.set_pin(i, v ^ ((self.r[_IPOLA + (i >> 3)] >> (i & 7)) & 1))

    def set_pin(self, i, want):
        # The electrical level of pin i; a change raises INT as configured.
        port = i >> 3
        bit = 1 << (i & 7)
        old = self._level(port)
        if want:
            self.pins[port] |= bit
        else:
            self.pins[port] &= ~bit & 0xFF
        now = self._level(port)
        r = self.r
        en = r[_GPINTENA + port]
        ref = r[_INTCONA + port]
        cause = ((old ^ now) & en & ~ref) | ((now ^ r[_DEFVALA + port]) & en & ref)
        if cause and not r[_INTFA + port]:
            r[_INTFA + port] = cause & 0xFF
            r[_INTCAPA + port] = now
            self._int_out()

    def line(self, i):
        return (self._level(i >> 3) >> (i & 7)) & 1

    def _read(self, reg):
        r = self.r
        if _INTCAPA <= reg <= _GPIOA + 1:
            port = reg & 1
            v = self._level(port) if reg >= _GPIOA else r[reg]
            r[_INTFA + port] = 0
            return v
        return r[reg]

    def read_into(self, reg, buf):
        self.reads += 1
        for k in range(len(buf)):
            buf[k] = self._read((reg + k) % _NREG)
        self._int_out()

    def write(self, reg, buf):
        self.writes += 1
        r = self.r
        for k in range(len(buf)):
            a = (reg + k) % _NREG
            if a < _INTFA or a >= _GPIOA:       # INTF and INTCAP are read-only
                r[a] = buf[k]
        self._int_out()
