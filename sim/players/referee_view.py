"""What a person at the Haunted House table sees, for the simulated referee.

The firmware asks people "whose die is in the circle?", "whose die fell
through this hole?" and, at the round end, each die's face and realm. A
person answers from the table: the colour of the die lying in the circle,
the dice in the hole's catch tray, the face up and the realm of each die
where it lies. This view gives exactly that, read from the pieces' positions
now, and never from the model's record of what happened during the launch
(sim/models/table.py keeps that record for the checks only).
"""
from __future__ import annotations

from typing import Any


class TableView:
    def __init__(self, model: Any) -> None:
        self.model = model
        self._claimed: set[int] = set()      # dice in the trays already answered for

    def circle_owner(self, active: int) -> int:
        """The colour of the die lying in the circle. If none lies there any
        more (knocked out again before the question), people name the die of
        the player whose turn it is, the one they watched."""
        d = self.model.circle_die
        return d.owner if d is not None else active

    def hole_owner(self, hole: str | None, active: int) -> int:
        """The die that dropped into that hole's tray last and has not been
        answered for (people watch it come out of the chute)."""
        from hauntbox_sim.core import runtime
        now = runtime.clock().now_us
        best = None
        for d in self.model.dice:
            if (d.where == "hole" and id(d) not in self._claimed and d.fell_us <= now
                    and (hole is None or d.hole == hole)
                    and (best is None or d.fell_us > best.fell_us)):
                best = d
        if best is None:
            return active
        self._claimed.add(id(best))
        return best.owner

    def entries(self, player: int, rnd: int, n: int) -> list[tuple]:
        """The round-end entries for the n dice the firmware counts for this
        player: each of the player's dice lying on the machine (face up, the
        realm it lies in or None), then "lost" for the rest (the dice people
        do not find on the machine)."""
        out: list[tuple] = []
        for d in self.model.dice:
            if d.owner == player and d.round == rnd and d.on_machine:
                out.append((d.face, d.realm if d.where == "realm" else None))
        out = out[:n]
        out += [("lost",)] * (n - len(out))
        return out
