"""Layer 4: the Haunted House firmware modules in the MicroPython VM.

Every module of the build imports on MicroPython, and the score panel / spot
LEDs render identical frames on MicroPython and CPython for a scripted game
(rules driven through "Monsters", "Clues", "Round End", "Scoring").
"""
import json
from pathlib import Path

import pytest

from hauntbox_sim.bench.vm_figures import VM_MOUNTS, vm_code
from hauntbox_sim.vm.mpvm import run_micropython, vm_available

pytestmark = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")

SCRIPT = Path(__file__).resolve().parents[3] / "sim" / "vm" / "scripts" / "haunted_frames.py"


def test_build_modules_import_and_frames_match_cpython():
    # /lib: the VM's machine stand-in (devices.table imports machine.Timer).
    vm = json.loads(run_micropython(SCRIPT.read_text(), mounts=VM_MOUNTS, timeout=120))
    root = str(Path(__file__).resolve().parents[3] / "firmware") + "/"
    import contextlib
    import io

    from hauntbox_sim.fakes import install as sim_install
    sim_install.install()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(SCRIPT.read_text(), str(SCRIPT), "exec"), {"__name__": "__vm__", "FW_ROOT": root})
    cp = json.loads(buf.getvalue())
    assert vm == cp
    assert len(vm) == 15
    first, last = vm[0], vm[-1]
    assert first != last
    # After round 1 the seat LEDs and the scores changed; the round LEDs moved on.
    assert last[97] == [255, 255, 255] and last[96] != [0, 0, 0]


def test_board_controller_plays_whole_games_in_the_vm_on_chip_models():
    """Setup to Game End on the board path in MicroPython: the controller's turn steps
    (sim/vm/scripts/bench_haunted.py) with the MCP23017 driver on register-level chip models
    (sim/vm/lib/mcp23017_model.py), the INT lines on the recorders, the table's
    decoding and the turn window play whole games; the hard IRQ handlers (INT
    recorders, buttons) allocate nothing."""
    import tempfile
    from pathlib import Path

    from hauntbox_fw.build import build

    fw = build(out=Path(tempfile.mkdtemp(prefix="hauntbox-hh-")) / "fw").out_dir
    steps = ["G.load()", "G.setup(3)"] + ["B.measured_turn(G)"] * 80
    steps += ["B.next_game(G, 0)", "B.sample(G, 2)", "B.finish(G, 2)"]
    code = vm_code("sim/vm/scripts/bench_haunted.py", steps)
    r = json.loads(run_micropython(code, mounts=VM_MOUNTS, firmware=fw,
                                   timeout=600).strip().splitlines()[-1])
    assert r["turns"] >= 40 and r["launches"] >= 2 * 40
    assert r["events"] > r["launches"] // 2          # hits, clues, holes... were credited
    assert r["saves"] >= r["turns"]
    assert r["irq_handlers"] == 6 and r["irq_failures"] == []   # 2 INT lines + 4 buttons
    assert r["led_writes"] > 0
