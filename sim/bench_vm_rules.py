# Runs INSIDE the MicroPython VM (benchmark): heap and allocation figures of a
# rule engine compiled to .mpy, for games measured at the rules layer (the
# engine, its data, and the state serialised after every turn as a controller's
# save does). Steps are separate runPython calls ("#--- step"), because this VM
# only reclaims memory between calls.
import gc
import json

import machine  # noqa: F401  stand-ins for rp2 built-ins, loaded before the baseline
import neopixel  # noqa: F401

R = {"turn_allocs": [], "peak_live": 0, "after_import": 0, "after_setup": 0,
     "after_first_game": 0, "games": 0, "turns": 0, "alloc_avg": 0, "alloc_max": 0,
     "samples": [0] * 12, "sample_games": [0] * 12, "nsamples": 0}
gc.collect()
BASE = gc.mem_alloc()
S = {}


def live():
    gc.collect()
    return gc.mem_alloc() - BASE


def load(game):
    from rules.rng import Rng
    S["Rng"] = Rng
    S["game"] = game
    if game == "haunted-house":
        from rules.haunted_house import HauntedHouse
        S["cls"] = HauntedHouse
        S["cfg_path"] = "/fw/data/haunted_house.json"
    elif game == "beetlejuice":
        from rules.beetlejuice import BeetlejuiceGame, auto_chance
        S["cls"] = BeetlejuiceGame
        S["auto"] = auto_chance
        S["cfg_path"] = "/fw/data/beetlejuice.json"
    elif game == "superskill":
        from rules.superskill import SuperSkillGame
        S["cls"] = SuperSkillGame
        S["cfg_path"] = "/fw/data/superskill/starfleet_academy.json"


def new(seed, i):
    r = S["r"]
    g = S["game"]
    if g == "superskill":
        S["g"] = S["cls"](S["cfg"], 4)
    else:
        S["g"] = S["cls"](S["cfg"], 4, rng=r)


def setup(seed):
    R["after_import"] = live()
    with open(S["cfg_path"]) as f:
        S["cfg"] = json.load(f)
    S["r"] = S["Rng"](seed)
    new(seed, 0)


def step():
    # One action; returns True when a turn is complete.
    g = S["g"]
    r = S["r"]
    if g.to_act == -1:
        if S["game"] == "superskill":
            act = ("roll", 1 + r.below(6), 1 + r.below(6))
        elif "auto" in S:
            act = S["auto"](g, r)
        else:
            acts = g.legal_actions()
            act = acts[r.below(len(acts))]
    else:
        acts = g.legal_actions()
        act = acts[r.below(len(acts))]
    fx = g.apply(act)
    if S["game"] == "superskill":
        return g.to_act == -1 or g.is_over()
    for e in fx:
        if e[0] == "turn":
            return True
    return g.is_over()


def play_turn():
    while not step():
        pass
    # What a controller's save does: stream the state into a file.
    with open("/state.json", "w") as f:
        json.dump(S["g"].to_dict(), f)


def measured_turn():
    if not R["after_setup"]:
        R["after_setup"] = live()
    if S["g"].is_over():
        return
    lv = live()
    if lv > R["peak_live"]:
        R["peak_live"] = lv
    gc.disable()
    m0 = gc.mem_alloc()
    play_turn()
    R["turn_allocs"].append(gc.mem_alloc() - m0)
    gc.enable()


def next_game(i):
    if not R["after_first_game"]:
        R["after_first_game"] = live()
    new(i, i)
    while not S["g"].is_over():
        play_turn()


def sample(games_played):
    n = R["nsamples"]
    R["samples"][n] = live()
    R["sample_games"][n] = games_played
    R["nsamples"] = n + 1


def finish(games):
    R["games"] = games
    n = R.pop("nsamples")
    R["samples"] = R["samples"][:n]
    R["sample_games"] = R["sample_games"][:n]
    a = R.pop("turn_allocs")
    R["turns"] = len(a)
    R["alloc_avg"] = sum(a) // len(a)
    R["alloc_max"] = max(a)
    print(json.dumps(R))
