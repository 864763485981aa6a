"""Where a build's allocation per turn goes, on the emulated Pico: the bench's
heap run (sim/pico/bench.py) with chosen functions wrapped, each counting the
bytes allocated while it runs (inclusive: nested functions count in both) and
its calls, through the probe's allocation counter (sim/pico/bench_probe.py),
and the emulated microseconds a call takes, shortest / mean / longest
(inclusive, `time.ticks_us`; a first call may include an import from flash).
The byte counter is `gc.mem_alloc()`, which walks the heap's allocation table
(about 1 ms a call on the port), so with bytes counted the times are
inflated by the nested wrappers' counters: `--time` counts no bytes, and
its times are the real ones plus a few tens of us of wrapper.

    python -m hauntbox_sim.pico.alloc_paths --build roller-ghoster --turns 10 \\
        games.store:Store.save games.link_core:Link.send

Only plain functions and methods (an async function's wrapper would count
only the making of its coroutine). A wrapped function's own arguments are
packed before its count starts, so they show in its callers' figures; the
per-turn total (alloc_turn_*) includes them too, so it reads slightly higher
than a run without wrappers.
"""
from __future__ import annotations

import argparse

from hauntbox_sim.pico import bench

#: What the play loop of each build calls on every turn (a starting point).
DEFAULT = {
    "roller-ghoster": ("games.store:Store.save", "games.link_core:Link.send",
                       "protocol:encode_event", "protocol:Protocol.on_event",
                       "games.events:EventBus.publish", "games.roller:RollerController.render",
                       "games.roller:RollerController._apply", "games.decide:Decider._show",
                       "devices.beams:BeamBank.poll", "games.roller:RollerController.save"),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hauntbox_sim.pico.alloc_paths",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="roller-ghoster", choices=sorted(bench.BUILDS))
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--time", action="store_true",
                    help="time the calls only, no byte counts (the byte counter walks the "
                         "heap, ~1 ms a call, which would be timed)")
    ap.add_argument("wraps", nargs="*", metavar="MODULE:NAME",
                    help="functions to count (module:function or module:Class.method)")
    a = ap.parse_args(argv)
    wraps = tuple(a.wraps) or DEFAULT.get(a.build, ())
    r = bench.heap_run(a.build, 1, a.seed, turns=a.turns, wraps=wraps, timing=a.time)
    f = bench.figures_of(r)
    n = max(1, f["turns"])
    print(f"{a.build}: {f['turns']} turns, alloc_turn mean / p95 / max "
          f"{f['alloc_turn_mean_b']} / {f['alloc_turn_p95_b']} / {f['alloc_turn_max_b']} B")
    print(f"  {'function':50s} {'bytes':>7s} {'calls':>6s} {'B/call':>7s} {'B/turn':>7s} "
          f"{'us min / mean / max':>22s}")
    for name, b, calls, us, lo, hi in sorted(r.get("wraps", []), key=lambda w: -w[1]):
        k = max(1, calls)
        print(f"  {name:50s} {b:7d} {calls:6d} {b // k:7d} {b // n:7d} "
              f"{lo if calls else 0:>8d} / {us // k:d} / {hi:d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
