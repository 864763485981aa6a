"""Accuracy checks of the firmware's sensing against the simulator's ground truth.

`hauntbox check beams --rotations 10000` (or `make check-beams`) turns the simulated tower with
the firmware's own Tower/BeamBank code, noise on, and compares the balls it
detected on each staircase with the balls the physical model released.

`hauntbox check hits --launches 10000` plays simulated Haunted House
games with sensor noise on and compares the monster hits and clues the firmware
credited (and to whom) with the table model's ground truth.
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
    (sim/checks_match.py). load: a sim.checks_load.Load (None: none; host
    adds only the host, as before)."""
    import asyncio

    from sim import install as sim_install
    from sim import runtime
    from sim.checks_load import Load, attach_flash, frames
    from sim.checks_match import Found, Truth, match
    from sim.host_link import SimUsbSerial, busy_host
    from sim.roller_board import RollerSim

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
            if progress and (i + 1) % 1000 == 0:
                print(f"  {i + 1}/{rotations} rotations", file=sys.stderr)
        for t in extra:
            t.cancel()
        await s.app.stop_tasks()

    try:
        sim_install.run(run())
    finally:
        if flash_on:
            from sim.models import flash
            flash.detach()
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
                      max_latency_ms=m.max_latency_ms,
                      load=load.describe() if load is not None else "load: none")


def hit_accuracy(launches: int = 10000, seed: int = 1, noise: str = "all", players: int = 4,
                 progress: bool = False, host: bool = False, flash_ms: int = 0):
    """Play whole simulated Haunted House games (noise on) until `launches` dice
    have been launched; compare the monster hits and clues the firmware credited
    with the table model's ground truth, launch by launch. host: with a host
    console on the serial link (sim/host_link.py), whose replies keep the
    firmware busy for a few ms at a time. flash_ms: every save blocks the
    firmware that long (each file commit and rename, sim/models/flash.py)."""
    from sim.haunted_board import HauntedSim, HitReport
    from sim.host_link import SimUsbSerial

    total = HitReport()
    t0 = time.monotonic()
    sim_s = 0.0
    k = 0
    while total.launches < launches:
        s = HauntedSim(players=players, seed=seed + k, noise=noise,
                       host_link=SimUsbSerial() if host else None)
        if flash_ms:
            from sim.models import flash
            us = flash_ms * 1000
            flash.attach(flash.FlashModel(stall_us={"close": us, "rename": us}))
        try:
            s.run()
        finally:
            if flash_ms:
                flash.detach()
        total.add(s.report())
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
        f"glitches injected: {rep.glitches}",
        f"{sim_s:.0f} s simulated in {wall:.1f} s",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hauntbox check", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    b = sub.add_parser("beams", help="beam accuracy over many simulated rotations")
    b.add_argument("--rotations", type=int, default=10000)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--noise", choices=("none", "bounce", "glitch", "all"), default="all")
    b.add_argument("--host", action="store_true",
                   help="a host on the serial link: events on, state every 100 ms")
    h = sub.add_parser("hits", help="Haunted House: hits credited vs. the table model's truth")
    h.add_argument("--launches", type=int, default=10000)
    h.add_argument("--seed", type=int, default=1)
    h.add_argument("--noise", choices=("none", "bounce", "glitch", "all"), default="all")
    h.add_argument("--players", type=int, default=4, choices=(1, 2, 3, 4))
    h.add_argument("--host", action="store_true",
                   help="a host on the serial link: events on, state every 100 ms")
    h.add_argument("--flash-ms", type=int, default=0,
                   help="each file commit and rename of a save blocks the firmware this long")
    args = p.parse_args(argv)
    if args.what == "hits":
        if args.launches < 1:
            print("hauntbox check: --launches must be at least 1", file=sys.stderr)
            return 2
        if args.flash_ms < 0:
            print("hauntbox check: --flash-ms must be 0 or more", file=sys.stderr)
            return 2
        print(f"Hit crediting: {args.launches} launches, noise={args.noise}, seed={args.seed}, "
              f"{args.players} players" + (", host polling the serial link" if args.host else "")
              + (f", saves blocking {args.flash_ms} ms per commit and rename" if args.flash_ms else ""))
        hrep, sim_s, wall = hit_accuracy(args.launches, args.seed, args.noise, args.players,
                                         progress=True, host=args.host, flash_ms=args.flash_ms)
        for line in hit_lines(hrep, sim_s, wall):
            print(line)
        print("RESULT: " + ("PASS" if hrep.ok else "FAIL") + f" ({hrep.missed} missed, "
              f"{hrep.phantom} phantom, {hrep.wrong_player} wrong player)")
        return 0 if hrep.ok else 1
    if args.what == "beams":
        if args.rotations < 1:
            print("hauntbox check: --rotations must be at least 1", file=sys.stderr)
            return 2
        print(f"Beam accuracy: {args.rotations} rotations, noise={args.noise}, seed={args.seed}"
              + (", host polling the serial link" if args.host else ""))
        rep = beam_accuracy(args.rotations, args.seed, args.noise, progress=True, host=args.host)
        for line in rep.lines():
            print(line)
        ok = rep.missed == 0 and rep.phantom == 0 and rep.jams == 0
        print("RESULT: " + ("PASS" if ok else "FAIL") + f" ({rep.missed} missed, {rep.phantom} phantom)")
        return 0 if ok else 1
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
