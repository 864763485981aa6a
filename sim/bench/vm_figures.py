"""`make bench-vm`: fast figures in the MicroPython WebAssembly VM and the simulator.

The embedded budgets are measured on the emulated Pico (`make bench`,
sim/pico/bench.py); these figures are for rule parity and quick comparisons.
Heap and allocation figures come from the real MicroPython VM (the official
WebAssembly build, 32-bit like the RP2040) running the firmware compiled to
.mpy; timing figures come from the simulator's virtual clock, so they do not
depend on how busy this machine is. Prints a table per game and the budgets.
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Callable


ROOT = Path(__file__).resolve().parents[2]   # script paths are relative to the checkout
# The heap budgets are checked on the emulated Pico (`make bench`,
# sim/pico/bench.py); this VM's heap figures are printed for rule parity only.
VM_NOTE = "(VM figure; the budget is checked on the emulated Pico)"
BUDGET_ALLOC_AVG = 2 * 1024
BUDGET_LATENCY_MS = 20.0
BUDGET_MPY = 256 * 1024
LEAK_SLOPE = 1.0        # bytes per game: a trend this steep and significant is a leak
LEAK_MIN_GAMES = 50     # games after the warm-up needed to judge the trend
STEP_MIN = 512          # bytes: a single jump this big may be a pinned block (see drift)
STEP_SIDE = 5           # samples each side of a candidate jump
# key: (game, mode: a companion mode, "board" for Haunted House on its table, or
# None for the rules-layer script; title)
OTHERS = {
    "haunted-house": ("haunted-house", None,
                      "Boxtop Pinball: Haunted House, rule engine + state saved each turn"),
    "haunted-house-board": ("haunted-house", "board",
                            "Boxtop Pinball: Haunted House on the instrumented table (board controller)"),
    "beetlejuice": ("beetlejuice", "firmware", "Watch Out Beetlejuice companion (board controller)"),
    "superskill": ("superskill", "companion", "Star Trek: Super-Skill Pinball companion (board controller)"),
}

# The games whose board controller runs tasks on the board (vm_running).
BOARD_GAMES = {
    "roller-ghoster": ("roller-ghoster", None),
    "haunted-house-board": ("haunted-house", "board"),
    "beetlejuice": ("beetlejuice", "firmware"),
    "superskill": ("superskill", "companion"),
}


def sample_every(games: int) -> int:
    """Sample the live heap after every game, or every k-th game so that at most
    NSAMPLES (256, preallocated in the VM scripts) samples are taken."""
    return max(1, -(-games // 250))


def _fit(pts: list[tuple[int, int]]) -> tuple[float, float]:
    """Least-squares slope through (game, live heap) points and its standard error."""
    n = len(pts)
    mg = sum(g for g, _ in pts) / n
    mx = sum(x for _, x in pts) / n
    sgg = sum((g - mg) ** 2 for g, _ in pts)
    slope = sum((g - mg) * (x - mx) for g, x in pts) / sgg if sgg else 0.0
    resid = sum((x - mx - slope * (g - mg)) ** 2 for g, x in pts)
    se = (resid / (n - 2) / sgg) ** 0.5 if sgg and n > 2 else float("inf")
    return slope, se


def _is_trend(slope: float, se: float) -> bool:
    return slope >= LEAK_SLOPE and slope > 3 * se


def _median(xs: list[int]) -> float:
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def largest_step(pts: list[tuple[int, int]], side: int = STEP_SIDE) -> tuple[int, float]:
    """(index, size) of the biggest jump in the series: the largest difference
    between the median of `side` samples after a point and of `side` before it."""
    xs = [x for _, x in pts]
    best, at = 0.0, 0
    for k in range(side, len(xs) - side + 1):
        jump = _median(xs[k:k + side]) - _median(xs[k - side:k])
        if jump > best:
            best, at = jump, k
    return at, best


def drift(f: dict) -> dict:
    """Heap drift over many games, as a trend rather than one difference.

    The live heap at a game boundary wobbles by a few dozen bytes (up to ~200 B for
    Beetlejuice) with the state the last game ended in: list lengths, which dicts
    were resized. That is not a leak; a leak grows with the number of games. So:
    skip the warm-up (the first tenth of the games, at least 2), fit a
    least-squares line through the later samples, and call it a trend when the
    slope is both at least LEAK_SLOPE bytes per game and clearly above the
    wobble (more than three standard errors). Tried on Beetlejuice (a throwaway
    copy of the firmware with a deliberate leak in new_game): over 100 games a
    bytearray gaining one byte per game shows as +1.2 B/game (s.e. 0.2), a list
    gaining one small int per game as +6 B/game, and the unchanged firmware as
    +0.2 +/- 0.2 B/game. Fewer games are not judged (LEAK_MIN_GAMES): a game whose
    heap wobbles by kilobytes (Super-Skill's full engine, measured on the board
    before it moved to the host) can show a burst at the end of a short window
    that looks like a trend (+31 +/- 9 B/game over games 4..30, -1.5 +/- 1.2 over
    21..200).

    One more shape is not a leak: a single step. MicroPython's collector is
    conservative: any word in a live object that happens to hold a heap address
    keeps that block (and what it points to) alive. Binary data (card records,
    LED frames) can hold such a word; the block it hits is pinned for as long as
    the word stays, so the live heap jumps once and stays flat. In this VM the
    heap sits at low addresses, so small values hit it easily. Seen on
    Beetlejuice, seed 7: +2.0 KB at game ~176 after an unrelated change moved
    the layout, then flat over 600 games. So when the trend comes from one jump
    of at least STEP_MIN bytes (largest_step) and the series without that jump
    shows no trend, the verdict is a bounded one-off step, reported as such;
    a leak that grows in several jumps still shows a trend after one is taken out.
    Also reported: the fitted growth over the sampled span and the last sample
    against the minimum of the later samples.
    """
    games, xs = f["sample_games"], f["samples"]
    warm = max(2, f["games"] // 10)
    pts = [(g, x) for g, x in zip(games, xs) if g > warm] or list(zip(games, xs))
    n = len(pts)
    slope, se = _fit(pts)
    span = pts[-1][0] - pts[0][0]
    later = [x for _, x in pts]
    judged = span >= LEAK_MIN_GAMES
    trend = judged and _is_trend(slope, se)
    step = None
    if trend and n >= 2 * STEP_SIDE:
        k, size = largest_step(pts)
        if size >= STEP_MIN:
            flat = [(g, x - size if i >= k else x) for i, (g, x) in enumerate(pts)]
            s2, se2 = _fit(flat)
            if not _is_trend(s2, se2):
                step = {"game": pts[k][0], "size": size, "slope_without": s2, "se_without": se2}
    leak = trend and step is None
    return {"judged": judged, "slope": slope, "se": se, "fit_growth": slope * span, "span": span,
            "n": n, "from_game": pts[0][0], "last_vs_min": xs[-1] - min(later), "leak": leak,
            "step": step, "spread": max(later) - min(later),
            "end_vs_first": xs[-1] - f["after_first_game"]}


def build_firmware(out: Path):
    from hauntbox_fw.build import build
    return build(out=out)


# What the VM runs the bench scripts on: the lean stand-ins of the rp2 port's
# built-in modules at /lib, and sim/vm/scripts at /scripts (on sys.path, so
# that the game's bench module and bench_common import as modules).
VM_MOUNTS = {"/lib": ROOT / "sim/vm/lib", "/scripts": ROOT / "sim/vm/scripts"}


def vm_code(script: str, steps: list[str], also: dict[str, str] | None = None) -> str:
    """The text run in the VM: the game's bench module (a path relative to the
    repository, under sim/vm/scripts) imported as G, the shared part
    (sim/vm/scripts/bench_common.py) as B, any other module of sim/vm/scripts
    under the name `also` gives it ({"H": "ram_host"}: imported last, after the
    baseline), and the steps, each a separate runPython call ("#--- step"),
    e.g. "G.load()", "B.measured_turn(G)"."""
    path = ROOT / script
    if path.parent != ROOT / "sim/vm/scripts" or not path.is_file():
        raise ValueError(f"not a VM bench script: {script}")
    imports = f"import bench_common as B\nimport {path.stem} as G"
    for name, mod in (also or {}).items():
        if not (ROOT / "sim/vm/scripts" / f"{mod}.py").is_file():
            raise ValueError(f"not a VM script: {mod}")
        imports += f"\nimport {mod} as {name}"
    return imports + "".join("\n#--- step\n" + s for s in steps)


def vm_script(game: str, mode: str | None, seed: int) -> tuple[str, str, str]:
    """(VM script, its first step, its setup step) for one game."""
    if game == "roller-ghoster":
        return "sim/vm/scripts/bench_roller.py", "G.load()", f"G.setup({seed})"
    if game == "haunted-house" and mode == "board":
        return "sim/vm/scripts/bench_haunted.py", "G.load()", f"G.setup({seed})"
    if mode is not None:
        return "sim/vm/scripts/bench_companion.py", "G.load()", f"G.setup({game!r}, {seed}, 4, {mode!r})"
    return "sim/vm/scripts/bench_rules.py", f"G.load({game!r})", f"G.setup({seed})"


def vm_figures(fw: Path, seed: int, games: int, turns: int = 300, game: str = "roller-ghoster",
               mode: str | None = None) -> dict:
    """Run the VM-side script for one game: Roller Ghoster, the companions and
    Haunted House on its table go through their board controllers
    (bench_roller.py, bench_companion.py, bench_haunted.py); the
    rules-layer figure of Haunted House through its rule engine (bench_rules.py)."""
    script, first, setup = vm_script(game, mode, seed)
    steps = [first, "B.settle()", setup, "B.settle()"]
    steps += ["B.settle()", "B.measured_turn(G)"] * turns
    every = sample_every(games)
    for i in range(games - 1):
        steps += ["B.settle()", f"B.next_game(G, {i})"]
        if (i + 2) % every == 0 or i + 2 == games:
            steps += ["B.settle()", f"B.sample(G, {i + 2})"]
    if script != "sim/vm/scripts/bench_rules.py":
        steps += ["B.settle()", "B.host_on(G)", "B.settle()", "B.host_game(G)", "B.settle()",
                  "B.host_sample(G)"]
    steps.append(f"B.finish(G, {games})")
    return run_vm(fw, script, steps, timeout=900)


def run_vm(fw: Path, script: str, steps: list[str], timeout: float) -> dict:
    """Run a bench script's steps in the VM: the figures it prints last."""
    from hauntbox_sim.vm.mpvm import run_micropython
    out = run_micropython(vm_code(script, steps), mounts=VM_MOUNTS, firmware=fw, timeout=timeout)
    return json.loads(out.strip().splitlines()[-1])


def vm_running(fw: Path, seed: int, game: str = "roller-ghoster", mode: str | None = None) -> dict:
    """The live heap with the board's tasks running (bench_common.tasks_on):
    alone, then with a host connected, then while a request is answered (its
    code loaded)."""
    script, first, setup = vm_script(game, mode, seed)
    steps = [first, "B.settle()", setup, "B.settle()", "B.tasks_on(G)", "B.settle()",
             "B.settle()", "B.running_sample(G, 'running')", "B.tasks_host(G)",
             "B.settle()", "B.settle()", "B.running_sample(G, 'running_host')",
             "B.request_on()", "B.settle()", "B.running_sample(G, 'running_request')",
             "B.request_off()", "B.running_finish(G)"]
    return run_vm(fw, script, steps, timeout=300)


def kb(n: float) -> str:
    return f"{n / 1024:.1f} KB"


def leak_lines(line, f: dict) -> None:
    d = drift(f)
    xs = f["samples"]
    line("live heap after game 1", kb(f["after_first_game"]))
    line(f"live heap after game {f['games']}", kb(xs[-1]),
         f"{d['end_vs_first']:+d} B vs game 1 (warm-up included)")
    line(f"live heap over games {d['from_game']}..{f['games']}, min / max",
         f"{min(xs[-d['n']:]) / 1024:.2f} / {max(xs[-d['n']:]) / 1024:.2f} KB",
         f"wobble {d['spread']} B; last vs min {d['last_vs_min']:+d} B")
    how = (f"+/- {d['se']:.2f} (1 s.e.), {d['fit_growth']:+.0f} B over {d['span']} games; "
           f"a leak: >= {LEAK_SLOPE:g} B/game and > 3 s.e.")
    if not d["judged"]:
        how += f" (not judged: fewer than {LEAK_MIN_GAMES} games, use --games 100+)"
    line("heap drift: fitted trend over those games (no leak)", f"{d['slope']:+.2f} B/game", how,
         None if d["step"] else (not d["leak"] if d["judged"] else None))
    st = d["step"]
    if st:
        line("  of which one step (a block pinned by a stale word)", f"{st['size']:+.0f} B",
             f"at game {st['game']}; without it {st['slope_without']:+.2f} B/game "
             f"+/- {st['se_without']:.2f}: bounded, not a leak", True)


def sim_lines(line: Callable[..., None], sim: dict) -> None:
    """The simulator's figures for one game (sim/bench/sim_figures.py)."""
    lat = sim["latency"]
    if lat is not None:
        good = lat["max_ms"] is not None and lat["max_ms"] <= BUDGET_LATENCY_MS and not lat["missed"]
        line(lat["label"] + ", maximum (virtual time)",
             f"{lat['max_ms']:.1f} ms" if lat["max_ms"] is not None else "none", "budget 20 ms", good)
        note = f"({lat['n']} {lat['what']}"
        if lat["skipped"]:
            note += f"; {lat['skipped']} already on show"
        if lat["missed"]:
            note += f"; {lat['missed']} NOT SHOWN within 2 s"
        line(lat["label"] + ", average",
             f"{lat['avg_ms']:.1f} ms" if lat["avg_ms"] is not None else "none", note + ")")
    link = sim["link"]
    if link is not None:
        line("  meanwhile on the serial link", f"{link['lines']} lines",
             f"{link['events']} events + {link['lines'] - link['events']} replies, "
             f"{link['bytes'] / 1024:.0f} KB at {link['rate']} B/ms: firmware blocked "
             f"{link['blocked_ms']:.0f} ms, longest write {link['longest_ms']:.1f} ms")
    writes = sum(c["writes"] for c in sim["chains"])
    line("NeoPixel writes per event", f"{writes / max(1, sim['events']):.2f}",
         f"({writes} writes, {sim['events']} events; only frames that changed)")
    for c in sim["chains"]:
        line(f"interrupts off per write, {c['name']}", f"{c['irq_off_us']} us",
             f"({c['leds']} LEDs x 30 us + latch; {c['writes']} writes)")
    line("simulator speed", f"{sim['sim_seconds'] / sim['wall_seconds']:.0f}x",
         f"simulated s per wall s ({sim['sim_seconds']:.0f} s of play)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hauntbox_sim.bench.vm_figures", description=__doc__)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--games", type=int, default=200, help="games for the heap-drift figure")
    p.add_argument("--only", action="append", choices=["roller-ghoster", *OTHERS],
                   help="measure only this game (repeatable); default: every game")
    args = p.parse_args(argv)
    only = args.only or ["roller-ghoster", *OTHERS]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        res = build_firmware(Path(tmp) / "fw")
        figures = {}
        for key in only:
            if key == "roller-ghoster":
                figures[key] = vm_figures(res.out_dir, args.seed, args.games)
            else:
                g, m = OTHERS[key][0], OTHERS[key][1]
                figures[key] = vm_figures(res.out_dir, args.seed, args.games, game=g, mode=m)
            if key in BOARD_GAMES:
                g, m = BOARD_GAMES[key]
                figures[key]["run"] = vm_running(res.out_dir, args.seed, game=g, mode=m)
    from hauntbox_sim.bench.sim_figures import SIM_FIGURES
    sims = {key: SIM_FIGURES[key](args.seed) for key in only if key in SIM_FIGURES}

    def line(label: str, value: str, budget: str = "", good: bool | None = None) -> None:
        nonlocal ok
        # A figure without a budget is said to be for information, so that a big
        # number (a heap over 64 KB) among the "ok" lines is not read as a pass.
        mark = "  (info)" if good is None else ("  ok" if good else "  OVER BUDGET")
        if good is False:
            ok = False
        print(f"  {label:<52} {value:>14}  {budget}{mark}")

    print("figures marked ok / OVER BUDGET are checked against their budget; (info): "
          "measured, no budget")
    for key, f in figures.items():
        if key == "roller-ghoster":
            print("Roller Ghoster (firmware compiled with mpy-cross, MicroPython VM, 4 players)")
        else:
            print(f"{OTHERS[key][2]} (.mpy, MicroPython VM, 4 players)")
        line("live heap after import", kb(f["after_import"]))
        line("live heap after setting up a 4-player game", kb(f["after_setup"]), VM_NOTE)
        line("peak live heap over a full game", kb(f["peak_live"]), VM_NOTE)
        line("bytes allocated per turn, average", f"{f['alloc_avg']} B", "budget 2 KB",
             f["alloc_avg"] <= BUDGET_ALLOC_AVG)
        line("bytes allocated per turn, maximum", f"{f['alloc_max']} B", f"({f['turns']} turns)")
        leak_lines(line, f)
        if f.get("with_host"):
            line("live heap with a host connected", kb(f["with_host"]),
                 "(protocol loaded, one game with the link live) " + VM_NOTE)
        run = f.get("run")
        if run:
            for t, label in (("running", "live heap with the board's tasks running"),
                             ("running_host", "  and a host connected (hello, events on, state)"),
                             ("running_request", "  while a request is answered (its code loaded)")):
                if run.get(t):
                    line(label, kb(run[t]), "(VM, for rule parity)")
        if "irq_failures" in f:
            line("hard IRQ handlers run under heap_lock", f"{f['irq_handlers']} ok" if not f["irq_failures"]
                 else f"{len(f['irq_failures'])} FAIL", "allocate nothing", not f["irq_failures"])
        if key in sims:
            sim_lines(line, sims[key])
        print()
    total = res.total
    print("Firmware image (.mpy, as flashed)")
    line("total size", kb(total), "budget 256 KB", total <= BUDGET_MPY)
    for f in sorted(res.files, key=lambda f: -f.size)[:8]:
        line("  " + f.path, f"{f.size} B")
    print()
    print("RESULT: " + ("all budgets met" if ok else "a budget is missed"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
