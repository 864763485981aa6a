"""The VM's lean stand-ins (sim/vm/lib) against the simulator's fakes (sim/fakes),
on one script (sim/vm/scripts/fakes_parity.py): `machine`, `neopixel` and
asyncio.ThreadSafeFlag in the MicroPython VM must behave as the fakes the CPython tests and the emulated
Pico's lockstep use, for everything the VM runs rely on.
(The MCP23017 pair: tests/sim/vm/test_mcp23017_vm.py.)"""
import json
from pathlib import Path

import pytest

from hauntbox_sim.vm.mpvm import run_micropython, vm_available

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "sim" / "vm" / "scripts" / "fakes_parity.py"


def run_cpython():
    from hauntbox_sim.fakes import install as sim_install

    sim_install.install()
    ns = {"__name__": "fakes_parity"}
    exec(compile(SCRIPT.read_text(), str(SCRIPT), "exec"), ns)
    return json.loads(json.dumps(ns["run"](lambda pin, level: pin.sim_drive(level))))


def test_the_transcript_makes_sense_on_the_fakes():
    t = {row[0]: row[1:] for row in run_cpython()}
    assert t["pull-up level"] == [1]
    assert t["irq on each change"] == [[0, 1, 0, 1], 1]
    assert t["irq falling only"] == [[0, 0, 0], 0]      # three falls, the rises ignored
    assert t["irq rising only"] == [[1, 1], 0]
    assert t["pwm"] == [50, 1500000]
    assert t["neopixel"][1][:3] == [20, 10, 30]        # GRB in the buffer
    assert t["neopixel fill"][1] == 2
    assert t["thread-safe flag"] == [["returned", 0, 1, 1]]


@pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")
def test_lean_vm_stand_ins_match_the_fakes():
    vm = json.loads(run_micropython(SCRIPT.read_text() + "\nmain()\n",
                                    mounts={"/lib": ROOT / "sim" / "vm" / "lib"}))
    assert vm == run_cpython()
