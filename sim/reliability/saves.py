"""Damaged saves: a save of every game, truncated at every byte and with every
byte flipped, booted by the firmware's own start-up path (App.start_game).

Each variant must either resume exactly the original game (a change that does
not alter what the file says, if any) or be refused: set aside as
<name>.json.bad and reported as a `fault state_bad`. A resume whose game, dice
generator or public state differs from the original's is a *silent wrong
resume*, and there must be none (issue 17, defect 8; docs/reliability.md).
`python -m hauntbox_sim.reliability.figures` runs it; `python -m hauntbox_sim.reliability.saves` alone too.
"""
from __future__ import annotations

from hauntbox_fw.games import game_arg
import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable

PLAYERS = 3
FLIPS = (0x01, 0x20)        # XOR masks: the lowest bit, and the bit that changes case / digits


def _makers() -> dict[str, Callable[[str], Any]]:
    from hauntbox_sim.boards.companion import CompanionSim
    from hauntbox_sim.boards.haunted import HauntedSim
    from hauntbox_sim.boards.roller import RollerSim
    return {
        "roller-ghoster": lambda d: RollerSim(players=PLAYERS, seed=7, state_dir=d),
        "haunted-house": lambda d: HauntedSim(players=PLAYERS, seed=7, state_dir=d),
        "beetlejuice": lambda d: CompanionSim(game="beetlejuice", players=PLAYERS, seed=7,
                                              state_dir=d),
        "superskill": lambda d: CompanionSim(game="superskill", players=PLAYERS, seed=7,
                                             state_dir=d),
    }


@dataclass
class SaveReport:
    games: int = 0
    variants: int = 0
    truncations: int = 0
    flips: int = 0
    exact: int = 0              # resumed, identical to the original
    refused: int = 0            # not resumed, set aside and reported
    silent_wrong: int = 0       # resumed as something else: must be 0
    unreported: int = 0         # not resumed, but nothing said: must be 0
    crashes: int = 0            # start-up raised: must be 0
    save_bytes: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.silent_wrong == 0 and self.unreported == 0 and self.crashes == 0


def mid_game_save(game: str) -> bytes:
    """The save file of a game played halfway (the middle one of its saves)."""
    saves: list[bytes] = []
    with tempfile.TemporaryDirectory(prefix="hauntbox-saves-") as d:
        s = _makers()[game](d)
        store = s.app.store
        name = s.app.controller.save_name
        real = store.save

        def save(n: str, data: Any, *rest: Any) -> None:
            real(n, data, *rest)
            if n == name:
                with open(store.path(n), "rb") as f:
                    saves.append(f.read())
        store.save = save
        s.run()
    # The middle save of a game that is not over (the last ones may be).
    return saves[len(saves) // 2]


def _view(c: Any) -> str:
    return json.dumps([c.game.to_dict(), c.public_state(), c.rng.state], sort_keys=True,
                      default=str)


class _Boot:
    """One simulated board for a game; boot() runs its start-up on a given save."""

    def __init__(self, game: str) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="hauntbox-damaged-")
        self.sim = _makers()[game](self.dir.name)
        self.app = self.sim.app
        self.name = self.app.controller.save_name
        self.path = self.app.store.path(self.name)
        self.faults: list[tuple] = []
        self.app.bus.subscribe(lambda e: self.faults.append(e) if e[0] == "fault" else None)

    def boot(self, content: bytes) -> tuple[bool, str]:
        for p in (self.path, self.path + ".bad"):
            if os.path.exists(p):
                os.remove(p)
        with open(self.path, "wb") as f:
            f.write(content)
        self.faults.clear()
        resumed = self.app.start_game(PLAYERS, 0, True)
        return resumed, _view(self.app.controller)

    def reported(self) -> bool:
        return (any(e[1] == "state_bad" for e in self.faults)
                and os.path.exists(self.path + ".bad"))

    def close(self) -> None:
        self.dir.cleanup()


def variants(original: bytes, flips: tuple[int, ...]):
    for n in range(len(original)):
        yield "truncated to %d bytes" % n, original[:n]
    for i in range(len(original)):
        for mask in flips:
            b = bytearray(original)
            b[i] ^= mask
            yield "byte %d ^ 0x%02x" % (i, mask), bytes(b)


def damaged_saves(games: tuple[str, ...] | None = None, flips: tuple[int, ...] = FLIPS,
                  progress: bool = False) -> SaveReport:
    rep = SaveReport()
    for game in games or tuple(_makers()):
        original = mid_game_save(game)
        rep.games += 1
        rep.save_bytes[game] = len(original)
        b = _Boot(game)
        try:
            resumed, expect = b.boot(original)
            if not resumed:
                rep.problems.append(f"{game}: the undamaged save does not resume")
                continue
            for what, content in variants(original, flips):
                rep.variants += 1
                if what.startswith("truncated"):
                    rep.truncations += 1
                else:
                    rep.flips += 1
                try:
                    resumed, got = b.boot(content)
                except Exception as e:  # noqa: BLE001 - a crash is what this counts
                    rep.crashes += 1
                    rep.problems.append(f"{game}: {what}: start-up raised {e!r}")
                    continue
                if resumed and got == expect:
                    rep.exact += 1
                elif resumed:
                    rep.silent_wrong += 1
                    rep.problems.append(f"{game}: {what}: resumed a different game")
                elif b.reported():
                    rep.refused += 1
                else:
                    rep.unreported += 1
                    rep.problems.append(f"{game}: {what}: not resumed and not reported")
        finally:
            b.close()
        if progress:
            print(f"  damaged saves: {game} done ({rep.variants} variants so far)",
                  file=sys.stderr)
    return rep


def print_report(rep: SaveReport) -> None:
    sizes = ", ".join(f"{g} {n} B" for g, n in rep.save_bytes.items())
    print(f"Damaged saves: {rep.variants} variants of {rep.games} games' saves ({sizes}): "
          f"{rep.truncations} truncations (every length), {rep.flips} byte flips "
          f"(every byte, XOR {', '.join('0x%02x' % m for m in FLIPS)})")
    print(f"  exact resumes: {rep.exact}; refused, set aside and reported: {rep.refused}")
    print(f"  silent wrong resumes: {rep.silent_wrong}; not resumed and not reported: "
          f"{rep.unreported}; start-up crashes: {rep.crashes}")
    for prob in rep.problems[:5]:
        print("   ", prob)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hauntbox_sim.reliability.saves", description=__doc__)
    p.add_argument("--game", action="append", type=game_arg, help="only this game (repeatable)")
    args = p.parse_args(argv)
    t0 = time.monotonic()
    rep = damaged_saves(tuple(args.game) if args.game else None, progress=True)
    print_report(rep)
    print(f"took {time.monotonic() - t0:.1f} s")
    print("RESULT: " + ("PASS" if rep.ok else "FAIL"))
    return 0 if rep.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
