"""One command-line style for `hauntbox play`, `stats` and `sim` (issue 20).

The same flag names mean the same things in every game:

    --players N    seats in a game (humans and bots together)
    --humans H     seats played by people at the keyboard, taken first (play)
    --policy P     the bots' policy; a comma list (or the flag repeated) gives
                   one per seat, cycling
    --games N      games to simulate (stats; a default everywhere)
    --seed N       the first seed
    --names A,B    seat names, in seat order (play)
    --quiet        no progress / log lines

`Parser` makes every usage error one line, "PROG: what is wrong (see PROG
--help)", with exit 2, and lists the exit codes in `--help`. `renamed()`
keeps an old spelling working with one deprecation line.
"""
from __future__ import annotations

import argparse
import sys
from typing import IO

EXIT_CODES = ("exit codes: 0 done (also when you quit with q); 1 the run did not finish "
              "(the input ended first, a file could not be written); 2 bad options; "
              "130 stopped with Ctrl-C")


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kw) -> None:
        kw.setdefault("epilog", EXIT_CODES)
        super().__init__(*args, **kw)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def renamed(argv: list[str], old: dict[str, str], prog: str, err: IO | None = None) -> list[str]:
    """argv with each old flag spelling replaced by its new one, saying so once per flag."""
    err = err or sys.stderr
    out: list[str] = []
    said: set[str] = set()
    for a in argv:
        flag, eq, value = a.partition("=")
        if flag in old:
            if flag not in said:
                print(f"{prog}: {flag} is now {old[flag]} (the old name still works, for now)",
                      file=err)
                said.add(flag)
            a = old[flag] + eq + value
        out.append(a)
    return out


def policies(values: list[str] | None) -> list[str]:
    """--policy given as a comma list, repeated, or both: one flat list."""
    out: list[str] = []
    for v in values or []:
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out
