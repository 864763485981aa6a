"""Layer 4: the MCP23017 driver and the table's line decoder in the MicroPython VM.

The same script runs in the official MicroPython WebAssembly VM and in CPython
against a tiny register-level I2C fake written here (MicroPython-compatible);
the transcripts must be identical. In the VM, the INT edge handler
(EdgeRecorder) and the driver's service path run under micropython.heap_lock():
they must not allocate.
"""
import json

import pytest

from hauntbox_sim.vm.mpvm import run_micropython, vm_available

pytestmark = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")

SCRIPT = r"""
import json
from drivers.mcp23017 import Mcp23017
from devices.table import Line


class TinyChip:
    # BANK=0 register file with interrupt-on-change, INTF/INTCAP latching and
    # clear-on-read of INTCAP/GPIO, sequential addressing. No allocation in
    # readfrom_mem_into.
    def __init__(self):
        self.r = bytearray(22)
        self.r[0] = 0xFF
        self.r[1] = 0xFF
        self.pins = bytearray(b"\xff\xff")
        self.latched = bytearray(2)
        self.ok = True

    def level(self, port):
        return (self.pins[port] ^ self.r[2 + port]) & 0xFF

    def set_pin(self, i, v):
        port = i >> 3
        old = self.level(port)
        if v:
            self.pins[port] |= 1 << (i & 7)
        else:
            self.pins[port] &= ~(1 << (i & 7)) & 0xFF
        now = self.level(port)
        cause = (old ^ now) & self.r[4 + port]
        if cause and not self.latched[port]:
            self.latched[port] = 1
            self.r[0x0E + port] = cause
            self.r[0x10 + port] = now

    def read(self, reg):
        if reg in (0x10, 0x11, 0x12, 0x13):
            port = reg & 1
            v = self.level(port) if reg >= 0x12 else self.r[reg]
            self.latched[port] = 0
            self.r[0x0E + port] = 0
            return v
        return self.r[reg]

    def readfrom_mem_into(self, addr, reg, buf):
        if not self.ok:
            raise OSError(5)
        for k in range(len(buf)):
            buf[k] = self.read((reg + k) % 22)

    def writeto_mem(self, addr, reg, buf):
        if not self.ok:
            raise OSError(5)
        for k in range(len(buf)):
            a = (reg + k) % 22
            if a not in (0x0E, 0x0F, 0x10, 0x11):
                self.r[a] = buf[k]


out = []
log_pin = bytearray(64)
log_lvl = bytearray(64)
n_log = [0]


class Sink:
    def __init__(self):
        self.n = 0
        self.fn = self.edge

    def edge(self, i, t, level):
        log_pin[self.n] = i
        log_lvl[self.n] = level
        self.n += 1


chip = TinyChip()
d = Mcp23017(chip, 0x20, invert=0x0100, interrupts=0x010F)
out.append(["configure", d.configure(), d.state, chip.r[0x0A], list(chip.r[0:10])])
s = Sink()
chip.set_pin(3, 0)
out.append(["edges", d.service(100, s.fn), s.n, log_pin[0], log_lvl[0]])
chip.set_pin(8, 0)
chip.set_pin(8, 1)
out.append(["pulse", d.service(200, s.fn), s.n, list(log_pin[1:3]), list(log_lvl[1:3]), d.captured, d.late, d.reverted])
try:
    import micropython
    lock = micropython.heap_lock
    unlock = micropython.heap_unlock
except (ImportError, AttributeError):
    lock = unlock = None


def locked(fn, a, b):
    # Inside a function: a module-level store would grow the globals dict.
    if lock is None:
        return fn(a, b)
    lock()
    try:
        return fn(a, b)
    except MemoryError:
        return "allocated"
    finally:
        unlock()


chip.set_pin(0, 0)
n = locked(d.service, 300, s.fn)
out.append(["locked service", n, s.n])
chip.ok = False
out.append(["down", d.service(400, s.fn), d.ok, d.errno, d.outages, d.configure()])
chip.ok = True
chip.set_pin(1, 0)
out.append(["back", d.configure(s.fn, 500), d.ok, s.n, log_pin[s.n - 1], log_lvl[s.n - 1]])

ln = Line("medusa_top", "spot", 3000, 5000)
ln.init(0, 0)
hits = 0
t = 1000
for k in range(4):
    hits += ln.edge(t, 1) + ln.edge(t + 1500, 0)
    t += 1700
hits += ln.poll(t + 6000)
for k in range(3):
    hits += ln.edge(50000 + k * 1800, 1) + ln.edge(50000 + k * 1800 + 700, 0)
hits += ln.poll(90000)
out.append(["line", hits, ln.count, ln.glitches])

from drivers.edges import EdgeRecorder


class FakePin:
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self):
        self.v = 1
        self.h = None

    def irq(self, handler=None, trigger=0, hard=False):
        self.h = handler

    def value(self):
        return self.v


class Flag:
    def __init__(self):
        self.is_set = False

    def set(self):
        self.is_set = True


def storm(h, p):
    for k in range(20):
        p.v = k & 1
        h(p)
    return 0


p = FakePin()
rec = EdgeRecorder(p, 16, Flag(), trigger=FakePin.IRQ_FALLING)
out.append(["irq", locked(storm, p.h, p), rec.pending()])
print(json.dumps(out))
"""


def run_cpython():
    import contextlib
    import io

    from hauntbox_sim.fakes import install as sim_install
    sim_install.install()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(SCRIPT, "<mcp23017 vm script>", "exec"), {"__name__": "__vm__"})
    return json.loads(buf.getvalue())


def test_driver_and_decoder_identical_on_micropython_and_allocation_free():
    vm = json.loads(run_micropython(SCRIPT))
    cp = run_cpython()
    assert vm == cp
    steps = {row[0]: row[1:] for row in vm}
    assert steps["configure"][0] is True and steps["configure"][2] == 0x44
    assert steps["edges"] == [1, 1, 3, 0]
    assert steps["pulse"][0] == 2 and steps["pulse"][3] == [1, 0]      # INTCAP, then GPIO
    assert steps["locked service"] == [1, 4]                           # ran under heap_lock
    assert steps["down"] == [-1, False, 5, 1, False]
    assert steps["back"][:2] == [True, True] and steps["back"][3:] == [1, 0]
    assert steps["line"] == [1, 1, 1]
    assert steps["irq"] == [0, 15]      # 20 edges, no allocation; the ring keeps one slot free
