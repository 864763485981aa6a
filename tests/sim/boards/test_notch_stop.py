"""Issue 17, defect 11: the notch stop must not wait for the asyncio loop. The
notch switch's own hard IRQ stops the servo (devices/tower.py); measured with the
loop blocked for 500 ms (a USB write to a host that stopped reading) followed by
a save (25 ms per commit and rename) at a random moment of every turn."""
import pytest

from hauntbox_sim.reliability.host import notch_overshoot
from hauntbox_sim.bench.vm_figures import VM_MOUNTS
from hauntbox_sim.vm.mpvm import run_micropython, script_code, vm_available


def test_the_tower_stops_at_the_notch_while_the_loop_is_blocked():
    rep = notch_overshoot(rotations=12, stall_ms=500, flash_ms=25, seed=2)
    assert rep.rotations == 12 and rep.stalls_over_arrival >= 8
    assert rep.max_block_ms >= 550
    assert rep.irq_stops == 12 and rep.extra_notches == 0 and rep.off_notch == 0
    assert rep.max_past_deg < 0.5


def test_without_the_irq_stop_the_same_stalls_overrun_the_notch():
    # What the loop's own stop does (the firmware before): the measurement can fail.
    rep = notch_overshoot(rotations=12, stall_ms=500, flash_ms=25, seed=2, irq_stop=False)
    assert rep.extra_notches >= 8 and rep.max_past_deg > 40


@pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")
def test_the_notch_irq_allocates_nothing_in_the_micropython_vm():
    # The VM side: sim/vm/scripts/notch_irq.py (on the pin of edge_pin.py).
    # /lib: the VM's machine stand-in (devices.tower imports machine.Timer).
    out = run_micropython(script_code("notch_irq"), mounts=VM_MOUNTS)
    assert out.split() == ["1", "True", "False"]
