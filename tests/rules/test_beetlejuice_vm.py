"""Parity: Watch Out Beetlejuice rules in the real MicroPython VM.

The scenario scripts and seeded random playouts must give identical transcripts
on CPython and on MicroPython (sim/vm/mpvm.py), and the state must
round-trip through to_dict/from_dict there too.
"""
import json
from pathlib import Path

import pytest

from scenarios import verbs_beetlejuice as runner

mpvm = pytest.importorskip("hauntbox_sim.vm.mpvm")

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/beetlejuice.json").read_text())
SCRIPTS = sorted((ROOT / "tests/scenarios/beetlejuice").glob("*.txt"))
SEEDS = list(range(1, 13))

pytestmark = pytest.mark.skipif(not mpvm.vm_available(),
                                reason="MicroPython VM not installed (make deps)")

# The VM side: sim/vm/scripts/beetlejuice_parity.py, beetlejuice_interned.py.


def test_scenarios_and_playouts_identical_on_micropython():
    """Parity: identical transcripts on MicroPython and CPython (all sections)."""
    vm = json.loads(mpvm.run_micropython(mpvm.script_code("beetlejuice_parity", SEEDS)))
    assert sorted(vm["scripts"]) == [s.name for s in SCRIPTS]
    for s in SCRIPTS:
        assert vm["scripts"][s.name] == runner.run(s.read_text(), CFG), s.name
    for seed in SEEDS:
        cp = runner.playout(CFG, seed, 1 + seed % 6, {"expert": seed % 4 == 0})
        assert vm["playouts"][str(seed)] == cp, seed
        assert cp[-1].startswith("end ")
    assert vm["roundtrip"] is True


def test_card_ids_are_interned_on_micropython():
    """The card ids cost no string object of their own on the board: any copy
    of them json makes (a saved game read at a resume) is the interned one."""
    code = mpvm.script_path("beetlejuice_interned").read_text()
    r = json.loads(mpvm.run_micropython(code).strip().splitlines()[-1])
    assert r["same"] and r["n"] >= 40
    # The list alone is ~4 B an id; a string object per id would add 32 B each.
    assert r["bytes"] < 12 * r["n"], r
