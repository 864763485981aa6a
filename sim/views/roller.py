"""A text picture of the Roller Ghoster board: staircases, ghosts, trenches."""
from __future__ import annotations

from typing import Any

LETTER = {"red": "R", "blue": "B", "green": "G", "yellow": "Y"}


def render_board(game: Any, colours: list[str]) -> str:
    lay = game.layout
    who: dict[str, list[str]] = {}
    for p, pos in enumerate(game.pos):
        who.setdefault(pos, []).append(LETTER.get(colours[p], str(p)))

    def cell(space: str) -> str:
        mark = "".join(who.get(space, [])) or ("x" if space in lay.broken else ".")
        return f"{mark:>2}"

    lines = []
    top = "".join(who.get("top", [])) or "  "
    lines.append(f"  top [{top}]   last step {cell('last')}  (exposed to staircase {lay.n_stairs})")
    for k in range(lay.n_stairs, 0, -1):
        walls = [s for s in lay.order if s.startswith(f"{k}w")]
        outers = [s for s in lay.order if s.startswith(f"{k}o")]
        trench = "".join(who.get(f"{k}T", [])) or "-"
        lines.append(f"  staircase {k}: star {cell(f'{k}*')} | wall " + " ".join(cell(s) for s in walls)
                     + " | outer " + " ".join(cell(s) for s in outers) + f" | trench [{trench}]")
    start = "".join(who.get("start", [])) or "-"
    lines.append(f"  start [{start}]   to play: {colours[game.turn]}   die: {game.face or '-'}")
    return "\n".join(lines)
