"""Accuracy checks of the firmware's sensing against the simulator's ground truth.

`hauntbox check beams --rotations 10000` (or `make check-beams`) plays turns of
the simulated tower through the game's own turn, noise at the physical
envelope (hardware/sensing-envelope.md) and the load on (LED frames, a host
streaming events, saves), and matches every ball the model released with one
count of its staircase by time: missed, phantom and counted in the wrong turn
apart. `--pico` runs it on the emulated Pico, `--sweep` sweeps each noise
parameter across and beyond the envelope (table, docs/sweep-beams.png).

`hauntbox check hits --launches 10000` plays simulated Haunted House games the
same way and matches every monster hit and clue with one credit by time:
missed, phantom and credited to the wrong player apart (`--sweep`:
docs/sweep-hits.png).
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import Any


@dataclass
class BeamReport:
    rotations: int
    released: int
    detected: int
    missed: int
    phantom: int
    per_staircase: list[tuple[int, int]]   # (released, detected) per staircase
    glitches_rejected: int
    jams: int
    sim_seconds: float
    wall_seconds: float
    wrong_turn: int = 0          # matched, but counted in another rotation
    doubted: int = 0             # staircase-turns the firmware found doubtful and asked about
    stairs_wrong: int = 0        # turns whose staircases (after asking) differ from the truth
    max_latency_ms: float = 0.0
    load: str = "no load"
    between: int = 0             # "ball" events between turns: no turn counts them

    @property
    def ok(self) -> bool:
        return (self.missed == 0 and self.phantom == 0 and self.wrong_turn == 0
                and self.jams == 0 and self.stairs_wrong == 0)

    def lines(self) -> list[str]:
        out = [
            f"rotations: {self.rotations}  (jams: {self.jams})",
            self.load,
            f"balls released by the model: {self.released}",
            f"balls detected by the firmware: {self.detected}",
            f"missed: {self.missed}",
            f"phantom: {self.phantom}",
            f"counted in the wrong turn: {self.wrong_turn}",
            f"staircases the firmware doubted and asked the players about: {self.doubted}",
            f"turns whose staircases (after the answers) differ from the truth: {self.stairs_wrong}",
            f"ball events between turns (no turn counts them; a glitch stretched by a save): {self.between}",
            f"glitches rejected by the filter: {self.glitches_rejected}",
            f"longest time from a ball's leading edge to its count: {self.max_latency_ms:.1f} ms",
        ]
        for k, (r, d) in enumerate(self.per_staircase, 1):
            out.append(f"  staircase {k}: released {r}, detected {d}")
        out.append(f"{self.sim_seconds:.0f} s simulated in {self.wall_seconds:.1f} s")
        return out


def beam_accuracy(rotations: int = 10000, seed: int = 1, noise: str = "all",
                  progress: bool = False, host: bool = False, load: Any = None,
                  tower_cfg: Any = None) -> BeamReport:
    """Play `rotations` turns of the tower through the game's own turn
    (emitter test, rotation, settle window, questions about doubtful
    staircases answered by the simulated players) and match every ball the
    model released with one `ball` event on its staircase by time
    (sim/checks/match.py). load: a hauntbox_sim.checks.load.Load (None: none; host
    adds only the host, as before)."""
    import asyncio

    from hauntbox_sim.fakes import install as sim_install
    from hauntbox_sim.core import runtime
    from hauntbox_sim.checks.load import Load, attach_flash, frames
    from hauntbox_sim.checks.match import Found, Truth, match
    from hauntbox_sim.models.host_link import SimUsbSerial, busy_host
    from hauntbox_sim.boards.roller import RollerSim

    if load is None and host:
        load = Load(frame_ms=0, host=True, flash_ms=0)
    s = RollerSim(players=2, seed=seed, noise=noise, tower_cfg=tower_cfg)
    ctl = s.app.controller
    tower = ctl.tower
    model = s.tower
    n = model.cfg.staircases
    gap_us = tower.beams.beams[0].gap_us
    found: list[Found] = []
    rot = {"i": -1}
    doubts = [0]
    clk = runtime.clock()

    def on_event(ev: tuple) -> None:
        if ev[0] == "ball":
            owner = rot["i"] if ctl.sensing else None
            for _ in range(ev[2]):
                found.append(Found(ev[1], clk.now_us, owner))
        elif ev[0] == "fault" and ev[1] == "beam_doubt":
            doubts[0] += 1
    s.app.bus.subscribe(on_event)
    truth: list[Truth] = []
    stairs_wrong = 0
    flash_on = attach_flash(load.flash_ms) if load is not None else False
    t0 = time.monotonic()

    async def run() -> None:
        nonlocal stairs_wrong
        await s.app._start_tasks()
        extra = []
        if load is not None and load.host:
            extra.append(asyncio.create_task(busy_host(s.app, SimUsbSerial(), 100)))
        if load is not None and load.frame_ms:
            extra.append(asyncio.create_task(
                frames(ctl.display.strip.np, load.frame_ms, load.extra_irq_off_us)))
        ctl.new_game(2)
        for i in range(rotations):
            model.refill()
            rot["i"] = i
            start = s.clock.now_us
            first = len(model.released)
            stairs = await ctl.turn_tower()
            for j in range(first, len(model.released)):
                k, t = model.released[j]
                # A count may come as late as the end of the interruption plus
                # the gap that closes it, and a little for a busy loop.
                w = model.widths[j] + gap_us + 50_000
                truth.append(Truth(k, t, i, w))
            seen = sorted({k for k, t in model.released[first:] if t >= start})
            stairs_wrong += tuple(seen) != tuple(stairs)
            ctl.save()                      # the game saves after each turn
            await asyncio.sleep(0.2)        # the players' next move: the tasks run
            if progress and (i + 1) % 1000 == 0:
                print(f"  {i + 1}/{rotations} rotations", file=sys.stderr)
        for t in extra:
            t.cancel()
        await s.app.stop_tasks()

    try:
        sim_install.run(run())
    finally:
        if flash_on:
            from hauntbox_sim.models import flash
            flash.detach()
    # A count outside every turn is in no turn's result (the next rotation
    # starts from zero): reported apart, not matched.
    between = [f for f in found if f.owner is None]
    found = [f for f in found if f.owner is not None]
    m = match(truth, found)
    per = [[0, 0] for _ in range(n)]
    for tr in truth:
        per[tr.key - 1][0] += 1
    for f in found:
        per[f.key - 1][1] += 1
    glitches = sum(b.glitches for b in tower.beams.beams)
    return BeamReport(rotations, m.true, m.found, m.missed, m.phantom,
                      [tuple(x) for x in per], glitches, tower.jams,  # type: ignore[misc]
                      s.clock.now_us / 1e6, time.monotonic() - t0, wrong_turn=m.wrong_owner,
                      doubted=doubts[0], stairs_wrong=stairs_wrong,
                      max_latency_ms=m.max_latency_ms, between=len(between),
                      load=load.describe() if load is not None else "load: none")


def hit_accuracy(launches: int = 10000, seed: int = 1, noise: str = "all", players: int = 4,
                 progress: bool = False, host: bool = False, flash_ms: int = 0,
                 load: Any = None, table_cfg: Any = None):
    """Play whole simulated Haunted House games (noise on) until `launches` dice
    have been launched; match every monster hit and clue the table model
    recorded with one credit of the same piece by time (sim/checks/match.py):
    missed, phantom and credited to the wrong player are counted apart. The
    circle, hole and round-score comparisons are per launch (compare()).
    load: a hauntbox_sim.checks.load.Load (frames, a host, saves); host and flash_ms
    alone are the older switches."""
    from hauntbox_sim.fakes import install as sim_install
    from hauntbox_sim.core import runtime
    from hauntbox_sim.checks.load import frames
    from hauntbox_sim.checks.match import Found, Truth, match
    from hauntbox_sim.boards.haunted import HauntedSim, HitReport
    from hauntbox_sim.models.host_link import SimUsbSerial, host_tasks

    if load is not None:
        host = load.host
        flash_ms = load.flash_ms
    total = HitReport()
    t0 = time.monotonic()
    sim_s = 0.0
    k = 0
    while total.launches < launches:
        cfg = None
        if table_cfg is not None:
            import copy
            cfg = copy.deepcopy(table_cfg)
        s = HauntedSim(players=players, seed=seed + k, noise=noise, table_cfg=cfg,
                       host_link=SimUsbSerial() if host else None)
        found: list[Found] = []
        clk = runtime.clock()
        doubts = [0]

        def on_event(ev: tuple, found: list = found, clk: Any = clk, doubts: list = doubts) -> None:
            if ev[0] == "monster_hit":
                found.append(Found(("m", ev[2]), clk.now_us, ev[1]))
            elif ev[0] == "clue_taken":
                found.append(Found(("c", ev[2]), clk.now_us, ev[1]))
            elif ev[0] == "fault" and ev[1] == "sensor_doubt":
                doubts[0] += 1
        s.app.bus.subscribe(on_event)
        if flash_ms:
            from hauntbox_sim.models import flash
            us = flash_ms * 1000
            flash.attach(flash.FlashModel(stall_us={"close": us, "rename": us}))
        try:
            extra = host_tasks(s.app, s.host_link, s.host_period_ms) or []
            if load is not None and load.frame_ms:
                # The spot chain (15 LEDs): the score chain is held while a die
                # may move (Scoreboard.hold_score), so only this one animates.
                extra.append(frames(s.controller.build.spot_strip.np, load.frame_ms,
                                    load.extra_irq_off_us))
            sim_install.run(s.app.main_async(s.players, 0, True, extra_tasks=extra or None))
        finally:
            if flash_ms:
                flash.detach()
        rep = s.report()
        # A hit must be credited in its own turn: before the next launch (the
        # referee's entries after a doubtful turn included).
        la = s.table.launches
        truth = [Truth(key, t, rec.player,
                       (la[i + 1].t_us if i + 1 < len(la) else s.clock.now_us + 1) - t)
                 for i, rec in enumerate(la) for key, t in rec.hit_times]
        m = match(truth, found)
        rep.missed, rep.phantom, rep.wrong_player = m.missed, m.phantom, m.wrong_owner
        rep.credited = m.found
        rep.doubted = doubts[0]
        total.add(rep)
        sim_s += s.sim_seconds()
        k += 1
        if progress and k % 20 == 0:
            print(f"  {total.launches}/{launches} launches ({k} games)", file=sys.stderr)
    return total, sim_s, time.monotonic() - t0


def hit_lines(rep, sim_s: float, wall: float) -> list[str]:
    return [
        f"games: {rep.games}   launches: {rep.launches}   turn windows: {rep.windows}",
        f"true hits (model): {rep.true_hits}  ({rep.true_monsters} monsters, {rep.true_clues} clues)",
        f"hits credited by the firmware: {rep.credited}",
        f"missed: {rep.missed}",
        f"phantom: {rep.phantom}",
        f"credited to the wrong player: {rep.wrong_player}",
        f"summoning circle entries: true {rep.circle_true}, credited {rep.circle_credited}"
        f" (wrong owner {rep.circle_wrong})",
        f"dice through holes: true {rep.hole_true}, credited {rep.hole_credited}"
        f" (wrong owner {rep.hole_wrong})",
        f"round scores checked against the truth: {rep.rounds_checked} (mismatches {rep.round_mismatches})",
        f"turns the firmware found doubtful and asked the referee about: {rep.doubted}",
        f"glitches injected: {rep.glitches}",
        f"{sim_s:.0f} s simulated in {wall:.1f} s",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hauntbox check", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    b = sub.add_parser("beams", help="beam accuracy over many simulated rotations")
    b.add_argument("--rotations", type=int, default=None,
                   help="rotations (10000; 30 with --pico; 200 per value with --sweep)")
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--noise", choices=("none", "bounce", "glitch", "all"), default="all")
    b.add_argument("--host", action="store_true",
                   help="with --no-load: only a host on the serial link")
    b.add_argument("--no-load", action="store_true",
                   help="no frames, host or saves (the load is on by default)")
    b.add_argument("--sweep", action="store_true",
                   help="vary each noise parameter across and beyond the envelope; table + docs/sweep-beams.png")
    b.add_argument("--pico", action="store_true", help="on the emulated Pico (sim/pico)")
    h = sub.add_parser("hits", help="Haunted House: hits credited vs. the table model's truth")
    h.add_argument("--launches", type=int, default=None,
                   help="launches (10000; 150 per value with --sweep)")
    h.add_argument("--seed", type=int, default=1)
    h.add_argument("--noise", choices=("none", "bounce", "glitch", "all"), default="all")
    h.add_argument("--players", type=int, default=4, choices=(1, 2, 3, 4))
    h.add_argument("--host", action="store_true",
                   help="with --no-load: only a host on the serial link")
    h.add_argument("--flash-ms", type=int, default=None,
                   help="each file commit and rename of a save blocks the firmware this long (25)")
    h.add_argument("--no-load", action="store_true", help="no host or slow saves")
    h.add_argument("--sweep", action="store_true",
                   help="vary each noise parameter across and beyond the envelope; table + docs/sweep-hits.png")
    for q in (b, h):
        q.add_argument("--param", action="append", default=None,
                       help="with --sweep: only the parameters whose name contains this")
    args = p.parse_args(argv)
    from hauntbox_sim.checks.load import Load
    if args.what == "hits":
        n = args.launches if args.launches is not None else (150 if args.sweep else 10000)
        if n < 1:
            print("hauntbox check: --launches must be at least 1", file=sys.stderr)
            return 2
        if args.flash_ms is not None and args.flash_ms < 0:
            print("hauntbox check: --flash-ms must be 0 or more", file=sys.stderr)
            return 2
        if args.sweep:
            from hauntbox_sim.checks import sweep as checks_sweep
            return checks_sweep.run("hits", n, args.seed, params=args.param)
        if args.no_load:
            load = Load(frame_ms=0, host=args.host, flash_ms=args.flash_ms or 0)
        else:
            load = Load(host=True, flash_ms=25 if args.flash_ms is None else args.flash_ms)
        print(f"Hit crediting: {n} launches, noise={args.noise}, seed={args.seed}, "
              f"{args.players} players, " + load.describe())
        hrep, sim_s, wall = hit_accuracy(n, args.seed, args.noise, args.players,
                                         progress=True, load=load)
        for line in hit_lines(hrep, sim_s, wall):
            print(line)
        print("RESULT: " + ("PASS" if hrep.ok else "FAIL") + f" ({hrep.missed} missed, "
              f"{hrep.phantom} phantom, {hrep.wrong_player} wrong player)")
        return 0 if hrep.ok else 1
    if args.what == "beams":
        n = args.rotations
        if n is None:
            n = 30 if args.pico else (200 if args.sweep else 10000)
        if n < 1:
            print("hauntbox check: --rotations must be at least 1", file=sys.stderr)
            return 2
        if args.sweep and args.pico:
            print("hauntbox check: --sweep runs on the simulator, not with --pico", file=sys.stderr)
            return 2
        if args.sweep:
            from hauntbox_sim.checks import sweep as checks_sweep
            return checks_sweep.run("beams", n, args.seed, params=args.param)
        if args.pico:
            from hauntbox_sim.checks.pico import pico_beams
            print(f"Beam accuracy on the emulated Pico: {n} rotations, noise={args.noise}, "
                  f"seed={args.seed}, the chip's own load (frames, saves, the host's event stream)")
            prep = pico_beams(n, args.seed, args.noise)
            for line in prep.lines():
                print(line)
            print("RESULT: " + ("PASS" if prep.ok else "FAIL") + f" ({prep.missed} missed, "
                  f"{prep.phantom} phantom, {prep.wrong_turn} wrong turn)")
            return 0 if prep.ok else 1
        load = None if args.no_load and not args.host else (
            Load(frame_ms=0, host=True, flash_ms=0) if args.no_load else Load())
        print(f"Beam accuracy: {n} rotations, noise={args.noise}, seed={args.seed}, "
              + (load.describe() if load is not None else "load: none"))
        rep = beam_accuracy(n, args.seed, args.noise, progress=True, load=load)
        for line in rep.lines():
            print(line)
        print("RESULT: " + ("PASS" if rep.ok else "FAIL") + f" ({rep.missed} missed, {rep.phantom} phantom, "
              f"{rep.wrong_turn} wrong turn)")
        return 0 if rep.ok else 1
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
