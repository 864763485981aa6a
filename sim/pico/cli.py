"""`make pico`: play a whole game on the emulated Pico (the official rp2 firmware).

The same options as `make sim` (sim/cli.py); the firmware runs on the
emulated RP2040 instead of CPython, its pins driven by the same models.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from hauntbox_sim.cli import build_parser as sim_parser
from hauntbox_sim.boards.faults import parse_fault


def build_parser() -> argparse.ArgumentParser:
    p = sim_parser()
    p.prog = "make pico"
    p.description = __doc__
    p.add_argument("--uf2", help="run this MicroPython UF2 instead of the vendored v1.28.0 "
                                 "(a maker's own download of the RPI_PICO firmware)")
    p.add_argument("--max-s", type=float, default=3600.0,
                   help="give up after this many seconds of emulated play (default 3600)")
    return p


class LedFrame:
    """A WS2812 chain as the emulated chip's data pin drew it (GRB bytes)."""

    def __init__(self, data: bytes = b"") -> None:
        self.data = data

    def decoded(self) -> list[tuple[int, int, int]]:
        d = self.data
        return [(d[i + 1], d[i], d[i + 2]) for i in range(0, len(d) - 2, 3)]


def fail(msg: str) -> int:
    print(f"make pico: {msg}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from hauntbox_sim.pico.emulator import PicoError
    try:
        return play(args)
    except PicoError as e:
        return fail(str(e))


def play(args: Any) -> int:
    from hauntbox_sim.cli import check_options
    from hauntbox_sim.pico import session as ps

    bad = check_options(args)
    if bad:
        return fail(bad)

    t0 = time.monotonic()
    clock_s = None
    game = args.game
    if game == "roller-ghoster":
        from hauntbox_sim.models.tower import Faults
        from hauntbox_sim.views.roller_log import RollerLog
        if not 2 <= args.players <= 4:
            return fail("--players must be 2..4 for Roller Ghoster")
        faults = Faults()
        for spec in args.fault:
            try:
                parse_fault(spec, faults)
            except (argparse.ArgumentTypeError, ValueError) as e:
                return fail(str(e))
        s: Any = ps.RollerPico(players=args.players, seed=args.seed, noise=args.noise,
                               policies=args.policy, faults=faults, uf2=args.uf2,
                               settings={"reservoir": args.reservoir})
        clock_s = lambda: s.board.now_us / 1e6  # noqa: E731
        if not args.quiet:
            s.host.subscribe(RollerLog(s.colours, clock_s=clock_s))
            if args.view:
                from hauntbox_sim.views.roller import render_board

                def draw(ev: tuple) -> None:
                    g = s.view.controller.game
                    if ev[0] == "win" and g is not None:
                        print(render_board(g, s.colours))
                s.host.subscribe(draw)
                s.host.on_reply.append(lambda m: print(render_board(s.view.controller.game, s.colours))
                                       if m.get("cmd") == "state" and s.view.controller.game else None)
    elif game == "haunted-house":
        from hauntbox_sim.views.haunted_log import HauntedLog
        if not 1 <= args.players <= 4:
            return fail("--players must be 1..4 for Haunted House")
        from hauntbox_sim.boards.haunted import load_pinmap, parse_outage
        try:
            outages = [parse_outage(spec, load_pinmap()) for spec in args.fault]
        except ValueError as e:
            return fail(str(e))
        s = ps.HauntedPico(players=args.players, seed=args.seed, noise=args.noise,
                           policies=args.policy, uf2=args.uf2, outages=outages)
        clock_s = lambda: s.board.now_us / 1e6  # noqa: E731
        if not args.quiet:
            from hauntbox_sim.views.haunted import render_scoreboard
            layout = s.pinmap["pixels"]
            monsters = [m["id"] for m in s.data["monsters"]]
            score_pin = s.pinmap["pins"][layout["score"]["pin"]]["gpio"]

            def board() -> str:
                return render_scoreboard(LedFrame(s.board.frames.get(score_pin, b"")), layout,
                                         s.colours, monsters)
            s.host.subscribe(HauntedLog(s.colours, clock_s=clock_s,
                                        scoreboard=board if args.view else None))
    else:
        hi = 6 if game == "beetlejuice" else 4
        if not 1 <= args.players <= hi:
            return fail(f"--players must be 1..{hi} for {game}")
        s = ps.CompanionPico(game=game, players=args.players, seed=args.seed,
                             policies=args.bot, uf2=args.uf2)
        clock_s = lambda: s.board.now_us / 1e6  # noqa: E731
        if not args.quiet:
            s.host.subscribe(companion_log(s, clock_s))
    s.host.on_text = lambda t: print(f"  board: {t}") if t.strip() and not args.quiet else None
    with s:
        hello = s.connect()
        if not args.quiet:
            print(f"Emulated Pico: {s.machine} running MicroPython {s.micropython}; "
                  f"firmware {hello.get('firmware')} build {hello.get('build')}, game {hello.get('game')}")
        r = s.play(max_s=args.max_s)
        wall = time.monotonic() - t0
        if not r.over:
            print(f"make pico: the game did not end within {args.max_s:.0f} s of emulated play",
                  file=sys.stderr)
            return 1
        who = winner_name(s, r.winner)
        print(f"Winner: {who} after {r.turns} turns; {r.emulated_s:.0f} s of play on the emulated "
              f"Pico in {wall:.1f} s ({r.emulated_s / wall:.2f}x real time, "
              f"{s.board.pico.cycles / 125e6 / max(r.emulated_s, 1e-9) * 100:.0f}% CPU busy)")
    return 0


def winner_name(s: Any, winner: Any) -> str:
    if isinstance(winner, int) and 0 <= winner < len(s.colours):
        return s.colours[winner]
    if isinstance(winner, (list, tuple)):
        return " and ".join(s.colours[p] for p in winner if isinstance(p, int))
    return "shared" if winner is None else str(winner)


def companion_log(s: Any, clock_s: Any) -> Any:
    from hauntbox_sim.views.companion_log import BeetlejuiceLog, SuperSkillLog
    if s.game == "beetlejuice":
        return BeetlejuiceLog(s.colours, s.cfg, clock_s=clock_s)
    return SuperSkillLog(s.colours, clock_s=clock_s)


if __name__ == "__main__":
    raise SystemExit(main())
