# Runs in the MicroPython VM and on CPython (tests/sim/vm/test_mcp23017_vm.py):
# the firmware's MCP23017 driver and the table's line decoder on one script.
# `run(chip, i2c)` takes the chip behind an adapter (set_pin(i, level),
# up(bool), regs(lo, hi) -> list, the register file without side effects):
# in the VM the lean /lib/mcp23017_model.py (LeanChip below), on CPython the
# full sim/models/mcp23017.py; the transcripts must be identical. In the VM
# the driver's service path and the INT edge handler run under heap_lock().
import json

from devices.table import Line
from drivers.edges import EdgeRecorder
from drivers.mcp23017 import Mcp23017

try:
    import micropython
    _lock = micropython.heap_lock
    _unlock = micropython.heap_unlock
except (ImportError, AttributeError):
    _lock = _unlock = None

log_pin = bytearray(64)
log_lvl = bytearray(64)


class Sink:
    def __init__(self):
        self.n = 0
        self.fn = self.edge

    def edge(self, i, t, level):
        log_pin[self.n] = i
        log_lvl[self.n] = level
        self.n += 1


def locked(fn, a, b):
    # Inside a function: a module-level store would grow the globals dict.
    if _lock is None:
        return fn(a, b)
    _lock()
    try:
        return fn(a, b)
    except MemoryError:
        return "allocated"
    finally:
        _unlock()


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


class LeanChip:
    # The VM's side: /lib/mcp23017_model.py on /lib/machine.py's I2C bus.
    def __init__(self, addr=0x20):
        from machine import I2C
        from mcp23017_model import Mcp23017Model
        self.model = Mcp23017Model(addr)
        I2C.devices[addr] = self.model
        self.i2c = I2C(0)

    def set_pin(self, i, level):
        self.model.set_pin(i, level)

    def up(self, ok):
        self.model.responding = ok

    def regs(self, lo, hi):
        return list(self.model.r[lo:hi])


def run(chip, i2c):
    out = []
    d = Mcp23017(i2c, 0x20, invert=0x0100, interrupts=0x010F)
    out.append(["configure", d.configure(), d.state, chip.regs(0x0A, 0x0B)[0], chip.regs(0, 10)])
    s = Sink()
    chip.set_pin(3, 0)
    out.append(["edges", d.service(100, s.fn), s.n, log_pin[0], log_lvl[0]])
    chip.set_pin(8, 0)
    chip.set_pin(8, 1)
    out.append(["pulse", d.service(200, s.fn), s.n, list(log_pin[1:3]), list(log_lvl[1:3]),
                d.captured, d.late, d.reverted])
    chip.set_pin(0, 0)
    n = locked(d.service, 300, s.fn)
    out.append(["locked service", n, s.n])
    chip.up(False)
    out.append(["down", d.service(400, s.fn), d.ok, d.errno, d.outages, d.configure()])
    chip.up(True)
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
    out.append(["line", hits] + list(ln.counts()[:2]))

    p = FakePin()
    rec = EdgeRecorder(p, 16, Flag(), trigger=FakePin.IRQ_FALLING)
    out.append(["irq", locked(storm, p.h, p), rec.pending()])
    return out


def main():
    chip = LeanChip()
    print(json.dumps(run(chip, chip.i2c)))
