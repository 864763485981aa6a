"""Text pictures of the Haunted House table and of its LED scoreboard.

`read_scoreboard` decodes the scores back from the bytes the firmware last sent
down the score panel's NeoPixel chain (tens row in the player's colour, units
row in white, the hundreds LED), so a test can check the display itself rather
than the firmware's variables.
"""
from __future__ import annotations

from typing import Any

LETTER = {"red": "R", "blue": "B", "orange": "O", "yellow": "Y"}
MONSTER_LETTER = {"medusa": "M", "frank": "F", "bob": "B"}


def _lit(c: tuple[int, int, int]) -> bool:
    return max(c) > 0


def _whiteish(c: tuple[int, int, int]) -> bool:
    return min(c) > 0 and max(c) - min(c) <= max(c) // 4


def read_scoreboard(np: Any, layout: dict, players: int) -> list[int]:
    """Scores shown on the score panel (decoded from the last frame written)."""
    sc = layout["score"]
    px = np.decoded()
    block, tens, units = sc["per_player"], sc["tens"], sc["units"]
    out = []
    for p in range(players):
        base = p * block
        t = sum(1 for i in range(tens) if _lit(px[base + i]))
        u = sum(1 for i in range(units) if _lit(px[base + tens + i]))
        h_led = px[sc["status_from"] + p * sc["status_len"] + 1]
        h = 0 if not _lit(h_led) else (2 if _whiteish(h_led) else 1)
        out.append(100 * h + 10 * t + u)
    return out


def read_monsters_hit(np: Any, layout: dict, players: int, monsters: list[str]) -> list[list[str]]:
    """Monsters shown as hit this round, per player (status LEDs)."""
    sc = layout["score"]
    px = np.decoded()
    out = []
    for p in range(players):
        st = sc["status_from"] + p * sc["status_len"]
        out.append([m for k, m in enumerate(monsters) if _lit(px[st + 2 + k])])
    return out


def render_scoreboard(np: Any, layout: dict, colours: list[str], monsters: list[str]) -> str:
    """The score panel as text: the two LED rows of each player and what they read."""
    sc = layout["score"]
    px = np.decoded()
    n = len(colours)
    scores = read_scoreboard(np, layout, n)
    hits = read_monsters_hit(np, layout, n, monsters)
    lines = []
    for p in range(n):
        base = p * sc["per_player"]
        tens = "".join("#" if _lit(px[base + i]) else "." for i in range(sc["tens"]))
        units = "".join("o" if _lit(px[base + sc["tens"] + i]) else "." for i in range(sc["units"]))
        seat = px[sc["status_from"] + p * sc["status_len"]]
        mark = "*" if _lit(seat) and max(seat) > 100 else " "
        hundreds = scores[p] // 100
        tens = ("+" * hundreds + "|" if hundreds else "") + tens
        mons = "".join(MONSTER_LETTER.get(m, m[0].upper()) for m in hits[p]) or "-"
        lines.append(f"  {mark}{colours[p]:<7} tens [{tens}] units [{units}] = {scores[p]:>3}   monsters this round: {mons}")
    rnd = [px[sc["round_from"] + r] for r in range(sc["rounds"])]
    cur = next((i + 1 for i, c in enumerate(rnd) if max(c) > 100), None)
    fault = _lit(px[sc["fault_led"]])
    lines.append(f"  round LEDs: {''.join('#' if _lit(c) else '.' for c in rnd)}"
                 + (f" (round {cur})" if cur else "") + ("   FAULT LED on" if fault else ""))
    return "\n".join(lines)


def render_table(model: Any, game: Any, colours: list[str]) -> str:
    """Where the monsters, clues and dice are on the three levels."""
    data = model.data
    letters = [LETTER.get(c, str(i)) for i, c in enumerate(colours)]
    out = []
    for lv in data["levels"]:
        lid = lv["id"]
        mons = []
        for m in data["monsters"]:
            spot = m["spots"][lid]
            here = model.monster_spot(m["id"]) == spot
            mons.append(f"{m['name']}:{'X' if here else '.'}")
        clues = []
        for c in data["clue_spots"]:
            if c["level"] == lid:
                clues.append(f"{c['id'].rsplit('_', 1)[1]}:{'#' if model.clue_present[c['id']] else ' '}")
        realm = next(r for r in data["realms"] if r["level"] == lid)
        in_realm = [f"{letters[d.owner]}{d.face}" for d in model.dice
                    if d.where == "realm" and d.realm == realm["id"] and d.owner < len(letters)]
        extra = ""
        if data["summoning_circle"]["level"] == lid:
            d = model.circle_die
            extra = f"   circle: ({letters[d.owner] + str(d.face) if d and d.owner < len(letters) else '  '})"
        loose = [f"{letters[d.owner]}{d.face}" for d in model.dice
                 if d.where == "plain" and d.owner < len(letters)]
        line = (f"  {lid:<6} {lv['name']:<10} {' '.join(mons)}   clues {' '.join(clues)}"
                f"   {realm['name']} x{realm['multiplier']}: {' '.join(in_realm) or '-'}{extra}")
        out.append(line)
        if lid == data["levels"][-1]["id"]:
            out.append(f"  elsewhere on the machine: {' '.join(loose) or '-'}")
    return "\n".join(out)
