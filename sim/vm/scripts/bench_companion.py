# Runs INSIDE the MicroPython VM (benchmark): heap and allocation figures of the
# dice companion firmware (Watch Out Beetlejuice, Super-Skill Pinball),
# compiled to .mpy, playing through the real controller path (rules,
# events, button-state updates, the LED matrix, a save after every turn).
# The shared steps and figures are in sim/vm/scripts/bench_common.py (B); the
# steps, with this module as G:
#   G.load()
#   setup(game, seed, players, mode)   game "beetlejuice" | "superskill";
#                                      mode: beetlejuice "firmware"|"enter" cards,
#                                      superskill "companion" (its only mode)
#   measured_turn()   x N              one turn (Beetlejuice: one player's turn;
#                                      Super-Skill: one roll, everybody's moves)
#   next_game(i)      x G-1            a whole further game, unmeasured
#   sample(games)                      live heap at a game boundary
#   finish(games)                      prints the figures as one JSON line
import os

from bench_common import baseline, live, results

R = results({"irq_handlers": 0, "irq_failures": None, "led_writes": 0, "game": "", "mode": ""})
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


def setup(game, seed, players, mode):
    R["after_import"] = live(BASE)
    from rules.rng import Rng
    a = S["app_mod"].App(root="/fw/", state_root="/state/", seed=seed, game=game)
    S["app"] = a
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


def current():
    return S["c"].game


def new_game(i):
    S["c"].new_game(S["players"], 0)


def extra_figures():
    R["led_writes"] = S["c"].build.strip.writes
