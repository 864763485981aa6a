# Runs in the MicroPython VM (tests/sim/vm/test_vm_roller.py): every Roller
# Ghoster scenario script and seeded random playouts, printed as one JSON
# object for the CPython side to compare. main(seeds): the playout seeds.
import json
import os

from scenarios import verbs_roller_ghoster as roller_runner


def main(seeds):
    with open("/fw/data/roller-ghoster.json") as f:
        layout = json.load(f)
    out = {"scripts": {}, "playouts": {}}
    d = "/t/scenarios/roller-ghoster"
    for name in sorted(os.listdir(d)):
        with open(d + "/" + name) as f:
            out["scripts"][name] = roller_runner.run(f.read(), layout)
    for seed in seeds:
        out["playouts"][str(seed)] = roller_runner.playout(layout, seed, 2 + seed % 3)
    print(json.dumps(out))
