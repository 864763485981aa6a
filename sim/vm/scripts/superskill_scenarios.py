# Runs in the MicroPython VM (tests/rules/test_superskill_scenarios.py): every
# Super-Skill scenario script through the shared runner and the Super-Skill
# verbs, printed as one JSON object (script name -> transcript).
import json
import os

from scenarios.runner import run
from scenarios.verbs_superskill import SuperSkillVerbs


def cfg(name):
    with open("/fw/data/superskill/" + name + ".json") as f:
        return json.loads(f.read())


def main():
    d = "/t/scenarios/superskill"
    out = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".txt"):
            with open(d + "/" + name) as f:
                out[name] = run(f.read(), SuperSkillVerbs, cfg, name)
    print(json.dumps(out))
