# Runs unchanged in the MicroPython VM and on CPython (tests/sim/vm/test_companion_vm.py):
# a companion game driven through the controller the way its play loop does it,
# choices from a seeded Rng; drive() returns the transcript as JSON.
import json
import app
from rules.rng import Rng


def drive(game, mode, seed, players, root, state):
    a = app.App(root=root, state_root=state, seed=seed, game=game)
    out = []
    a.bus.subscribe(lambda e: out.append(e))
    c = a.controller
    if game == "beetlejuice":
        c.defaults["cards"] = mode
    c.new_game(players, 0)
    g = c.game
    r = Rng(seed + 1)
    steps = 0
    while not g.is_over() and steps < 5000:
        steps += 1
        if game == "beetlejuice":
            ph = g.phase
            if ph == "roll" or (ph in ("deal", "draw_bj") and mode == "firmware"):
                from rules.beetlejuice import auto_chance
                c._apply(auto_chance(g, c.rng))
            elif ph == "decide":
                legal = g.legal_actions()
                c._move(1)
                for _ in range(r.below(4)):
                    c._move(1)
                    if c.cursor >= 0:
                        c.keep ^= 1 << c.cursor
                c.render()
                items = c.menu_items(c.keep, legal)
                c._apply(items[r.below(len(items))])
            else:
                acts = g.legal_actions()
                c._apply(acts[r.below(len(acts))])
        else:
            if g.to_act == -1:
                c._apply(c.roll())
                continue
            acts = g.legal_actions()
            if g.phase == "report" and r.below(4):
                c._apply(acts[0])
            else:
                c._apply(acts[r.below(len(acts))])
    saved = a.store.load(c.save_name)
    return json.dumps({"events": out, "frame": list(c.build.strip.np.buf), "saved": saved,
                       "over": g.is_over(), "winner": g.winner})


def main(cases):
    # In the VM: each (game, mode, seed, players) of `cases` played from the
    # firmware at /fw, saves under /state, one transcript line each.
    import os

    import tsf_shim  # noqa: F401  (asyncio.ThreadSafeFlag for the pyscript VM)
    try:
        os.mkdir("/state")
    except OSError:
        pass
    for game, mode, seed, players in cases:
        print(drive(game, mode, seed, players, "/fw/", "/state/"))
