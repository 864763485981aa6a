"""A readable log of a Roller Ghoster game from the firmware's event stream."""
from __future__ import annotations

from typing import Callable

from hauntbox.names import space_name as sp

FACE_NAMES = {"1": "1", "2": "2", "3": "3", "1a": "1 + arrow", "2a": "2 + arrow", "ghost": "the ghost"}


class RollerLog:
    def __init__(self, colours: list[str], out: Callable[[str], None] = print,
                 clock_s: Callable[[], float] | None = None) -> None:
        self.colours = colours
        self.out = out
        self.clock_s = clock_s
        self.turn_no = 0

    def name(self, p: int) -> str:
        return self.colours[p] if 0 <= p < len(self.colours) else f"player {p}"

    def emit(self, text: str) -> None:
        if self.clock_s is not None:
            self.out(f"[{self.clock_s():8.2f}s] {text}")
        else:
            self.out(text)

    def __call__(self, ev: tuple) -> None:
        kind = ev[0]
        n = self.name
        if kind == "game":
            self.emit(f"New game of Roller Ghoster: {ev[2]} players, {n(ev[3])} starts")
        elif kind == "resumed":
            self.emit(f"Resumed saved game: {ev[2]} players, {n(ev[3])} to play")
        elif kind == "roll":
            self.turn_no += 1
            self.emit(f"Turn {self.turn_no}: {n(ev[1])} rolls {FACE_NAMES.get(ev[2], ev[2])}")
        elif kind == "move":
            self.emit(f"  {n(ev[1])} moves from {sp(ev[2])} to {sp(ev[3])}")
        elif kind == "skip":
            self.emit(f"  {n(ev[1])} finds {sp(ev[2])} taken, goes on to {sp(ev[3])}")
        elif kind == "slide":
            self.emit(f"  {n(ev[1])} ends on a broken step ({sp(ev[2])}) and slides to {sp(ev[3])}")
        elif kind == "climb":
            self.emit(f"  {n(ev[1])} climbs out of {sp(ev[2])} onto {sp(ev[3])}")
        elif kind == "stay":
            self.emit(f"  {n(ev[1])} stays in {sp(ev[2])}")
        elif kind == "rotate":
            self.emit("  the tower turns one notch...")
        elif kind == "ball":
            self.emit(f"  ball seen on staircase {ev[1]}")
        elif kind == "rotated":
            seen = [f"staircase {k + 1} x{c}" for k, c in enumerate(ev[1]) if c]
            self.emit("  balls down: " + (", ".join(seen) if seen else "none"))
        elif kind == "hit":
            self.emit(f"  {n(ev[1])} is knocked off {sp(ev[2])} into {sp(ev[3])}")
        elif kind == "fault":
            self.emit(f"  FAULT {ev[1]}: {ev[2]}")
        elif kind == "reservoir":
            self.emit("  the tower is missing balls: put them back")
        elif kind == "win":
            self.emit(f"{n(ev[1]).upper()} reaches the top of the tower and wins!")
