"""`make bench`'s figure for the board's tasks running (sim/bench/vm_figures.py
vm_running): in the MicroPython VM, App.main_async starts the play loop, the
game's device tasks and the watchdog as app.run() does, and then the link's
pump for a host; every task reaches its first wait, and the live heap counts
them; then a request's code is loaded as while a request is answered. (The figures and their budgets are the bench's job.)"""
import tempfile
from pathlib import Path

import pytest

from hauntbox_sim.bench.vm_figures import vm_running
from hauntbox_sim.vm.mpvm import vm_available

pytestmark = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")


def test_roller_tasks_run_in_the_vm_and_count():
    from hauntbox_fw.build import build
    fw = build(out=Path(tempfile.mkdtemp(prefix="hauntbox-running-")) / "fw").out_dir
    r = vm_running(fw, 7)
    assert r["tasks"] == 2                       # the beam bank and its ticker (the game's device tasks)
    # The tasks, the watchdog module and the play loop's frames are heap; the
    # host link (protocol, link core, pump) adds several KB more.
    assert 30_000 < r["running"] < r["running_host"] - 3_000
    # While a request is answered its code is loaded too (protocol_commands).
    assert r["running_request"] > r["running_host"] + 3_000
