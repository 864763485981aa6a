# Runs INSIDE the MicroPython VM (benchmark): heap and allocation figures of the
# Roller Ghoster firmware, compiled to .mpy, playing through its real controller
# path (rules, events, display, a save after every turn). The shared steps and
# figures are in sim/vm/scripts/bench_common.py.
import os

from bench_common import baseline, live, results

R = results({"irq_handlers": 0, "irq_failures": None})
BASE = baseline()
S = {}


def load():
    import tsf_shim  # noqa: F401  (asyncio.ThreadSafeFlag for the pyscript VM)
    import app
    import games.link  # noqa: F401  (app.run() starts its serve_stdio on the board)
    S["app_mod"] = app
    try:
        os.mkdir("/state")
    except OSError:
        pass


def setup(seed):
    R["after_import"] = live(BASE)
    from rules.rng import Rng
    from rules.roller_ghoster import FACES
    a = S["app_mod"].App(root="/fw/", state_root="/state/", seed=seed, game="roller-ghoster")
    S["app"] = a
    S["c"] = a.controller
    S["c"].new_game(4, 0)
    S["r"] = Rng(seed)
    S["faces"] = FACES
    S["sets"] = [tuple([k + 1 for k in range(4) if m & (1 << k)]) for m in range(16)]


def play_turn():
    # One turn the way the controller's loop runs it, choices from the rng.
    c = S["c"]
    g = c.game
    r = S["r"]
    while True:
        ph = g.phase
        if ph == "roll":
            act = ("roll", S["faces"][r.below(6)])
        elif ph == "balls":
            act = ("balls", S["sets"][r.below(16)])
        else:
            acts = g.legal_actions()
            act = acts[r.below(len(acts))]
        for e in c._apply(act):
            if e[0] == "turn" or e[0] == "win":
                return


def current():
    return S["c"].game


def new_game(i):
    S["c"].new_game(4, i % 4)
