"""`--fault` specs for the Roller Ghoster board (`hauntbox sim`, `--pty`, `--pico`).

Here, not in the command line, so that every board runner parses them the
same way without importing the simulator's CLI (which imports the boards).
"""
from __future__ import annotations

import argparse


def _staircase(spec: str, arg: str, staircases: int = 4) -> int:
    if not arg:
        return 1
    if not arg.isdigit() or not 1 <= int(arg) <= staircases:
        raise argparse.ArgumentTypeError(
            f"--fault {spec}: the staircase must be 1..{staircases}, not {arg!r}")
    return int(arg)


def parse_fault(spec: str, faults) -> None:
    """One --fault for Roller Ghoster; a one-line ArgumentTypeError if it is not one."""
    name, _, arg = spec.partition(":")
    if name in ("jam", "dead-notch", "missing-balls") and arg:
        raise argparse.ArgumentTypeError(f"--fault {spec}: {name} takes no argument")
    if name == "jam":
        faults.jammed = True
    elif name == "stuck-beam":
        faults.stuck_beams.add(_staircase(spec, arg))
    elif name == "dead-beam":
        faults.dead_beams.add(_staircase(spec, arg))
    elif name == "dead-notch":
        faults.dead_notch = True
    elif name == "missing-balls":
        faults.keep_missing_balls = True
    else:
        raise argparse.ArgumentTypeError(
            f"unknown fault {spec!r} for Roller Ghoster "
            "(jam, stuck-beam:K, dead-beam:K, dead-notch, missing-balls)")
