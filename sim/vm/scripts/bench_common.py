# Runs INSIDE the MicroPython VM (benchmark): the part every game's bench
# script shares, an ordinary module. Each game's script (sim/vm/scripts/bench_*.py)
# imports it and is itself imported in the VM as G, this module as B;
# sim/bench/vm_figures.py (vm_code) runs the steps after that, each a separate
# runPython call ("#--- step"), because this VM only reclaims memory between
# calls. A step is e.g. "G.load()", "B.settle()", "B.measured_turn(G)".
#
# The game's module defines, at module level:
#   R = results({...its own keys})   every key before the first measurement
#   BASE = baseline()                after its harness is built (not firmware)
#   S = {}                           its state
#   load() and setup(...)            the first two steps
#   current()                        the game being played (rules object)
#   play_turn()                      one turn through the firmware's real path
#   new_game(i)                      start the (i + 2)-th game
#   extra_figures()                  optional: fill its own keys at the end
#   S["app"]                         the App (for host_on)
# and the steps are: G.load() / G.setup() / B.measured_turn(G) x N /
# B.next_game(G, i) / B.sample(G, n) / [B.host_on(G) / B.host_game(G) /
# B.host_sample(G)] / B.finish(G, n), with B.settle() before each measuring step.
import gc
import json

import micropython

import machine  # noqa: F401,E402  the VM's stand-ins for modules built into the
import neopixel  # noqa: F401,E402  rp2 firmware: loaded before the baseline

# This VM (the pyscript build) has time, io and os (with os.path) as Python
# modules, frozen but with their objects on the heap (about 1.1 KB); on the
# rp2 port they are built-in C modules and cost no heap. Whatever imports them
# first (asyncio does), they are not the firmware's: loaded before the baseline.
import time  # noqa: F401,E402
import io  # noqa: F401,E402
import os  # noqa: F401,E402

# Live-heap samples at game boundaries (preallocated, so sampling never grows
# anything that is measured).
NSAMPLES = 256


def results(extra=None):
    r = {"turn_allocs": [], "peak_live": 0, "after_import": 0, "after_setup": 0,
         "after_first_game": 0, "after_games": 0, "games": 0, "turns": 0, "alloc_avg": 0,
         "alloc_max": 0, "samples": [0] * NSAMPLES, "sample_games": [0] * NSAMPLES,
         "nsamples": 0, "with_host": 0}
    if extra:
        for k in extra:
            r[k] = extra[k]
    return r


def connect_host(g, app):
    # A host speaks on the serial link: serve_stdio then loads the protocol and
    # builds the Link as games/link_core.board_link does. The host says hello, turns
    # the events on and reads a state; everything it gets is written to a port
    # that takes it all (nothing waits).
    from games.link_core import board_link
    link = board_link(app, lambda b: None, lambda: True)
    g.S["link"] = link
    link.receive(b'{"cmd":"hello","id":1}\n{"cmd":"events","on":true,"id":2}\n'
                 b'{"cmd":"state","id":3}\n')
    drain_link(g)


def drain_link(g):
    # What the link's pump does between turns: every queued event goes out.
    link = g.S.get("link")
    if link is None:
        return
    take = link.proto.take_event
    line = take()
    while line is not None:
        link.send(line)
        line = take()
    link.flush()


def host_on(g):
    # Steps after the last measured game: a host connects (host_on), one more
    # game is played with the link live, its events encoded and sent after every
    # turn (host_game), and the live heap is read (host_sample).
    connect_host(g, g.S["app"])


def host_game(g):
    g.new_game(0)
    while not g.current().is_over():
        g.play_turn()
        drain_link(g)


def host_sample(g):
    g.R["with_host"] = live(g.BASE)


# The board's tasks, running. The steps above play turns through the
# controller's methods, with no task running; on the board app.run() runs
# App.main_async: the play loop (waiting for a press, its coroutines nested
# down to the panel), the game's device tasks, the watchdog task, and the
# link's pump once a host has spoken. Their frames and the modules they load
# (games/watchdog.py) are heap too. A separate VM run (sim/bench/vm_figures.py,
# vm_running) starts them after setup, lets each reach its first wait and
# reads the live heap: alone, then with a host that said hello, turned the
# events on and read a state; and while a request is answered, its code
# loaded (request_on). (serve_stdio, which reads the USB port, cannot
# run here: its frame and reader, a few hundred bytes, are not counted.)
def run_tasks(n=2000):
    # This VM's asyncio runs on JavaScript timers, which do not fire while a
    # step runs: turn its loop by hand until every task waits.
    import asyncio.core
    for _ in range(n):
        asyncio.core._run_iter()


def tasks_on(g):
    import asyncio
    g.S["main"] = asyncio.create_task(g.S["app"].main_async(players=4, resume=False,
                                                            exit_when_over=False))
    run_tasks()


def tasks_host(g):
    import asyncio
    connect_host(g, g.S["app"])
    g.S["pump"] = asyncio.create_task(g.S["link"].pump())
    run_tasks()


def request_on():
    # A request is being answered: protocol.Protocol has loaded its requests'
    # code (protocol_commands.py), which it drops again when the reply is out.
    import protocol_commands  # noqa: F401


def request_off():
    from ram import unload
    unload("protocol_commands")


def running_sample(g, key):
    g.R[key] = live(g.BASE)


def running_finish(g):
    r = g.R
    print(json.dumps({"running": r.get("running", 0), "running_host": r.get("running_host", 0),
                      "running_request": r.get("running_request", 0),
                      "tasks": len(g.S["app"].tasks)}))


def baseline():
    gc.collect()
    return gc.mem_alloc()


def settle():
    # An empty step, run before each measuring step: a collection at the start
    # of a step still finds some of the previous step's garbage alive in this VM
    # (e.g. the game a next_game() step replaced: ~5 KB), and one step later it
    # is gone. So every live() reading comes one step after the work it follows.
    pass


def live(base):
    gc.collect()
    return gc.mem_alloc() - base


def measured_turn(g):
    R = g.R
    if not R["after_setup"]:
        R["after_setup"] = live(g.BASE)
    if g.current().is_over():
        return
    lv = live(g.BASE)
    if lv > R["peak_live"]:
        R["peak_live"] = lv
    play_turn = g.play_turn
    gc.disable()
    m0 = gc.mem_alloc()
    play_turn()
    R["turn_allocs"].append(gc.mem_alloc() - m0)
    gc.enable()


def next_game(g, i):
    R = g.R
    if not R["after_first_game"]:
        R["after_first_game"] = live(g.BASE)
    g.new_game(i)
    while not g.current().is_over():
        g.play_turn()


def sample(g, games_played):
    R = g.R
    n = R["nsamples"]
    if n >= NSAMPLES:
        return
    R["samples"][n] = live(g.BASE)
    R["sample_games"][n] = games_played
    R["nsamples"] = n + 1


def storm(pin, n):
    h = pin.handler
    for i in range(n):
        pin.v = i & 1
        h(pin)


def irq_check():
    # Every pin handler the firmware registered, called 64 times under
    # heap_lock: one allocation raises MemoryError. Returns (handlers, failed pins).
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
    return handlers, failures


def finish(g, games):
    r = g.R
    r["after_games"] = live(g.BASE)
    r["games"] = games
    if "irq_handlers" in r:
        r["irq_handlers"], r["irq_failures"] = irq_check()
    n = r.pop("nsamples")
    r["samples"] = r["samples"][:n]
    r["sample_games"] = r["sample_games"][:n]
    a = r.pop("turn_allocs")
    r["turns"] = len(a)
    r["alloc_avg"] = sum(a) // len(a) if a else 0
    r["alloc_max"] = max(a) if a else 0
    extra = getattr(g, "extra_figures", None)
    if extra is not None:
        extra()
    print(json.dumps(r))
