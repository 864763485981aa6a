# Runs INSIDE the MicroPython VM (tests/sim/vm/test_ram_vm.py), after a game's
# bench module G (sim/vm/scripts/bench_*.py) has loaded and set up its game:
# what ram.py drops once a game is set up and a host has spoken, and whether
# batches of requests give the heap back. Each function is one step (a
# separate runPython call: this VM reclaims memory only between calls).
import json
import sys

from bench_common import live

# Requests a host sends, one line each.
CONFIG_GET = b'{"cmd":"config","op":"get","key":"players","id":9}\n'
NEW_GAME = b'{"cmd":"new","players":4,"id":10}\n'
BATCH = (b'{"cmd":"state","id":0}\n{"cmd":"legal","id":1}\n'
         b'{"cmd":"hello","id":2}\n{"cmd":"bogus","id":3}\n')


def set_setting(g):
    # A saved config is read at the next start and a setting is set (schema).
    g.S["app"].settings.set("brightness", 0.2)


def ask_config(g):
    g.S["link"].receive(CONFIG_GET)


def ask_new_game(g):
    g.S["link"].receive(NEW_GAME)


def restart(g):
    g.S["app"].start_game(4, 0, resume=True)


def report_dropped(g, dropped):
    # Which of the modules that should be gone are still loaded, or still an
    # attribute of their package.
    print(json.dumps({
        "loaded": [m for m in dropped if m in sys.modules],
        "attrs": [m for m in dropped if "." in m and m.split(".")[0] in sys.modules
                  and hasattr(sys.modules[m.split(".")[0]], m.split(".")[1])],
        "over": g.current().is_over()}))


def send_batch(g):
    g.S["link"].receive(BATCH)


def mark(g, key):
    g.R[key] = live(g.BASE)


def report_batches(g):
    print(json.dumps({"a": g.R["a"], "b": g.R["b"],
                      "resident": "protocol_commands" in sys.modules,
                      "errors": g.S["link"].proto.errors, "lines": g.S["link"].proto.lines}))
