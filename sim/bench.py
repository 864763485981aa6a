"""`make bench`: the embedded budgets, measured.

Heap and allocation figures come from the real MicroPython VM (the official
WebAssembly build, 32-bit like the RP2040) running the firmware compiled to
.mpy; timing figures come from the simulator's virtual clock, so they do not
depend on how busy this machine is. Prints a table per game and the budgets.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_HEAP = 64 * 1024
BUDGET_ALLOC_AVG = 2 * 1024
BUDGET_LATENCY_MS = 20.0
BUDGET_MPY = 256 * 1024
# key: (game, companion mode or None for the rules-layer script, title)
OTHERS = {
    "haunted-house": ("haunted-house", None,
                      "Boxtop Pinball: Haunted House, rule engine + state saved each turn"),
    "beetlejuice": ("beetlejuice", "firmware", "Watch Out Beetlejuice companion (board controller)"),
    "superskill": ("superskill", "companion", "Star Trek: Super-Skill Pinball companion (board controller)"),
    "superskill-engine": ("superskill", "engine",
                          "Star Trek: Super-Skill Pinball, full engine on the board (host-connected mode)"),
}


def build_firmware(out: Path):
    sys.path.insert(0, str(ROOT / "host"))
    from hauntbox.build import build
    return build(out=out)


def vm_figures(fw: Path, seed: int, games: int, turns: int = 300, game: str = "roller-ghoster",
               mode: str | None = None) -> dict:
    """Run the VM-side script for one game: Roller Ghoster and the companions go
    through their board controllers (bench_vm_roller.py, bench_vm_companion.py),
    Haunted House through its rule engine (bench_vm_rules.py)."""
    from sim.mpvm import run_micropython
    if game == "roller-ghoster":
        script, first, setup = "sim/bench_vm_roller.py", "load()", f"setup({seed})"
    elif mode is not None:
        script, first, setup = ("sim/bench_vm_companion.py", "load()",
                                f"setup({game!r}, {seed}, 4, {mode!r})")
    else:
        script, first, setup = "sim/bench_vm_rules.py", f"load({game!r})", f"setup({seed})"
    steps = [first, setup] + ["measured_turn()"] * turns
    marks = {1, 2, 5, 10, 25, 50, 100, 150, games}
    for i in range(games - 1):
        steps.append(f"next_game({i})")
        if i + 2 in marks:
            steps.append(f"sample({i + 2})")
    steps.append(f"finish({games})")
    code = (ROOT / script).read_text() + "".join("\n#--- step\n" + s for s in steps)
    out = run_micropython(code, mounts={"/lib": ROOT / "sim/mpfakes"}, firmware=fw, timeout=900)
    return json.loads(out.strip().splitlines()[-1])


def sim_figures(seed: int) -> dict:
    """Latency, LED writes and simulator speed for a busy game on the simulated tower."""
    from sim.fakes import neopixel
    from sim.models.tower import TowerConfig
    from sim.roller_board import RollerSim

    cfg = TowerConfig(release_p=0.6, bounce=True, chatter=True, glitches_per_s=10.0)
    s = RollerSim(players=4, seed=seed, tower_cfg=cfg, noise="all")
    frames: list[tuple[int, bytes]] = []
    np = s.app.controller.build.strip.np
    real_write = neopixel.NeoPixel.write

    def recording_write(self: neopixel.NeoPixel) -> None:
        real_write(self)
        frames.append((s.clock.now_us, bytes(self.buf)))
    neopixel.NeoPixel.write = recording_write  # type: ignore[method-assign]
    events = [0]
    s.app.bus.subscribe(lambda e: events.__setitem__(0, events[0] + 1))
    t0 = time.monotonic()
    try:
        s.run()
    finally:
        neopixel.NeoPixel.write = real_write  # type: ignore[method-assign]
    wall = time.monotonic() - t0
    # Ball edge -> LED: the first frame after a ball's leading edge in which that
    # staircase's trench LED shows the ball (white).
    px = s.pinmap["pixels"]
    bpp = np.bpp
    def lit(buf: bytes, led: int) -> bool:
        c = buf[led * bpp: led * bpp + 3]
        return min(c) > 0 and c[0] == c[1] == c[2]      # white: a ball is shown
    lat = []
    shown_already = 0
    for k, t in s.tower.released:
        led = px["trenches_from"] + k - 1
        before = [buf for ft, buf in frames if ft < t]
        if before and lit(before[-1], led):
            shown_already += 1      # a ball on this staircase is already on show
            continue
        for ft, buf in frames:
            if ft >= t and lit(buf, led):
                lat.append((ft - t) / 1000)
                break
    return {
        "balls": len(s.tower.released), "latency_ms_max": max(lat) if lat else None,
        "latency_ms_avg": sum(lat) / len(lat) if lat else None, "latency_samples": len(lat),
        "shown_already": shown_already,
        "led_writes": np.writes, "events": events[0], "leds": np.n,
        "irq_off_us_per_write": np.write_time_us(),
        "sim_seconds": s.clock.now_us / 1e6, "wall_seconds": wall,
    }


def kb(n: float) -> str:
    return f"{n / 1024:.1f} KB"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hauntbox bench", description=__doc__)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--games", type=int, default=200, help="games for the heap-drift figure")
    args = p.parse_args(argv)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        res = build_firmware(Path(tmp) / "fw")
        vm = vm_figures(res.out_dir, args.seed, args.games)
        others = {key: vm_figures(res.out_dir, args.seed, min(args.games, 50), game=g, mode=m)
                  for key, (g, m, _) in OTHERS.items()}
    sim = sim_figures(args.seed)

    def line(label: str, value: str, budget: str = "", good: bool | None = None) -> None:
        nonlocal ok
        mark = "" if good is None else ("  ok" if good else "  OVER BUDGET")
        if good is False:
            ok = False
        print(f"  {label:<52} {value:>14}  {budget}{mark}")

    print("Roller Ghoster (firmware compiled with mpy-cross, MicroPython VM, 4 players)")
    line("live heap after import", kb(vm["after_import"]))
    line("live heap after setting up a 4-player game", kb(vm["after_setup"]), "budget 64 KB",
         vm["after_setup"] <= BUDGET_HEAP)
    line("peak live heap over a full game", kb(vm["peak_live"]), "budget 64 KB", vm["peak_live"] <= BUDGET_HEAP)
    line("bytes allocated per turn, average", f"{vm['alloc_avg']} B", "budget 2 KB",
         vm["alloc_avg"] <= BUDGET_ALLOC_AVG)
    line("bytes allocated per turn, maximum", f"{vm['alloc_max']} B", f"({vm['turns']} turns)")
    samples = vm["samples"]
    warm = samples[0] - vm["after_first_game"] if samples else 0
    growth = samples[-1] - samples[0]
    spread = max(samples) - min(samples)
    line("live heap after game 1", kb(vm["after_first_game"]))
    line(f"live heap after games {', '.join(map(str, vm['sample_games']))}",
         " ".join(f"{x / 1024:.2f}" for x in samples) + " KB")
    end_vs_first = samples[-1] - vm["after_first_game"]
    line(f"live heap after game {vm['games']} vs after game 1 (no leak)", f"{end_vs_first:+d} B",
         f"growth from game 2: {growth:+d} B, spread {spread} B", end_vs_first <= 64)
    del warm
    line("hard IRQ handlers run under heap_lock", f"{vm['irq_handlers']} ok" if not vm["irq_failures"]
         else f"{len(vm['irq_failures'])} FAIL", "allocate nothing", not vm["irq_failures"])
    line("ball edge -> LED frame, maximum (virtual time)", f"{sim['latency_ms_max']:.1f} ms", "budget 20 ms",
         sim["latency_ms_max"] is not None and sim["latency_ms_max"] <= BUDGET_LATENCY_MS)
    line("ball edge -> LED frame, average", f"{sim['latency_ms_avg']:.1f} ms", f"({sim['latency_samples']} balls)")
    line("NeoPixel writes per event", f"{sim['led_writes'] / sim['events']:.2f}",
         f"({sim['led_writes']} writes, {sim['events']} events)")
    line("interrupts off per write", f"{sim['irq_off_us_per_write']} us", f"({sim['leds']} LEDs x 30 us + latch)")
    line("simulator speed", f"{sim['sim_seconds'] / sim['wall_seconds']:.0f}x", "simulated s per wall s")
    for key, f in others.items():
        print()
        print(f"{OTHERS[key][2]} (.mpy, MicroPython VM, 4 players)")
        line("live heap after import", kb(f["after_import"]))
        line("live heap after setting up a 4-player game", kb(f["after_setup"]), "budget 64 KB",
             f["after_setup"] <= BUDGET_HEAP)
        line("peak live heap over a full game", kb(f["peak_live"]), "budget 64 KB", f["peak_live"] <= BUDGET_HEAP)
        line("bytes allocated per turn, average", f"{f['alloc_avg']} B", "budget 2 KB",
             f["alloc_avg"] <= BUDGET_ALLOC_AVG)
        line("bytes allocated per turn, maximum", f"{f['alloc_max']} B", f"({f['turns']} turns)")
        end_vs_first = f["samples"][-1] - f["after_first_game"]
        line(f"live heap after game {f['games']} vs after game 1 (no leak)", f"{end_vs_first:+d} B",
             f"spread {max(f['samples']) - min(f['samples'])} B", end_vs_first <= 64)
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
