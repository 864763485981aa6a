# Runs in the MicroPython VM (tests/rules/test_haunted_house_scenarios.py): the
# Haunted House scenario scripts `names` and seeded random games `games`
# ((seed, players) pairs), printed line by line, each followed by a "== ..."
# line, for the CPython side to compare.
import json

from scenarios.verbs_haunted_house import random_game, run


def main(names, games):
    with open("/fw/data/haunted-house.json") as f:
        cfg = json.loads(f.read())
    for name in names:
        with open("/t/scenarios/haunted-house/" + name) as f:
            text = f.read()
        for line in run(text, cfg):
            print(line)
        print("== " + name)
    for seed, players in games:
        g, t = random_game(cfg, seed, players)
        for line in t:
            print(line)
        print("== game %d %r" % (seed, g.final_scores()))
