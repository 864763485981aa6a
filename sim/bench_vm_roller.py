# Runs INSIDE the MicroPython VM (benchmark): heap and allocation figures of the
# Roller Ghoster firmware, compiled to .mpy, playing through its real controller
# path (rules, events, display, a save after every turn).
# The bench calls these functions in separate steps ("#--- step" lines, separate
# runPython calls), because this VM only reclaims memory between calls.
import gc
import json
import os

import micropython

import machine  # noqa: F401,E402  the VM's stand-ins for modules built into the
import neopixel  # noqa: F401,E402  rp2 firmware: loaded before the baseline

# Every key exists before the first measurement, so the results dict itself
# never grows between two measurements.
# Live-heap samples at game boundaries (preallocated, so sampling never grows
# anything that is measured).
NSAMPLES = 256
R = {"turn_allocs": [], "peak_live": 0, "after_import": 0, "after_setup": 0,
     "after_first_game": 0, "after_games": 0, "games": 0, "turns": 0, "alloc_avg": 0,
     "alloc_max": 0, "irq_handlers": 0, "irq_failures": None,
     "samples": [0] * NSAMPLES, "sample_games": [0] * NSAMPLES, "nsamples": 0}
gc.collect()
BASE = gc.mem_alloc()
S = {}


def load():
    import tsf_shim  # noqa: F401  (asyncio.ThreadSafeFlag for the pyscript VM)
    import app
    S["app_mod"] = app
    try:
        os.mkdir("/state")
    except OSError:
        pass


def settle():
    # An empty step, run before each measuring step: a collection at the start
    # of a step still finds some of the previous step's garbage alive in this VM
    # (e.g. the game a next_game() step replaced: ~5 KB), and one step later it
    # is gone. So every live() reading comes one step after the work it follows.
    pass


def live():
    gc.collect()
    return gc.mem_alloc() - BASE


def setup(seed):
    R["after_import"] = live()
    from rules.rng import Rng
    from rules.roller_ghoster import FACES
    a = S["app_mod"].App(root="/fw/", state_root="/state/", seed=seed, game="roller-ghoster")
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


def measured_turn():
    if not R["after_setup"]:
        R["after_setup"] = live()
    if S["c"].game.is_over():
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
    S["c"].new_game(4, i % 4)
    while not S["c"].game.is_over():
        play_turn()


def sample(games_played):
    # Live heap after a collection, at a game boundary (preallocated slots).
    n = R["nsamples"]
    if n >= NSAMPLES:
        return
    R["samples"][n] = live()
    R["sample_games"][n] = games_played
    R["nsamples"] = n + 1


def storm(pin, n):
    h = pin.handler
    for i in range(n):
        pin.v = i & 1
        h(pin)


def finish(games):
    R["after_games"] = live()
    R["games"] = games
    from machine import Pin
    handlers = 0
    failures = []
    for pid in Pin._all:
        pin = Pin._all[pid]
        if pin.handler is None:
            continue
        handlers += 1
        micropython.heap_lock()
        try:
            storm(pin, 64)
        except MemoryError:
            failures.append(pid)
        finally:
            micropython.heap_unlock()
    n = R.pop("nsamples")
    R["samples"] = R["samples"][:n]
    R["sample_games"] = R["sample_games"][:n]
    a = R.pop("turn_allocs")
    R["turns"] = len(a)
    R["alloc_avg"] = sum(a) // len(a)
    R["alloc_max"] = max(a)
    R["irq_handlers"] = handlers
    R["irq_failures"] = failures
    print(json.dumps(R))
