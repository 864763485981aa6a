# Runs INSIDE the MicroPython VM (benchmark): the part every game's bench
# script shares. sim/bench/vm_figures.py (vm_code) puts this text in front of the game's
# script (sim/vm/scripts/bench_*.py) and the steps after both; each step ("#--- step")
# is a separate runPython call, because this VM only reclaims memory between
# calls.
#
# The game's script defines, at module level:
#   R = results({...its own keys})   every key before the first measurement
#   BASE = baseline()                after its harness is built (not firmware)
#   S = {}                           its state
#   load() and setup(...)            the first two steps
#   current()                        the game being played (rules object)
#   play_turn()                      one turn through the firmware's real path
#   new_game(i)                      start the (i + 2)-th game
#   extra_figures()                  optional: fill its own keys at the end
#   S["app"]                         the App (for host_on)
# and the steps are: load() / setup() / measured_turn() x N / next_game(i) /
# sample(n) / [host_on() / host_game() / host_sample()] / finish(n), with
# settle() before each measuring step.
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


def connect_host(app):
    # A host speaks on the serial link: serve_stdio then loads the protocol and
    # builds the Link as games/link_core.board_link does. The host says hello, turns
    # the events on and reads a state; everything it gets is written to a port
    # that takes it all (nothing waits).
    from games.link_core import board_link
    link = board_link(app, lambda b: None, lambda: True)
    S["link"] = link  # noqa: F821
    link.receive(b'{"cmd":"hello","id":1}\n{"cmd":"events","on":true,"id":2}\n'
                 b'{"cmd":"state","id":3}\n')
    drain_link()


def drain_link():
    # What the link's pump does between turns: every queued event goes out.
    link = S.get("link")  # noqa: F821
    if link is None:
        return
    take = link.proto.take_event
    line = take()
    while line is not None:
        link.send(line)
        line = take()
    link.flush()


def host_on():
    # Steps after the last measured game: a host connects (host_on), one more
    # game is played with the link live, its events encoded and sent after every
    # turn (host_game), and the live heap is read (host_sample).
    connect_host(S["app"])


def host_game():
    new_game(0)
    while not current().is_over():
        play_turn()
        drain_link()


def host_sample():
    R["with_host"] = live()


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


def tasks_on():
    import asyncio
    S["main"] = asyncio.create_task(S["app"].main_async(players=4, resume=False,  # noqa: F821
                                                        exit_when_over=False))
    run_tasks()


def tasks_host():
    import asyncio
    connect_host(S["app"])  # noqa: F821
    S["pump"] = asyncio.create_task(S["link"].pump())  # noqa: F821
    run_tasks()


def request_on():
    # A request is being answered: protocol.Protocol has loaded its requests'
    # code (protocol_commands.py), which it drops again when the reply is out.
    import protocol_commands  # noqa: F401


def request_off():
    from ram import unload
    unload("protocol_commands")


def running_sample(key):
    R[key] = live()


def running_finish():
    print(json.dumps({"running": R.get("running", 0), "running_host": R.get("running_host", 0),
                      "running_request": R.get("running_request", 0),
                      "tasks": len(S["app"].tasks)}))  # noqa: F821


def baseline():
    gc.collect()
    return gc.mem_alloc()


def settle():
    # An empty step, run before each measuring step: a collection at the start
    # of a step still finds some of the previous step's garbage alive in this VM
    # (e.g. the game a next_game() step replaced: ~5 KB), and one step later it
    # is gone. So every live() reading comes one step after the work it follows.
    pass


def live():
    gc.collect()
    return gc.mem_alloc() - BASE


def measured_turn():
    if not R["after_setup"]:
        R["after_setup"] = live()
    if current().is_over():
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
    new_game(i)
    while not current().is_over():
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


def finish(games):
    r = R
    r["after_games"] = live()
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
    extra = globals().get("extra_figures")
    if extra is not None:
        extra()
    print(json.dumps(r))
