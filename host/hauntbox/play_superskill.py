"""``hauntbox play superskill``: Star Trek: Super-Skill Pinball in the terminal.

    hauntbox play superskill --table starfleet-academy --players 3 --humans 2 \\
        --names Ann,Bob --seed 7 --scores ~/.hauntbox/superskill-scores.json
    hauntbox play superskill --table tribbles|lower-decks|borg-attack

Solo or up to four players (humans and bots) share each roll. For the player
to act it shows the backglass (stars, round track, Nudge boxes and amount,
Skill Shots, indicators, Multiball) and the table zone by zone (filled boxes
as ``[##]``, balls as ``(o)``), then the numbered legal moves for the roll.
Enter a number to choose; ``+`` also lists Skill Shot / Nudge moves, ``b``
redraws the board, ``q`` quits (exit 0, nothing recorded). A wrong answer
is said in one line under the prompt, without listing the moves again.
The flags are those of every ``hauntbox play`` (host/hauntbox/cli_style.py):
``--players`` seats in total, ``--humans`` the people among them, taken
first, ``--policy`` the bots'. Everything is read from stdin, so a game can
be scripted by piping its answers in (tests do).

At the end the table's achievements reached are shown and the high-score list
(top 10 per table) and achievement checklist are saved as JSON (``--scores``,
default ``~/.hauntbox/superskill-scores.json``). ``main(argv)`` takes the
arguments after ``play superskill``.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
from pathlib import Path
from typing import IO

from hauntbox import bots_superskill as bots
from hauntbox.stats_superskill import achievements_of
from rules.errors import CHANCE, RuleError
from rules.rng import Rng
from rules.superskill import START, SuperSkillGame

DEFAULT_SCORES = Path.home() / ".hauntbox" / "superskill-scores.json"
TOP_N = 10


class Quit(Exception):
    """The player typed q."""


class InputEnded(Exception):
    """stdin ended before the game did."""


# ---- rendering ----------------------------------------------------------------------

COLOUR_CODE = {"yellow": "Y", "red": "R", "white": "W", "green": "G", "purple": "P",
               "yellow-green": "YG"}

def box_label(f, i: int) -> str:
    return "/".join(str(v) for v in f.faces[i])


def render_feature(g: SuperSkillGame, p: int, f) -> str:
    ps = g.players[p]
    row = ps.filled[f.id]
    cells = []
    varied = f.sequence or len(set(f.stars)) > 1
    for i in range(f.nbox):
        lab = box_label(f, i)
        if varied:
            lab += f":{f.stars[i]}*"
        cells.append("[" + ("#" * len(lab) if row[i] else lab) + "]")
    balls = "".join("(o)" for b in ps.balls if b == f.id)
    col = COLOUR_CODE.get(f.colour, f.colour[:1].upper())
    notes = []
    if f.stars[0] and not varied and f.kind not in ("inlane", "outlane"):
        notes.append(f"{f.stars[0]} star{'s' if f.stars[0] != 1 else ''} each")
    if f.kind == "inlane":
        notes.append(f"{f.stars[0]} stars, to {g.table.fmap[f.to].name}")
    if f.kind == "outlane":
        if f.per_box:
            notes.append(f"{f.per_box} stars per filled flipper box, ball lost")
        else:
            notes.append(f"{f.stars[0]} stars, ball lost"
                         + (" unless the table turns over" if f.rest else ""))
    if f.sequence:
        notes.append("in order")
    if f.acc_from:
        notes.append("only from " + ", ".join(g.table.fmap[x].name for x in f.acc_from
                                              if x in g.table.fmap))
    for t in g.table.arrows.get(f.id, []):
        notes.append("arrow to " + g.table.fmap[t].name)
    note = ("  - " + "; ".join(notes)) if notes else ""
    w = max(16, max(len(x.name) for x in g.table.features) + 1)
    return f"  {f.name:<{w}}{col:<2} {balls:<6}{' '.join(cells)}{note}"


def render_backglass(g: SuperSkillGame, p: int, names: list[str]) -> str:
    t = g.table
    ps = g.players[p]
    track = "".join("●" if r <= ps.round else "○" for r in range(1, t.rounds + 1))
    nud = "".join("[x]" if i < ps.nudges else "[ ]" for i in range(t.nudge_boxes))
    amt = f"amount {ps.namt}" if ps.namt else "no amount"
    sk = " ".join(f"({n})" if n in ps.skills else str(n) for n in t.skill_shots)
    ind = []
    for d in t.indicators:
        on = d.get("option") in ps.flags
        ind.append(f"{d.get('name', d['id'])} {'●' if on else '○'}")
    taken = ", ".join(g.options[k].name for k in ps.taken) or "none"
    lines = [
        f"=== {t.name} - {names[p]} - Round {track} ({ps.round}/{t.rounds}) - "
        f"{ps.stars} stars ===",
        f"  Nudge {nud} {amt}   Skill Shots {sk}   Multiball {'ON' if ps.mb else 'off'}",
    ]
    if ind:
        lines.append("  Indicators: " + "  ".join(ind))
    lines.append(f"  Bonuses taken (once per game): {taken}")
    lines.extend(special_lines(g, p))
    return "\n".join(lines)


def _marks(row) -> str:
    return "".join("#" if v else "." for v in row)


def special_lines(g: SuperSkillGame, p: int) -> list[str]:
    """The backglass parts a table's special rules add."""
    t = g.table
    x = g.players[p].x
    out = []
    if "tribbles" in t.data:
        tr = t.data["tribbles"]["track"]
        cells = []
        for i, sp in enumerate(tr):
            lab = {".": "o", "h": "H", "x": "X"}.get(sp, str(sp)) if isinstance(sp, str) else str(sp)
            cells.append(f"[{lab}]" if i < x["n"] else f" {lab} ")
        out.append(f"  Tribble Track ({x['n']}/{len(tr)}, [ ] filled, H hand, X ends the round):")
        for k in range(0, len(cells), 20):
            out.append("    " + "".join(cells[k:k + 20]))
        pend = [n for n, k in (("Next Spinner x3", "nspin"), ("Next Scoop x3", "nscoop"),
                               ("Next Tribble Bonus x2", "nbonus")) if x[k]]
        out.append(f"  Tribble Scored {'[#]' if x['scored'] else '[ ]'}"
                   + (f"   pending: {', '.join(pend)}" if pend else ""))
    if "lower_decks" in t.data:
        o = t.orient(x["orient"])
        crew = []
        for who in ("tendi", "boimler"):
            crew.append(f"{who.title()} " + ("-", "ACTIVE", "used")[x[who]])
        left = t.data["lower_decks"]["mariner_boxes"] - x["mboxes"]
        crew.append("Mariner " + (f"{left} changes left" if x["mariner"] else "-"))
        crew.append("Rutherford " + ("recruited" if x["ruth"] else "-"))
        ind = " ".join(f"{n}{'#' if v else '.'}" for n, v in zip(("PRO", "MOT", "ION"), x["ind"]))
        rep = ("off", "ACTIVE until the next flip", "starts at the flip")[x["rep"]]
        out.append(f"  Gravity: {o['name']}   Tilts {x['tilts']}/3   Replicator bonus {rep}")
        out.append(f"  Crew: {'; '.join(crew)}   Promotion {ind}")
    if "borg" in t.data:
        ships = []
        for k in range(1, len(x["ships"]) + 1):
            if not x["ships"][k - 1]:
                st = "/" if not x["battle"] else "X"
            elif x["dead"][k - 1]:
                st = "X"
            else:
                st = "S" if not x["shield"][k - 1] else "s"
            ships.append(f"{k}:{st}{'T' if x['torp'][k - 1] else ''}")
        out.append(f"  Ships (/ not recruited, S shields up, s shields down, X gone, T torpedo): "
                   f"{' '.join(ships)}")
        out.append(f"  Civilians {x['civ']}/{t.data['borg']['civilian_track']}"
                   f" (rescued {x['rescued']})   Modulations {x['mods']}"
                   f"   Adaptation {_marks(x['adapt'])}   Cubes destroyed {x['cubes']}")
        if x["battle"]:
            from rules.superskill import borg_attack as ba
            cube = ba.cube_of(g)
            where = "not placed" if x["pos"] < 0 else ("on the Cube" if x["pos"] == 0
                                                      else f"on Ship {x['pos']}")
            out.append(f"  Borg Cube (ball {where}; [n] open, (n) exposed, ## hit;"
                       f" colour w/g adapt/y modulation):")
            for r in range(cube.top, -1, -1):
                cells = []
                for k in range(cube.n):
                    if cube.row[k] != r:
                        continue
                    lab = f"{cube.val[k]}{cube.col[k]}"
                    if x["cube"][k]:
                        cells.append("[##]")
                    elif ba.exposed(cube, x["cube"], k):
                        cells.append(f"({lab})")
                    else:
                        cells.append(f"[{lab}]")
                pad = " " * (2 * (cube.at[[k for k in range(cube.n) if cube.row[k] == r][0]] % 2))
                out.append(f"    row {r + 1}: " + pad + " ".join(cells))
    return out


def render_table(g: SuperSkillGame, p: int, names: list[str]) -> str:
    t = g.table
    ps = g.players[p]
    out = [render_backglass(g, p, names)]
    if "borg" in t.data and ps.x.get("battle"):
        return "\n".join(out)     # the battle is played on the backglass only
    out.append("  (faces: Y yellow, R red, W white, G green, P purple; [##] filled; (o) ball;"
               " n:s* face n worth s stars)")
    if START in ps.balls:
        out.append(f"  {t.start_name}: (o)")
    zones = t.zones
    if len(t.orients) > 1:
        zones = sorted(t.zones, key=lambda z: t.orient(g.hooks.orientation(g, p))["level"][z])
    for z in zones:
        out.append(t.zone_names[z])
        for f in t.features:
            if f.zone == z:
                out.append(render_feature(g, p, f))
    return "\n".join(out)


def describe(g: SuperSkillGame, a: tuple) -> str:
    t = g.table
    if a[0] == "fill":
        _, b, d, s, n, fid, i = a
        f = t.fmap[fid]
        base = s if s else g.dice[d]
        v = base + n
        how = [f"die {g.dice[d]}"] if not s else [f"Skill Shot {s} (instead of {g.dice[d]})"]
        if n:
            how.append(f"nudge {'+' if n > 0 else ''}{n} to {v} (tilt risk amount {abs(n)})")
        ball = f"ball {b + 1}: " if len(g.players[g.to_act].todo) > 1 or b else ""
        extra = ""
        if f.kind == "outlane":
            extra = " - ball lost" + (" unless the table turns over" if f.rest else "")
        elif f.kind == "inlane":
            extra = f" - onto {t.fmap[f.to].name}"
        return f"{ball}{', '.join(how)} -> {f.name} [{box_label(f, i)}]{extra}"
    if a[0] == "through":
        _, b, d, s, n, sf, sb, fid, i = a
        f = t.fmap[fid]
        base = s if s else g.dice[d]
        how = f"die {g.dice[d]}" if not s else f"Skill Shot {s} (instead of {g.dice[d]})"
        if n:
            how += f", nudge {'+' if n > 0 else ''}{n} to {base + n}"
        u = g.dice[1 - d]
        spin = f"fill spinner {u}" if sb >= 0 else f"spinner {u} not filled"
        return f"{how} -> through {t.fmap[sf].name} ({spin}) -> {f.name} [{box_label(f, i)}]"
    if a[0] == "wild":
        _, b, d, src, v, fid, i = a
        f = t.fmap[fid]
        return f"{src.title()} changes the {g.dice[d]} to {v} -> {f.name} [{box_label(f, i)}]"
    if a[0] == "borg":
        _, d, s, n, kind, k = a
        base = s if s else g.dice[d]
        how = f"die {g.dice[d]}" if not s else f"Skill Shot {s} (instead of {g.dice[d]})"
        if n:
            how += f", nudge {'+' if n > 0 else ''}{n} to {base + n}"
        if kind == "ship":
            dest = f"Ship {k}"
        else:
            from rules.superskill import borg_attack as ba
            cube = ba.cube_of(g)
            dest = f"Cube row {cube.row[k] + 1} block {cube.val[k]}"
        return f"{how} -> {dest}; the Borg attack with the {g.dice[1 - d]}"
    if a[0] == "choose":
        return describe_choice(g, a)
    if a[0] == "pass":
        return "nothing more before the roll"
    if a[0] == "modulate":
        what = "raise all shields" if a[1] == "shields" else "clear the Adaptation track"
        return f"spend a Modulation: {what}"
    if a[0] == "drain":
        return f"lose ball {a[1] + 1} (no box for the dice)"
    if a[0] == "bonus":
        return f"bonus: {g.menus[a[1]].omap[a[2]].name}" if a[2] in g.menus[a[1]].omap \
            else f"bonus: {a[2]}"
    if a[0] == "skill":
        return f"circle Skill Shot {a[1]}"
    return " ".join(str(x) for x in a)


def describe_choice(g: SuperSkillGame, a: tuple) -> str:
    t = g.table
    k = a[1]
    if k == "hand":
        f = t.fmap[a[2]]
        return f"hand: fill {f.name} [{box_label(f, a[3])}] (no stars)"
    if k == "scoop":
        q = g.players[g.to_act].queue[0]
        return f"{a[2]} {q[2]} tribbles"
    if k == "transport":
        return f"transport {a[2]} tribbles away"
    if k == "doubles":
        return "gain the doubles' tribbles" if a[2] == "gain" else "Tribble Control: gain none"
    if k in ("crew", "holo"):
        return f"reset {a[2].title()}" if a[2] else "keep the Holodeck reset for later"
    if k == "promo":
        f = t.fmap[a[2]]
        return f"fill Promotion target {f.name} [{box_label(f, a[3])}]"
    if k == "recruit":
        return f"recruit Ship {a[2]}"
    if k == "load":
        return f"load a Photon Torpedo into Ship {a[2]}"
    if k == "beacon":
        return f"fill BEACON target {t.fmap[a[2]].name}"
    if k == "place":
        return f"start the battle on Ship {a[2]}"
    if k == "torpedo":
        if a[2] < 0:
            return "keep the torpedo"
        from rules.superskill import borg_attack as ba
        cube = ba.cube_of(g)
        return f"fire the torpedo at block {cube.val[a[2]]} (row {cube.row[a[2]] + 1})"
    if k == "attack":
        q = g.players[g.to_act].queue[0]
        if a[2] == 0 and a[3] == 0:
            return f"let the Borg attack with the {q[2]}"
        v = (a[2] or q[2]) + a[3]
        how = f"Skill Shot {a[2]}" if a[2] else f"nudge {'+' if a[3] > 0 else ''}{a[3]}"
        return f"{how}: the Borg attack with {v} instead of {q[2]}"
    return " ".join(str(v) for v in a)


EFFECT_TEXT = {
    "tribble_x": "the Tribble Track is full (X): the round ends!",
    "crew": "recruits {2}", "crew_reset": "resets {2}", "indicator": "{2} indicator lit",
    "gravity": "the table turns over ({2} at the bottom)", "recruit": "Ship {2} recruited",
    "torpedo_loaded": "torpedo loaded into Ship {2}", "adapt": "the Borg adapt to {2}",
    "modulations": "Modulations: {2}", "cube_destroyed": "BORG CUBE DESTROYED ({2})",
    "civilians": "+{2} civilians ({3} on the track)", "rescued": "{2} civilians rescued",
    "attack": "Borg attack {2}: {3}", "battle": "the Borg Battle begins (ships {2})",
    "spin": "through the spinner with the {4}", "wild": "{2} turns the {3} into {4}",
    "replicator": "Replicator complete", "modulate": "Modulation spent: {2}",
}


def describe_effects(g: SuperSkillGame, eff: list, names: list[str]) -> list[str]:
    out = []
    for e in eff:
        k = e[0]
        if k == "stars":
            out.append(f"{names[e[1]]}: +{e[2]} stars ({e[3]})")
        elif k == "tilt":
            out.append(f"{names[e[1]]}: TILT! (nudge amount {e[2]}, dice differ by {e[3]})")
        elif k == "ball_lost":
            out.append(f"{names[e[1]]}: ball lost ({e[3]})")
        elif k == "round_start":
            out.append(f"{names[e[1]]}: round {e[2]} starts - ball on the Start Arrow")
        elif k == "set_complete":
            out.append(f"{names[e[1]]}: {g.table.smap[e[2]].name} complete!")
        elif k == "multiball":
            out.append(f"{names[e[1]]}: MULTIBALL - second ball on the Start Arrow")
        elif k == "multiball_end":
            out.append(f"{names[e[1]]}: Multiball over")
        elif k == "skill_shot":
            out.append(f"{names[e[1]]}: Skill Shot {e[2]} circled")
        elif k == "player_over":
            out.append(f"{names[e[1]]}: game over with {e[2]} stars")
        elif k == "tribbles" and e[2]:
            out.append(f"{names[e[1]]}: {'+' if e[2] > 0 else ''}{e[2]} tribbles ({e[3]} on the track)")
        elif k == "transport":
            out.append(f"{names[e[1]]}: transports {e[2]} tribbles"
                       + (f", {e[4]} to each of " + ", ".join(names[q] for q in e[3])
                          if e[3] else " away"))
        elif k in EFFECT_TEXT:
            out.append(f"{names[e[1]]}: " + EFFECT_TEXT[k].format(*[str(v) for v in e]))
    return out


# ---- scores file ------------------------------------------------------------------------

def load_scores(path: Path, err: IO) -> dict:
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
            raise ValueError("not a scores file")
        return data
    except FileNotFoundError:
        return {"version": 1, "tables": {}}
    except (ValueError, OSError) as e:
        print(f"warning: ignoring unreadable scores file {path}: {e}", file=err)
        return {"version": 1, "tables": {}}


def save_scores(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


def record_game(data: dict, g: SuperSkillGame, names: list[str], humans: list[bool],
                when: str) -> tuple[list[int], list[str]]:
    """Add human scores and achievements; return (ranks made, achievements new to the table)."""
    tab = data["tables"].setdefault(g.table.id, {"high_scores": [], "achievements": {}})
    hs = tab.setdefault("high_scores", [])
    ach = tab.setdefault("achievements", {})
    entries = []
    for p, ps in enumerate(g.players):
        if not humans[p]:
            continue
        e = {"name": names[p], "stars": ps.stars, "date": when, "players": len(g.players)}
        hs.append(e)
        entries.append(e)
    hs.sort(key=lambda e: -e["stars"])
    del hs[TOP_N:]
    ranks = [hs.index(e) + 1 for e in entries if e in hs]
    new = []
    for p, ps in enumerate(g.players):
        if not humans[p]:
            continue
        for a in achievements_of(g.table.id, ps.x):
            if a not in ach:
                ach[a] = {"by": names[p], "date": when}
                new.append(a)
    return ranks, new


# ---- the game loop -------------------------------------------------------------------------

PROG = "hauntbox play superskill"
KEYS = "number = choose, + = more moves (Skill Shots / Nudges), b = the board again, q = quit"


def parse_args(argv: list[str]) -> argparse.Namespace:
    from hauntbox.cli_style import Parser, policies, renamed

    p = Parser(prog=PROG, description="Star Trek: Super-Skill Pinball in the terminal. "
               f"Keys: {KEYS} (nothing recorded).")
    p.add_argument("--table", default="starfleet-academy", help="table id or data file")
    p.add_argument("--players", type=int, default=None,
                   help="seats in total, humans and bots (1..4; default: the humans)")
    p.add_argument("--humans", type=int, default=None,
                   help="seats played at the keyboard, taken first (default 1, or the "
                        "number of --names)")
    p.add_argument("--names", default=None, help="comma-separated seat names, in seat order")
    p.add_argument("--bots", type=int, default=None, help=argparse.SUPPRESS)   # old style
    p.add_argument("--policy", action="append", metavar="P[,P...]",
                   help="the bots' policy, greedy, lookahead or random; a comma list gives "
                        "one per bot seat, cycling (default lookahead)")
    p.add_argument("--seed", type=int, default=None, help="seed for the dice (default: clock)")
    p.add_argument("--dice", choices=["auto", "manual"], default="auto",
                   help="auto: the program rolls; manual: type each roll (e.g. '3 5')")
    p.add_argument("--scores", default=None, help=f"high-score file (default {DEFAULT_SCORES})")
    a = p.parse_args(renamed(argv, {"--bot-policy": "--policy"}, PROG))
    a.policy = policies(a.policy) or ["lookahead"]
    bad = [x for x in a.policy if x not in ("greedy", "lookahead", "random")]
    if bad:
        p.error(f"--policy {bad[0]}: choose greedy, lookahead or random")
    names = [n.strip() for n in a.names.split(",") if n.strip()] if a.names else []
    if a.bots is not None:
        # The old style: --players (or --names) counted the humans, --bots was added.
        humans = a.players if a.players is not None else (len(names) or (0 if a.bots else 1))
        print(f"{PROG}: --bots is now --players TOTAL --humans H (here: --players "
              f"{humans + a.bots} --humans {humans}; the old form still works, for now)",
              file=sys.stderr)
        a.players, a.humans = humans + a.bots, humans
    if a.humans is None:
        a.humans = min(len(names), a.players) if names and a.players else (len(names) or 1)
    if a.players is None:
        a.players = max(a.humans, len(names), 1)
    if not 1 <= a.players <= 4:
        p.error("--players must be 1..4")
    if not 0 <= a.humans <= a.players:
        p.error("--humans must be 0..players")
    if len(names) > a.players:
        p.error(f"--names gives {len(names)} names for {a.players} seat(s)")
    a.human_names = (names + [f"Player {i + 1}" for i in range(len(names), a.humans)])[:a.humans]
    a.bot_names = names[a.humans:] + [f"Bot {i + 1}" for i in range(len(names[a.humans:]),
                                                                      a.players - a.humans)]
    a.bots = a.players - a.humans
    return a


class Console:
    def __init__(self, stdin: IO, stdout: IO):
        self.inp = stdin
        self.out = stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def ask(self, prompt: str) -> str:
        print(prompt, end="", file=self.out, flush=True)
        line = self.inp.readline()
        if not line:
            raise InputEnded()
        line = line.strip()
        if line.lower() in ("q", "quit", "exit"):
            raise Quit()
        return line


def choose_roll(con: Console, rng: Rng | None) -> tuple:
    if rng is not None:
        return ("roll", 1 + rng.below(6), 1 + rng.below(6))
    while True:
        s = con.ask("Roll (two dice, e.g. 3 5): ").replace(",", " ").split()
        if len(s) == 2 and all(x.isdigit() and 1 <= int(x) <= 6 for x in s):
            return ("roll", int(s[0]), int(s[1]))
        con.say("  two numbers from 1 to 6, please")


CHOICE_TITLE = {
    "hand": "a hand on the Tribble Track: fill a Flipper Zone box",
    "scoop": "fill or erase tribbles", "transport": "how many tribbles to transport",
    "doubles": "Tribble Control", "crew": "reset a Crewman", "holo": "Holodeck: reset a Crewman",
    "promo": "fill a Promotion target", "recruit": "recruit a Ship",
    "load": "load a Photon Torpedo", "beacon": "fill a BEACON target",
    "place": "place the ball on a Ship", "torpedo": "fire the Photon Torpedo?",
    "attack": "the Borg attack",
}


def choose_human(con: Console, g: SuperSkillGame, names: list[str]) -> tuple:
    p = g.to_act
    acts = g.legal_actions()
    show_all = False
    redraw = True
    listing = True
    while True:
        if redraw:
            con.say(render_table(g, p, names))
            redraw = False
            listing = True
        plain = [a for a in acts if bots._is_plain(a)]
        listed = acts if show_all or not plain else plain
        hidden = len(acts) - len(listed)
        head = f"{names[p]} - roll {g.dice[0]} and {g.dice[1]}"
        if g.phase == "bonus":
            head += f" - choose a {g.menus[g.players[p].queue[0][1]].name} bonus"
        elif g.phase == "skill":
            head += " - circle a Skill Shot number"
        elif g.phase == "choice":
            head += f" - {CHOICE_TITLE.get(g.players[p].queue[0][1], 'choose')}"
        elif g.phase == "preroll":
            head = f"{names[p]} - before the next roll"
        if listing:
            con.say(head)
            for i, a in enumerate(listed, 1):
                con.say(f"  {i:3d}) {describe(g, a)}")
            if hidden:
                con.say(f"    +) show {hidden} more moves using Skill Shots / Nudges")
            con.say(f"  ({KEYS})")
            listing = False
        s = con.ask("> ")
        if s == "+":
            show_all = listing = True
            continue
        if s == "b":
            redraw = True
            continue
        if s.isdigit() and 1 <= int(s) <= len(listed):
            return listed[int(s) - 1]
        # Said right under the prompt: the list stays where it is, above.
        con.say(f"  {s!r} is not a move: enter one of the numbers 1..{len(listed)}, "
                "+ (more moves), b (the board again) or q (quit)")


def main(argv: list[str], stdin: IO | None = None, stdout: IO | None = None) -> int:
    """Entry point for ``hauntbox play superskill ...``; returns an exit code."""
    a = parse_args(argv)
    con = Console(stdin or sys.stdin, stdout or sys.stdout)
    try:
        cfg = bots.load_table(a.table)
    except ValueError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    names = list(a.human_names) + list(a.bot_names)
    humans = [True] * len(a.human_names) + [False] * a.bots
    seed = a.seed if a.seed is not None else int(_dt.datetime.now().timestamp())
    rng = Rng(seed) if a.dice == "auto" else None
    bot_pol = [bots.make_policy(a.policy[max(0, i - len(a.human_names)) % len(a.policy)],
                                seed * 31 + i) for i in range(len(names))]
    g = SuperSkillGame(cfg, len(names))
    con.say(f"Star Trek: Super-Skill Pinball - {g.table.name}; players: {', '.join(names)}"
            + (f"; dice seed {seed}" if rng else ""))
    try:
        while not g.is_over():
            if g.to_act == CHANCE:
                act = choose_roll(con, rng)
                con.say(f"\n--- roll {g.roll_no + 1}: {act[1]} and {act[2]} ---")
            elif humans[g.to_act]:
                act = choose_human(con, g, names)
            else:
                act = bot_pol[g.to_act](g)
                con.say(f"{names[g.to_act]}: {describe(g, act)}")
            try:
                eff = g.apply(act)
            except RuleError as e:   # cannot happen with listed moves; keep the game alive
                con.say(f"  not allowed: {e}")
                continue
            for line in describe_effects(g, eff, names):
                con.say("  " + line)
    except Quit:
        con.say("\nGoodbye: game abandoned, nothing recorded.")
        return 0
    except InputEnded:
        con.say("\n(input ended before the game did: nothing recorded)")
        return 1
    con.say("\n=== GAME OVER ===")
    order = sorted(range(len(names)), key=lambda p: -g.players[p].stars)
    for p in order:
        con.say(f"  {names[p]:<12} {g.players[p].stars:4d} stars"
                f"  (finished on roll {g.players[p].fin})")
    w = g.winners()
    con.say("Winner: " + " and ".join(names[p] for p in w) + (" (shared)" if len(w) > 1 else ""))
    titles = {x["id"]: x["name"] for x in g.table.achievements}
    for p in range(len(names)):
        got = achievements_of(g.table.id, g.players[p].x)
        if got:
            con.say(f"  {names[p]} achievements: " + "; ".join(titles.get(x, x) for x in got))
    if any(humans):
        path = Path(a.scores).expanduser() if a.scores else DEFAULT_SCORES
        data = load_scores(path, sys.stderr)
        when = _dt.date.today().isoformat()
        ranks, new = record_game(data, g, names, humans, when)
        try:
            save_scores(path, data)
        except OSError as e:
            print(f"warning: could not save scores to {path}: {e}", file=sys.stderr)
        for r in ranks:
            con.say(f"  High score list: place {r}!")
        for x in new:
            con.say(f"  New achievement for this table: {titles.get(x, x)}")
        tab = data["tables"][g.table.id]
        con.say(f"High scores - {g.table.name}:")
        for i, e in enumerate(tab["high_scores"], 1):
            con.say(f"  {i:2d}. {e['name']:<12} {e['stars']:4d}  {e['date']}")
        con.say("Achievements: " + ", ".join(
            f"[{'x' if x['id'] in tab['achievements'] else ' '}] {x['name']}"
            for x in g.table.achievements))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
