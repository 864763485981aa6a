# Runs INSIDE the MicroPython VM (benchmark): heap and allocation figures of a
# rule engine compiled to .mpy, for games measured at the rules layer (the
# engine, its data, and the state serialised after every turn as a controller's
# save does). sim/bench/vm_figures.py puts sim/vm/scripts/bench_common.py (the shared steps and
# figures) in front of this text. (The Super-Skill engine is not on the board,
# so not in this build: it is measured nowhere here.)
R = results()
BASE = baseline()
S = {}


def load(game):
    from rules.rng import Rng
    S["Rng"] = Rng
    S["game"] = game
    if game == "haunted-house":
        from rules.haunted_house import HauntedHouse
        S["cls"] = HauntedHouse
        S["cfg_path"] = "/fw/data/haunted-house.json"
    elif game == "beetlejuice":
        from rules.beetlejuice import BeetlejuiceGame, auto_chance
        S["cls"] = BeetlejuiceGame
        S["auto"] = auto_chance
        S["cfg_path"] = "/fw/data/beetlejuice.json"


def new(seed, i):
    S["g"] = S["cls"](S["cfg"], 4, rng=S["r"])


def setup(seed):
    R["after_import"] = live()
    with open(S["cfg_path"]) as f:
        S["cfg"] = json.load(f)
    S["r"] = S["Rng"](seed)
    new(seed, 0)


def hh_chance(g, r):
    # Haunted House: the same choice as acts[r.below(len(acts))] with acts =
    # g.legal_actions(), without building that list (up to a hundred tuples at a
    # round end). On the board these inputs come from the sensors and the
    # referee; the list is the harness's, not the firmware's.
    cfg = g.cfg
    if g.phase == "flight":
        n = len(cfg.monsters)
        for s in cfg.clue_spots:
            if g.spots[s] is not None:
                n += 1
        for o in range(g.n):
            if g.on_table[o] > 0:
                n += 3
        k = r.below(n + 1)
        if k < len(cfg.monsters):
            return ("monster_hit", cfg.monsters[k])
        k -= len(cfg.monsters)
        for s in cfg.clue_spots:
            if g.spots[s] is not None:
                if k == 0:
                    return ("clue_taken", s)
                k -= 1
        for o in range(g.n):
            if g.on_table[o] > 0:
                if k < 3:
                    return (("circle", "hole", "off_table")[k], o)
                k -= 3
        return ("end_turn",)
    # round end: per player with dice to enter, faces x (no realm + realms), lost
    per = cfg.faces * (1 + len(cfg.realm_ids)) + 1
    n = 0
    for p in range(g.n):
        if g.dice_to_enter(p) > 0:
            n += per
    if n == 0:
        r.below(1)
        return ("score_round",)
    k = r.below(n)
    for p in range(g.n):
        if g.dice_to_enter(p) > 0:
            if k < per:
                if k == per - 1:
                    return ("die_lost", p)
                f = 1 + k // (1 + len(cfg.realm_ids))
                j = k % (1 + len(cfg.realm_ids))
                if j == 0:
                    return ("die_result", p, f)
                return ("die_result", p, f, cfg.realm_ids[j - 1])
            k -= per


def step():
    # One action; returns True when a turn is complete.
    g = S["g"]
    r = S["r"]
    if g.to_act == -1:
        if "auto" in S:
            act = S["auto"](g, r)
        elif S["game"] == "haunted-house":
            act = hh_chance(g, r)
        else:
            acts = g.legal_actions()
            act = acts[r.below(len(acts))]
    elif S["game"] == "haunted-house":
        r.below(1)              # as acts[r.below(1)]: the same game as before
        act = ("launch",)       # the only action a player takes
    else:
        acts = g.legal_actions()
        act = acts[r.below(len(acts))]
    fx = g.apply(act)
    for e in fx:
        if e[0] == "turn":
            return True
    return g.is_over()


def play_turn():
    while not step():
        pass
    # What a controller's save does: stream the state into a file (the
    # engine's state_view() where it has one: no copies of its lists).
    g = S["g"]
    with open("/state.json", "w") as f:
        json.dump(g.state_view() if hasattr(g, "state_view") else g.to_dict(), f)


def current():
    return S["g"]


def new_game(i):
    new(i, i)
