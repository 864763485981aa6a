"""Where a build's allocation per turn goes, on the emulated Pico: the bench's
heap run (sim/pico/bench.py) with chosen functions wrapped, each counting the
bytes allocated while it runs (inclusive: nested functions count in both) and
its calls, through the probe's allocation counter (sim/pico/bench_probe.py).

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
    ap.add_argument("wraps", nargs="*", metavar="MODULE:NAME",
                    help="functions to count (module:function or module:Class.method)")
    a = ap.parse_args(argv)
    wraps = tuple(a.wraps) or DEFAULT.get(a.build, ())
    r = bench.heap_run(a.build, 1, a.seed, turns=a.turns, wraps=wraps)
    f = bench.figures_of(r)
    n = max(1, f["turns"])
    print(f"{a.build}: {f['turns']} turns, alloc_turn mean / p95 / max "
          f"{f['alloc_turn_mean_b']} / {f['alloc_turn_p95_b']} / {f['alloc_turn_max_b']} B")
    print(f"  {'function':58s} {'bytes':>8s} {'calls':>6s} {'B/call':>7s} {'B/turn':>7s}")
    for name, b, calls in sorted(r.get("wraps", []), key=lambda w: -w[1]):
        print(f"  {name:58s} {b:8d} {calls:6d} {b // max(1, calls):7d} {b // n:7d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
