# Runs in the MicroPython VM (tests/rules/test_beetlejuice_vm.py): every
# Beetlejuice scenario script, seeded random playouts and a to_dict/from_dict
# round trip, printed as one JSON object for the CPython side to compare.
# main(seeds): the playout seeds.
import json
import os

from rules.beetlejuice import BeetlejuiceGame
from scenarios import verbs_beetlejuice as runner


def main(seeds):
    with open("/fw/data/beetlejuice.json") as f:
        cfg = json.load(f)
    out = {"scripts": {}, "playouts": {}, "roundtrip": True}
    d = "/t/scenarios/beetlejuice"
    for name in sorted(os.listdir(d)):
        if name.endswith(".txt"):
            with open(d + "/" + name) as f:
                out["scripts"][name] = runner.run(f.read(), cfg)
    for seed in seeds:
        out["playouts"][str(seed)] = runner.playout(cfg, seed, 1 + seed % 6,
                                                    {"expert": seed % 4 == 0})
    g = BeetlejuiceGame(cfg, 3)
    s = g.to_dict()
    out["roundtrip"] = BeetlejuiceGame.from_dict(cfg, json.loads(json.dumps(s))).to_dict() == s
    print(json.dumps(out))
