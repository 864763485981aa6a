# Runs in the MicroPython VM and on CPython (tests/rules/test_superskill_tables_vm.py):
# a seeded random playout (saved and restored as it goes) and a scenario
# runner (a saved state plus a list of actions) for the Super-Skill tables,
# both written as transcripts of strings. main(files, scen): one playout per
# table of `files` (name -> data file) and every (table, state, actions) of
# `scen`, printed as one JSON object.
import json
from rules.rng import Rng
from rules.superskill import SuperSkillGame


def _s(t):
    out = []
    for v in t:
        if isinstance(v, (tuple, list)):
            out.append("(" + _s(v) + ")")
        else:
            out.append(str(v))
    return ",".join(out)


def _x(v):
    # dict order differs on MicroPython: sorted keys, recursively
    if isinstance(v, dict):
        return "{" + ",".join([k + ":" + _x(v[k]) for k in sorted(v)]) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join([_x(e) for e in v]) + "]"
    return str(v)


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
            plain = [x for x in acts if x[0] not in ("fill", "through", "borg", "wild")
                     or (x[0] == "borg" and x[2] == 0 and x[3] == 0)
                     or (x[0] != "borg" and x[0] != "wild" and x[3] == 0 and x[4] == 0)]
            pool = plain if (plain and rng.below(5)) else acts
            a = pool[rng.below(len(pool))]
        eff = g.apply(a)
        out.append(_s(a) + " => " + " ; ".join([_s(e) for e in eff]))
        steps += 1
        if steps % 9 == 0:
            g = SuperSkillGame.from_dict(cfg, json.loads(json.dumps(g.to_dict())))
        elif steps % 7 == 0:
            g = g.clone()
        if steps > 30000:
            raise RuntimeError("no end")
    out.append("stars " + _s([p.stars for p in g.players]) + " win " + _s(g.winners()))
    out.append("x " + _x([p.x for p in g.players]))
    return out


def scenario(cfg, state, actions):
    g = SuperSkillGame.from_dict(cfg, state)
    out = []
    for a in actions:
        eff = g.apply(tuple(a))
        out.append(_s(a) + " => " + " ; ".join([_s(e) for e in eff]))
    out.append("stars " + _s([p.stars for p in g.players]) + " phase " + g.phase)
    out.append("x " + _x([p.x for p in g.players]))
    out.append("n " + _s([p.x.get("n", -1) for p in g.players]))
    return out


def main(files, scen):
    out = {"playouts": {}, "scenarios": []}
    for name in sorted(files):
        with open("/fw/data/superskill/" + files[name]) as f:
            cfg = json.load(f)
        out["playouts"][name] = playout(cfg, 3, 2)
    for t, st, acts in scen:
        with open("/fw/data/superskill/" + files[t]) as f:
            cfg = json.load(f)
        out["scenarios"].append(scenario(cfg, st, acts))
    print(json.dumps(out))
