# Runs INSIDE the MicroPython VM (benchmark): heap and allocation figures of the
# dice companion firmware (Watch Out Beetlejuice, Super-Skill Pinball),
# compiled to .mpy, playing through the real controller path (rules,
# events, button-state updates, the LED matrix, a save after every turn).
# The host calls these functions in separate steps ("#--- step" lines, separate
# runPython calls), because this VM only reclaims memory between calls:
#   load()
#   setup(game, seed, players, mode)   game "beetlejuice" | "superskill";
#                                      mode: beetlejuice "firmware"|"enter" cards,
#                                      superskill "companion" (its only mode)
#   measured_turn()   x N              one turn (Beetlejuice: one player's turn;
#                                      Super-Skill: one roll, everybody's moves)
#   next_game(i)      x G-1            a whole further game, unmeasured
#   sample(games)                      live heap at a game boundary
#   finish(games)                      prints the figures as one JSON line
import gc
import json
import os

import micropython

import machine  # noqa: F401,E402  the VM's stand-ins for modules built into the
import neopixel  # noqa: F401,E402  rp2 firmware: loaded before the baseline

# Live-heap samples at game boundaries (preallocated, so sampling never grows
# anything that is measured).
NSAMPLES = 256
R = {"turn_allocs": [], "peak_live": 0, "after_import": 0, "after_setup": 0,
     "after_first_game": 0, "after_games": 0, "games": 0, "turns": 0, "alloc_avg": 0,
     "alloc_max": 0, "irq_handlers": 0, "irq_failures": None, "led_writes": 0,
     "samples": [0] * NSAMPLES, "sample_games": [0] * NSAMPLES, "nsamples": 0, "game": "", "mode": ""}
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


def setup(game, seed, players, mode):
    R["after_import"] = live()
    from rules.rng import Rng
    a = S["app_mod"].App(root="/fw/", state_root="/state/", seed=seed, game=game)
    c = a.controller
    S["c"] = c
    S["players"] = players
    S["game"] = game
    R["game"] = game
    R["mode"] = mode
    if game == "beetlejuice":
        c.defaults["cards"] = mode
    c.new_game(players, 0)
    S["r"] = Rng(seed + 1)
    if game == "beetlejuice":
        from rules.beetlejuice import auto_chance
        S["chance"] = auto_chance


def _bj_keep(c, g, r):
    # The "keep" prompt as the buttons run it (games/beetlejuice.py
    # choose_dice): prompt, a few cursor moves and toggles (each an event and a
    # render), then a line of the MENU.
    legal = c.keep_options()
    d = c.decider
    d.current = ("keep", g.cur, legal)
    c.bus.publish(("prompt", "keep", g.cur, legal, 0))
    c._move(1)
    for _ in range(r.below(4)):
        c._move(1)
        if c.cursor >= 0:
            c.keep ^= 1 << c.cursor
        c.bus.publish(("keep", g.cur, c.keep, c.cursor, None))
        c.render()
    items = c.menu_items(c.keep)
    d.current = None
    if items[0][0] == "reroll" and r.below(3):
        return items[0]
    return items[r.below(len(items))]


def _bj_step(c, g, r):
    ph = g.phase
    if ph == "deal" or ph == "draw_bj" or ph == "roll":
        if ph != "roll" and c.cards == "enter":
            acts = g.legal_actions()
            return c._apply(acts[r.below(len(acts))])
        return c._apply(S["chance"](g, c.rng))
    if ph == "decide":
        return c._apply(_bj_keep(c, g, r))
    acts = g.legal_actions()
    return c._apply(acts[r.below(len(acts))])


def _ss_step(c, g, r):
    if g.to_act == -1:
        return c._apply(c.roll())
    acts = g.legal_actions()
    if g.phase == "report":
        # Mostly "next"; now and then a report.
        k = r.below(8)
        return c._apply(acts[0] if k or len(acts) == 1 else acts[1 + r.below(len(acts) - 1)])
    return c._apply(acts[r.below(len(acts))])


def play_turn():
    c = S["c"]
    g = c.game
    r = S["r"]
    bj = S["game"] == "beetlejuice"
    while not g.is_over():
        fx = _bj_step(c, g, r) if bj else _ss_step(c, g, r)
        for e in fx:
            if e[0] == "turn" or e[0] == "game_over":
                return
        if not bj and g.to_act == -1:
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
    c = S["c"]
    c.new_game(S["players"], 0)
    while not c.game.is_over():
        play_turn()


def sample(games_played):
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
    R["alloc_avg"] = sum(a) // len(a) if a else 0
    R["alloc_max"] = max(a) if a else 0
    R["irq_handlers"] = handlers
    R["irq_failures"] = failures
    R["led_writes"] = S["c"].build.strip.writes
    print(json.dumps(R))
