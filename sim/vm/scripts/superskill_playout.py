# Runs in the MicroPython VM and on CPython (tests/rules/test_superskill_state.py):
# one seeded random Super-Skill playout on Starfleet Academy, saved and restored
# as it goes, written as a transcript of strings (effects and the chosen
# actions). main(seeds): one playout per seed, printed as one JSON object.
import json
from rules.rng import Rng
from rules.superskill import SuperSkillGame


def _s(t):
    return ",".join([str(v) for v in t])


def playout(cfg, seed, players):
    rng = Rng(seed)
    g = SuperSkillGame(cfg, players)
    out = []
    steps = 0
    while not g.is_over():
        acts = g.legal_actions()
        if g.to_act == -1:
            a = ("roll", 1 + rng.below(6), 1 + rng.below(6))
        else:
            plain = [x for x in acts if x[0] != "fill" or (x[3] == 0 and x[4] == 0)]
            pool = plain if (plain and rng.below(5)) else acts
            a = pool[rng.below(len(pool))]
        eff = g.apply(a)
        out.append(_s(a) + " => " + " ; ".join([_s(e) for e in eff]))
        steps += 1
        if steps % 9 == 0:    # continue from a saved and restored copy
            g = SuperSkillGame.from_dict(cfg, json.loads(json.dumps(g.to_dict())))
        elif steps % 7 == 0:
            g = g.clone()
        if steps > 20000:
            raise RuntimeError("no end")
    out.append("stars " + _s([p.stars for p in g.players]) + " win " + _s(g.winners()))
    return out


def main(seeds):
    with open("/fw/data/superskill/starfleet_academy.json") as f:
        cfg = json.load(f)
    out = {}
    for seed in seeds:
        out[str(seed)] = playout(cfg, seed, 1 + seed % 3)
    print(json.dumps(out))
