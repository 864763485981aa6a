"""Parity: Watch Out Beetlejuice rules in the real MicroPython VM.

The scenario scripts and seeded random playouts must give identical transcripts
on CPython and on MicroPython (tests/vm/mpvm.py), and the state must
round-trip through to_dict/from_dict there too.
"""
import json
from pathlib import Path

import pytest

from scenarios import verbs_beetlejuice as runner

mpvm = pytest.importorskip("vm.mpvm")

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/beetlejuice.json").read_text())
SCRIPTS = sorted((ROOT / "tests/scenarios/beetlejuice").glob("*.txt"))
SEEDS = list(range(1, 13))

pytestmark = pytest.mark.skipif(not mpvm.vm_available(),
                                reason="MicroPython VM not installed (make deps)")

VM_CODE = """
import json, os
from scenarios import verbs_beetlejuice as runner
from rules.beetlejuice import BeetlejuiceGame
cfg = json.load(open('/fw/data/beetlejuice.json'))
out = {'scripts': {}, 'playouts': {}, 'roundtrip': True}
d = '/t/scenarios/beetlejuice'
for name in sorted(os.listdir(d)):
    if name.endswith('.txt'):
        out['scripts'][name] = runner.run(open(d + '/' + name).read(), cfg)
for seed in SEEDS:
    out['playouts'][str(seed)] = runner.playout(cfg, seed, 1 + seed % 6,
                                                {'expert': seed % 4 == 0})
g = BeetlejuiceGame(cfg, 3)
s = g.to_dict()
out['roundtrip'] = BeetlejuiceGame.from_dict(cfg, json.loads(json.dumps(s))).to_dict() == s
print(json.dumps(out))
"""


def test_scenarios_and_playouts_identical_on_micropython():
    """Parity: identical transcripts on MicroPython and CPython (all sections)."""
    vm = json.loads(mpvm.run_micropython(VM_CODE.replace("SEEDS", repr(SEEDS))))
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
    code = """
import gc, json
from rules.beetlejuice_cards import Config
cfg = Config(json.load(open('/fw/data/beetlejuice.json')))
text = json.dumps(list(cfg.house_ids))
#--- step
gc.collect()
before = gc.mem_alloc()
again = json.loads(text)
gc.collect()
print(json.dumps({"n": len(again), "bytes": gc.mem_alloc() - before,
                  "same": again == list(cfg.house_ids)}))
"""
    r = json.loads(mpvm.run_micropython(code).strip().splitlines()[-1])
    assert r["same"] and r["n"] >= 40
    # The list alone is ~4 B an id; a string object per id would add 32 B each.
    assert r["bytes"] < 12 * r["n"], r
