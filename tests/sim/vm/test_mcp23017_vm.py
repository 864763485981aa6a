"""Layer 4: the MCP23017 driver and the table's line decoder in the MicroPython VM.

The same script runs in the official MicroPython WebAssembly VM and in CPython
(sim/vm/scripts/mcp23017_driver.py): in the VM against the VM's lean chip
(sim/vm/lib/mcp23017_model.py on sim/vm/lib/machine.py's I2C), on CPython
against the simulator's full model (sim/models/mcp23017.py); the transcripts
must be identical. In the VM, the INT edge handler
(EdgeRecorder) and the driver's service path run under micropython.heap_lock():
they must not allocate.
"""
import json
from pathlib import Path

import pytest

from hauntbox_sim.vm.mpvm import run_micropython, vm_available

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")

SCRIPT = ROOT / "sim" / "vm" / "scripts" / "mcp23017_driver.py"
LIB = ROOT / "sim" / "vm" / "lib"


class FullChip:
    """The CPython side: the full register model (sim/models/mcp23017.py) on the fake bus."""

    def __init__(self):
        from hauntbox_sim.fakes import machine
        from hauntbox_sim.models.mcp23017 import NAMES, Mcp23017Model

        self.names = NAMES
        self.model = Mcp23017Model()
        machine.attach_i2c_device(0, 0x20, self.model)
        self.i2c = machine.I2C(0, scl=machine.Pin(9), sda=machine.Pin(8), freq=400_000)

    def set_pin(self, i, level):
        self.model.set_input(i, level)

    def up(self, ok):
        self.model.responding = ok

    def regs(self, lo, hi):
        # BANK=0 map: address 2*k + port is register NAMES[k] of that port.
        return [self.model.reg(self.names[a >> 1], a & 1) for a in range(lo, hi)]


def run_cpython():
    from hauntbox_sim.fakes import install as sim_install

    sim_install.install()
    ns = {"__name__": "mcp23017_driver"}
    exec(compile(SCRIPT.read_text(), str(SCRIPT), "exec"), ns)
    chip = FullChip()
    return ns["run"](chip, chip.i2c)


def run_vm():
    return json.loads(run_micropython(SCRIPT.read_text() + "\nmain()\n", mounts={"/lib": LIB}))


def test_driver_and_decoder_identical_on_micropython_and_allocation_free():
    """The same driver script on the VM's lean chip (in the VM) and on the full model
    (on CPython): identical transcripts, so the lean stand-in behaves as the model does
    for everything the driver does."""
    vm = run_vm()
    cp = json.loads(json.dumps(run_cpython()))
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
