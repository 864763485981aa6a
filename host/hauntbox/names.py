"""Names for people instead of the games' internal codes (issue 20, item 11).

The codes stay in the JSON (the protocol, `--json`, the stats' data); every
line a person reads goes through here: Roller Ghoster's spaces (`1o2` is
"staircase 1, outer step 2", `4T` "trench 4"), Beetlejuice's cards (`b10` is
"a 1-skull Beetlejuice card: remove 2 dice"), winners ("RED wins!", "RED and
BLUE win!"), and the legends of the board views.
"""
from __future__ import annotations

from typing import Any

ROLLER_LEGEND = ("legend: R B G Y the ghosts (red, blue, green, yellow)  . a free step  "
                 "x a broken step (slides back)  outer steps are knocked by the balls of "
                 "their staircase  trench [-]: knocked ghosts wait there")
HAUNTED_LEGEND = ("legend: Medusa:X the standee stands on this level (. not here)  clues "
                  "left:# the clue tile is in place  Ravens x5: R6 = red's die showing 6 "
                  "lies in that realm (scores x5; R B O Y = red, blue, orange, yellow)  "
                  "circle: (R5) the die in the Summoning Circle  elsewhere: dice on no realm")


def space_name(sid: Any) -> str:
    """A Roller Ghoster space id (firmware/rules/roller_layout.py) in words."""
    if not isinstance(sid, str):
        return str(sid)
    if sid in ("start", "top"):
        return "the " + sid
    if sid == "last":
        return "the last step"
    k, rest = "", sid
    while rest and rest[0].isdigit():
        k, rest = k + rest[0], rest[1:]
    if not k:
        return sid
    if rest == "*":
        return f"the star of staircase {k}"
    if rest == "T":
        return f"trench {k}"
    if len(rest) > 1 and rest[0] in "wo" and rest[1:].isdigit():
        path = "wall" if rest[0] == "w" else "outer"
        return f"staircase {k}, {path} step {rest[1:]}"
    return sid


def winners(names: list[str]) -> str:
    """ "RED wins!" / "RED and BLUE win!" (the rulebooks allow shared wins)."""
    if not names:
        return "nobody wins"
    up = [n.upper() for n in names]
    return (up[0] + " wins!") if len(up) == 1 else (" and ".join(up) + " win!")


EFFECTS = {"fewer_rolls": "one roll fewer", "replace": "the Residents are replaced",
           "banish4": "4 Beetlejuice symbols needed to banish him"}


def beetlejuice_card(card: dict | None, cid: str, symbol_names: dict | None = None) -> str:
    """A Beetlejuice card (a firmware/data/beetlejuice.json entry) in words, without its id."""
    if card is None:
        return cid
    sym = symbol_names or {}
    if "skulls" in card:
        e = card.get("effect")
        if e == "remove_dice":
            n = card.get("n", 1)
            what = f"remove {n} {'die' if n == 1 else 'dice'}"
        elif e == "forbid":
            what = "no " + ", ".join(sym.get(s, s) for s in card.get("symbols", []))
        else:
            what = EFFECTS.get(e, str(e).replace("_", " "))
        k = card["skulls"]
        return f"a {k}-skull Beetlejuice card: {what}"
    if card.get("handbook"):
        return "a Handbook for the Recently Deceased"
    alts = [" + ".join(f"{k} {sym.get(s, s)}" for s, k in alt.items())
            for alt in card.get("need", [])]
    return f"a Resident ({' or '.join(alts)}, {card.get('points')} pts)"
