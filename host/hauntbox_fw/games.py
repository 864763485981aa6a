"""The games' one names (roller-ghoster, haunted-house, beetlejuice, superskill), as every
command line takes them: read from the firmware's registry (firmware/games/registry.py), so
there is one list; an old or near spelling is refused with the name meant.
"""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

from hauntbox_fw.paths import FIRMWARE_DIR

#: Spellings seen before every game had one name, and a few a person may type.
OLD_NAMES = {
    "roller": "roller-ghoster", "roller_ghoster": "roller-ghoster", "rollerghoster": "roller-ghoster",
    "haunted": "haunted-house", "haunted_house": "haunted-house", "hauntedhouse": "haunted-house",
    "boxtop": "haunted-house", "bj": "beetlejuice", "watch-out-beetlejuice": "beetlejuice",
    "super-skill": "superskill", "super_skill": "superskill", "star-trek": "superskill",
}


def game_names(firmware: Path | None = None) -> tuple[str, ...]:
    """The games of firmware/games/registry.py (its GAMES keys), in the order written;
    none for a tree without a registry."""
    registry = Path(FIRMWARE_DIR if firmware is None else firmware) / "games" / "registry.py"
    if not registry.is_file():
        return ()
    tree = ast.parse(registry.read_text())
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            if any(isinstance(t, ast.Name) and t.id == "GAMES" for t in node.targets):
                names += [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "GAMES"
                    and isinstance(t.slice, ast.Constant)):
                names.append(t.slice.value)
    return tuple(dict.fromkeys(names))


def check_game(name: str, firmware: Path | None = None) -> str:
    """`name` if it is a game; else ValueError with one line naming the game meant."""
    games = game_names(firmware)
    if name in games:
        return name
    meant = OLD_NAMES.get(name.lower()) or OLD_NAMES.get(name.lower().replace("-", "_"))
    if meant is None:
        meant = next((g for g in games if g.replace("-", "") == name.lower().replace("-", "").replace("_", "")), None)
    hint = f": did you mean {meant!r}?" if meant else ""
    raise ValueError(f"unknown game {name!r}{hint} (games: {', '.join(games) or 'none'})")


def game_arg(name: str) -> str:
    """argparse `type=` for a --game option: the one-line refusal as a usage error."""
    try:
        return check_game(name)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
