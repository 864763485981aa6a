"""Command line for the simulator: play a whole game on a simulated build."""
from __future__ import annotations

from hauntbox_fw.games import game_arg
import argparse
import sys
import time

from hauntbox_sim.boards.faults import parse_fault

GAMES = ("roller-ghoster", "haunted-house")
GAMES += ("beetlejuice", "superskill")   # the dice companion (sim/boards/companion.py)

__all__ = ["GAMES", "build_parser", "check_options", "main", "parse_fault"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hauntbox sim", description=__doc__)
    p.add_argument("--game", type=game_arg, default="roller-ghoster",
                   help="roller-ghoster, haunted-house, beetlejuice or superskill")
    p.add_argument("--players", type=int, default=4,
                   help="2-4 players for Roller Ghoster, 1-4 for Haunted House (default 4)")
    p.add_argument("--seed", type=int, default=1, help="seed for dice and the physical model")
    p.add_argument("--noise", choices=("none", "bounce", "glitch", "all"), default="all",
                   help="sensor noise to inject (default: all)")
    p.add_argument("--policy", action="append",
                   help="bot policy per seat (repeat, or a comma list; cycles): Roller Ghoster "
                        "and Haunted House random|safe|bold, beetlejuice heuristic|random, "
                        "superskill lookahead|greedy|random")
    p.add_argument("--fault", action="append", default=[],
                   help="inject a fault: jam, stuck-beam:K, dead-beam:K, dead-notch, missing-balls; "
                        "Haunted House: expander-down:CHIP@LAUNCH+N (e.g. expander-down:exp_b@3+2)")
    p.add_argument("--reservoir", action="store_true", help="use the optional reservoir sensor")
    p.add_argument("--quiet", action="store_true", help="only print the result")
    p.add_argument("--view", action="store_true", help="draw the board after every turn")
    p.add_argument("--state-dir", help="where the board keeps its saved game (default: temporary)")
    p.add_argument("--mode", help="beetlejuice: who draws the cards, firmware|enter")
    p.add_argument("--bot", action="append", help=argparse.SUPPRESS)   # the old --policy
    p.epilog = ("exit codes: 0 the game was played; 1 it did not finish; 2 bad options; "
                "130 stopped with Ctrl-C")
    return p


POLICIES = {"roller-ghoster": ("random", "safe", "bold"), "haunted-house": ("random", "safe", "bold"),
            "beetlejuice": ("heuristic", "random"), "superskill": ("lookahead", "greedy", "random")}


def check_options(args) -> str | None:
    """An option that does not apply to the game asked for: said, not ignored."""
    if args.view and args.game in ("beetlejuice", "superskill"):
        return f"--view draws Roller Ghoster and Haunted House only, not {args.game}"
    if getattr(args, "bot", None):
        # One flag name for every game: --bot was the companions' spelling.
        print("hauntbox sim: --bot is now --policy (the old name still works, for now)",
              file=sys.stderr)
        args.policy = (args.policy or []) + args.bot
    pols = [x.strip() for v in (args.policy or []) for x in v.split(",") if x.strip()]
    for x in pols:
        if x not in POLICIES[args.game]:
            return (f"--policy {x}: {args.game}'s bots play "
                    f"{' | '.join(POLICIES[args.game])}")
    args.policy = pols or None
    args.bot = args.policy if args.game in ("beetlejuice", "superskill") else None
    if getattr(args, "fault", None) and args.game in ("beetlejuice", "superskill"):
        return f"--fault: no faults are modelled for {args.game}"
    return None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    bad = check_options(args)
    if bad:
        print(f"hauntbox sim: {bad}", file=sys.stderr)
        return 2
    if args.view and not args.quiet:
        from hauntbox_sim.views.names import HAUNTED_LEGEND, ROLLER_LEGEND
        print(HAUNTED_LEGEND if args.game == "haunted-house" else ROLLER_LEGEND)
    from hauntbox_sim.models import flash
    # Without --state-dir the saves are thrown away at the end: they go to a
    # model of the Pico's flash in RAM (sim/models/flash.py), not to real files.
    with flash.in_memory(args.state_dir is None):
        return _play(args)


def _play(args: argparse.Namespace) -> int:
    if args.game == "haunted-house":
        from hauntbox_sim.boards.haunted import run_cli
        return run_cli(args)
    if args.game in ("beetlejuice", "superskill"):
        from hauntbox_sim.boards.companion import run_cli as run_companion
        return run_companion(args)
    if not 2 <= args.players <= 4:
        print("hauntbox sim: --players must be 2..4 for Roller Ghoster", file=sys.stderr)
        return 2
    from hauntbox_sim.models.tower import Faults
    from hauntbox_sim.boards.roller import RollerSim
    from hauntbox_sim.views.roller_log import RollerLog
    from hauntbox_sim.views.roller import render_board

    faults = Faults()
    for spec in args.fault:
        try:
            parse_fault(spec, faults)
        except (argparse.ArgumentTypeError, ValueError) as e:
            print(f"hauntbox sim: {e}", file=sys.stderr)
            return 2
    settings = {"reservoir": args.reservoir}
    policies = args.policy or ["bold", "safe", "random", "bold"]
    t0 = time.monotonic()
    s = RollerSim(players=args.players, seed=args.seed, noise=args.noise, policies=policies,
                  faults=faults, state_dir=args.state_dir, settings=settings)
    if not args.quiet:
        log = RollerLog(s.colours, clock_s=s.sim_seconds)
        s.app.bus.subscribe(log)
        if args.view:
            def draw(ev: tuple) -> None:
                if ev[0] in ("turn", "win"):
                    print(render_board(s.app.controller.game, s.colours))
            s.app.bus.subscribe(draw)
    winner = s.run()
    wall = time.monotonic() - t0
    sim_s = s.sim_seconds()
    c = s.app.controller
    print(f"Winner: {s.colours[winner]} after {c.turns} turns; tower turned {s.tower.rotations} notches, "
          f"{len(s.tower.released)} balls fell; {sim_s:.0f} s of play simulated in {wall:.2f} s")
    return 0
