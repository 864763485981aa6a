# Runs in the MicroPython VM (tests/sim/vm/test_vm_firmware.py): firmware
# drivers on MicroPython itself, and whether their hard IRQ handlers allocate
# (micropython.heap_lock() turns any allocation into MemoryError).
# main(check) runs one check by name and prints its result on one line.
import micropython

from drivers.beam import Beam
from drivers.edges import EdgeRecorder
from edge_pin import Flag, Pin
from rules.rng import Rng

# The beam test's edges: (time in us, level).
BEAM_EDGES = [(1000, 0), (1500, 1), (3000, 0), (3600, 1),      # two glitches 1.5 ms apart
              (20000, 0), (20300, 1), (20500, 0), (45000, 1),   # a ball with chatter
              (60000, 0), (60100, 1),                           # a glitch
              (90000, 0), (120000, 1)]                          # a ball


def storm(pin, isr, n):
    # Inside a function: a module-level loop would store a new global, which
    # may grow the globals dict (an allocation that is not the handler's).
    for i in range(n):
        pin.v = i & 1
        isr(pin)


def edge_storm():
    # 1000 edges into a 32-slot recorder under heap_lock, then read back.
    pin = Pin()
    flag = Flag()
    rec = EdgeRecorder(pin, 32, flag)
    isr = pin.handler
    micropython.heap_lock()
    try:
        storm(pin, isr, 1000)
    finally:
        micropython.heap_unlock()
    seen = []
    n = rec.read(lambda t, v: seen.append(v))
    print(n, rec.overruns, flag.state, seen[-2:])


def bad(buf, pin):
    buf.append([pin])


def probe():
    # An allocating handler must raise MemoryError under heap_lock.
    buf = []
    micropython.heap_lock()
    try:
        bad(buf, 1)
        return "no error"
    except MemoryError:
        return "MemoryError"
    finally:
        micropython.heap_unlock()


def beam_counts(edges):
    beam = Beam(EdgeRecorder(Pin(1), 64, Flag()), 0, 3000, 4000, 2000)
    for t, v in edges:
        beam._edge(t, v)
    beam.poll(200000)
    return beam.balls, beam.glitches


def draws(r, n):
    for _ in range(n):
        r.below(6)


def rng_draws():
    # The generator keeps its state in 16-bit halves so a draw never boxes a big int.
    r = Rng(12345)
    micropython.heap_lock()
    try:
        draws(r, 500)
        ok = "ok"
    except MemoryError:
        ok = "MemoryError"
    finally:
        micropython.heap_unlock()
    print(ok, r.state, [r.below(1000) for _ in range(5)])


def main(check):
    if check == "edge_storm":
        edge_storm()
    elif check == "probe":
        print(probe())
    elif check == "beam":
        print(*beam_counts(BEAM_EDGES))
    elif check == "rng":
        rng_draws()
    else:
        raise ValueError("no such check: " + check)
