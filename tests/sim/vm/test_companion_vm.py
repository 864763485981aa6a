"""The dice companion firmware in the real MicroPython VM.

Parity: seeded Watch Out Beetlejuice games (both ways of drawing cards) and
Super-Skill Pinball companion games, driven through the controllers (rules, button state, events, LED
matrix, saves), give identical transcripts on CPython (simulator fakes) and on
MicroPython (the official WebAssembly VM).

From the build: the firmware compiled with mpy-cross plays whole games in the VM
through sim/vm/scripts/bench_companion.py (the bench's own harness), the button IRQ
handlers allocate nothing and no game is kept after the next one starts. The
heap and allocation figures and their budgets are `make bench`'s job (the tests
check correctness only)."""
import json
import tempfile
from pathlib import Path

import pytest

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.bench.vm_figures import VM_MOUNTS, vm_code
from hauntbox_sim.vm.mpvm import run_micropython, script_code, vm_available

ROOT = Path(__file__).resolve().parents[3]
# A few games only catch a gross leak (a whole game kept per game: several KB).
# The first games still warm up by a few hundred bytes (Super-Skill: +608 B from
# game 1 to 200 in `make bench`), and small leaks are the bench's job: a trend
# over 200 games (sim/bench/vm_figures.py drift()).
GROSS_LEAK = 1024

pytestmark = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")

# Runs unchanged on both interpreters: a game driven through the controller the
# way its play loop does it, choices from a seeded Rng.
DRIVER_FILE = ROOT / "sim" / "vm" / "scripts" / "companion_drive.py"
DRIVER = DRIVER_FILE.read_text()

CASES = [("beetlejuice", "firmware", 5, 3), ("beetlejuice", "enter", 6, 2),
         ("superskill", "companion", 7, 3), ("superskill", "companion", 8, 2)]


def cpython_transcript(game, mode, seed, players):
    sim_install.install()
    ns = {}
    exec(compile(DRIVER, str(DRIVER_FILE), "exec"), ns)  # noqa: S102 - our own test driver
    with tempfile.TemporaryDirectory() as tmp:
        return json.loads(ns["drive"](game, mode, seed, players, str(sim_install.FIRMWARE) + "/",
                                      tmp + "/"))


def test_companion_games_identical_on_micropython_and_cpython():
    out = run_micropython(script_code("companion_drive", CASES), mounts={"/lib": ROOT / "sim/vm/lib"})
    lines = [json.loads(x) for x in out.strip().splitlines()]
    assert len(lines) == len(CASES)
    for case, vm in zip(CASES, lines):
        cp = cpython_transcript(*case)
        assert vm["over"] and cp["over"], case
        assert vm["events"] == cp["events"], case
        assert vm["frame"] == cp["frame"], case
        assert vm["winner"] == cp["winner"], case
        assert len(vm["events"]) > 50


# ---- from the build --------------------------------------------------------------------

_BUILD = {}


def vm_figures(game, mode, players=4, turns=150, games=3, seed=7):
    if "fw" not in _BUILD:
        from hauntbox_fw.build import build
        tmp = tempfile.mkdtemp(prefix="hauntbox-companion-")
        _BUILD["fw"] = build(out=Path(tmp) / "fw").out_dir
    # settle(): an empty step before each measuring one (see sim/vm/scripts/bench_companion.py)
    steps = (["G.load()", "B.settle()", f"G.setup({game!r}, {seed}, {players}, {mode!r})"]
             + ["B.settle()", "B.measured_turn(G)"] * turns)
    for i in range(games - 1):
        steps += ["B.settle()", f"B.next_game(G, {i})", "B.settle()", f"B.sample(G, {i + 2})"]
    steps.append(f"B.finish(G, {games})")
    code = vm_code("sim/vm/scripts/bench_companion.py", steps)
    out = run_micropython(code, mounts=VM_MOUNTS, firmware=_BUILD["fw"],
                          timeout=600)
    return json.loads(out.strip().splitlines()[-1])


def test_superskill_companion_runs_from_the_build():
    """Super-Skill companion from the .mpy build: whole games, a save every roll, the
    button IRQ handlers allocate nothing, no game kept after the next one."""
    r = vm_figures("superskill", "companion")
    assert r["irq_handlers"] == 4 and r["irq_failures"] == []
    assert r["samples"][-1] - r["after_first_game"] <= GROSS_LEAK, r
    assert r["turns"] > 20


def test_beetlejuice_runs_from_the_build():
    """Watch Out Beetlejuice from the .mpy build: whole games with the firmware's decks,
    the button IRQ handlers allocate nothing, no game kept after the next one."""
    r = vm_figures("beetlejuice", "firmware")
    assert r["irq_handlers"] == 4 and r["irq_failures"] == []
    assert r["samples"][-1] - r["after_first_game"] <= GROSS_LEAK, r
    assert r["turns"] > 10
