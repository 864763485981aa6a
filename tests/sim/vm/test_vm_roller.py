"""Layer 4 (parity): Roller Ghoster rules and scenario scripts in the real MicroPython VM.

The same scripts and the same seeds must give identical transcripts on CPython
and on MicroPython; the beam IRQ handler must run under heap_lock.
"""
import json
from pathlib import Path

import pytest

from scenarios import verbs_roller_ghoster as roller_runner
from hauntbox_sim.vm.mpvm import run_micropython, vm_available

ROOT = Path(__file__).resolve().parents[3]
LAYOUT = json.loads((ROOT / "firmware/data/roller-ghoster.json").read_text())
SCRIPTS = sorted((ROOT / "tests/scenarios/roller-ghoster").glob("*.txt"))
SEEDS = list(range(1, 21))

pytestmark = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")

VM_CODE = """
import json, os
from scenarios import verbs_roller_ghoster as roller_runner
layout = json.load(open('/fw/data/roller-ghoster.json'))
out = {'scripts': {}, 'playouts': {}}
d = '/t/scenarios/roller-ghoster'
for name in sorted(os.listdir(d)):
    out['scripts'][name] = roller_runner.run(open(d + '/' + name).read(), layout)
for seed in SEEDS:
    out['playouts'][str(seed)] = roller_runner.playout(layout, seed, 2 + seed % 3)
print(json.dumps(out))
"""


def test_scenarios_and_playouts_identical_on_micropython():
    vm = json.loads(run_micropython(VM_CODE.replace("SEEDS", repr(SEEDS))))
    assert sorted(vm["scripts"]) == [s.name for s in SCRIPTS]
    for s in SCRIPTS:
        assert vm["scripts"][s.name] == roller_runner.run(s.read_text(), LAYOUT), s.name
    for seed in SEEDS:
        cp = roller_runner.playout(LAYOUT, seed, 2 + seed % 3)
        assert vm["playouts"][str(seed)] == cp
        assert cp[-1].startswith("win ")
