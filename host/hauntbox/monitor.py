"""``hauntbox monitor``: print a board's events, as readable lines or raw JSON.

    hauntbox monitor                      # the Pico found by USB id
    hauntbox monitor --port /dev/pts/5    # a simulated board (hauntbox sim --pty)
    hauntbox monitor --json               # one JSON line per event, as received

``format_event`` turns one event message into a line of text; the console
uses it for its event pane too. Whatever came from the board is shown with
its control characters escaped (hauntbox_fw.sanitize): in text mode every line
goes through ``clean``; in ``--json`` mode each event is printed re-encoded
as compact ASCII JSON (the same JSON value; ``\\u`` escapes for anything else).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hauntbox_sim.views.names import space_name as sp
from hauntbox_fw.sanitize import clean, safe_json

FACE_NAMES = {"1": "1", "2": "2", "3": "3", "1a": "1 + arrow", "2a": "2 + arrow",
              "ghost": "the ghost"}
DEFAULT_COLOURS = ["red", "blue", "green", "yellow"]


def game_colours(game: str | None = "roller-ghoster") -> list[str]:
    """Seat colours of a game from its data file (firmware/data), or the defaults."""
    try:
        from hauntbox_fw.build import FIRMWARE_DIR

        name = game or "roller-ghoster"     # the data file is named after the game
        data = json.loads((Path(FIRMWARE_DIR) / "data" / f"{name}.json").read_text())
        cols = data["players"]["colours"]
        if isinstance(cols, list) and all(isinstance(c, str) for c in cols):
            return cols
    except Exception:  # noqa: BLE001 - any problem: the default names
        pass
    return list(DEFAULT_COLOURS)


def player_name(p: Any, colours: list[str]) -> str:
    if isinstance(p, int) and 0 <= p < len(colours):
        return colours[p]
    return f"player {p}"


def describe_option(option: Any, colours: list[str]) -> str:
    """A Roller Ghoster option (list) in words; anything else joined with spaces."""
    if not isinstance(option, (list, tuple)) or not option:
        return str(option)
    o = list(option)
    name = o[0]
    path = {"wall": "along the wall", "outer": "along the outer path"}
    if name == "roll" and len(o) == 1:
        return "roll the die"
    if name == "roll" and len(o) == 2:
        return "the die shows " + str(FACE_NAMES.get(o[1], o[1]))
    if name == "move":
        return "move " + path.get(o[1], str(o[1])) if len(o) > 1 else "move"
    if name == "ghost" and len(o) >= 2:
        text = f"push {player_name(o[1], colours)}'s ghost one step"
        if len(o) > 2 and o[2] is not None:
            text += " " + path.get(o[2], str(o[2]))
        return text
    if name == "pass":
        return "pass (no ghost can be pushed)"
    if name == "reroll" and len(o) == 2 and isinstance(o[1], list):
        # Beetlejuice: the dice to roll again, numbered as on the board (from 1)
        return "reroll dice " + ",".join(str(i + 1) for i in o[1] if isinstance(i, int))
    if len(o) == 1 and name in ("confirm", "yes", "no"):
        return str(name)
    if o == ["resume"]:
        return "resume the saved game"
    if o == ["new"]:
        return "start a new game"
    return " ".join(str(x) for x in o)


def describe_prompt(kind: str, player: Any, colours: list[str]) -> str:
    who = player_name(player, colours)
    if kind == "roll":
        return f"{who} to roll"
    if kind == "die":
        return f"{who}: roll the real die, then enter its face"
    if kind == "move":
        return f"{who}: which path?"
    if kind == "ghost":
        return f"{who} rolled the ghost: push a ghost"
    if kind == "resume":
        return "a saved game was found: resume it or start a new one?"
    if kind == "play_again":
        return "game over: another game with the same players?"
    if kind == "refill":
        return "the tower is missing balls: put them back, then confirm"
    if kind == "manual_turn":
        return "the tower jammed: turn it one notch by hand, then confirm"
    if isinstance(kind, str) and kind.startswith("ball_on_"):
        k = kind.rsplit("_", 1)[1]
        return f"beam {k} is stuck: did a ball come down staircase {k}?"
    return f"{who}: {kind}"


def format_event(msg: dict, colours: list[str] | None = None) -> str | None:
    """One event as a line of text (None for events not worth a line)."""
    cols = colours or DEFAULT_COLOURS
    ev = msg.get("ev")
    d = msg.get("data")
    if not isinstance(d, list):
        d = []

    def n(i: int) -> str:
        return player_name(d[i], cols) if len(d) > i else "?"

    def a(i: int) -> Any:
        return d[i] if len(d) > i else "?"

    try:
        if ev == "game":
            return f"new game of {a(0)}: {a(1)} players, {n(2)} starts"
        if ev == "resumed":
            return f"resumed saved game of {a(0)}: {a(1)} players, {n(2)} to play"
        if ev == "turn":
            return f"{n(0)}'s turn"
        if ev == "roll":
            return f"{n(0)} rolls {FACE_NAMES.get(a(1), a(1))}"
        if ev == "move":
            return f"  {n(0)} moves from {sp(a(1))} to {sp(a(2))}"
        if ev == "skip":
            return f"  {n(0)} finds {sp(a(1))} taken, goes on to {sp(a(2))}"
        if ev == "slide":
            return f"  {n(0)} lands on a broken step ({sp(a(1))}) and slides to {sp(a(2))}"
        if ev == "climb":
            return f"  {n(0)} climbs out of {sp(a(1))} onto {sp(a(2))}"
        if ev == "stay":
            return f"  {n(0)} stays in {sp(a(1))}"
        if ev == "rotate":
            return "  the tower turns one notch..."
        if ev == "rotating":
            return None
        if ev == "ball":
            return f"  ball seen on staircase {a(0)}"
        if ev == "rotated":
            counts = a(0) if isinstance(a(0), list) else []
            seen = [f"staircase {k + 1} x{c}" for k, c in enumerate(counts) if c]
            return "  balls down: " + (", ".join(seen) if seen else "none")
        if ev == "balls":
            return None
        if ev == "hit":
            return f"  {n(0)} is knocked off {sp(a(1))} into {sp(a(2))}"
        if ev == "win":
            return f"{n(0).upper()} reaches the top and wins!"
        if ev == "over":
            return "game over" + (f": {n(0)} won" if d and d[0] is not None else "")
        if ev == "fault":
            return f"FAULT {a(0)}: {a(1)}"
        if ev == "reservoir":
            return "the tower is missing balls: put them back"
        if ev == "prompt":
            kind, player, options = a(0), a(1), a(2)
            if len(d) > 3 and d[3] not in (0, None):
                return None  # the highlight moved (LEFT/RIGHT)
            opts = options if isinstance(options, list) else []
            listing = "  ".join(f"{i + 1}) {describe_option(o, cols)}" for i, o in enumerate(opts))
            return f"? {describe_prompt(kind, player, cols)}   {listing}"
        if ev == "selftest":
            r = a(0) if isinstance(a(0), dict) else {}
            probs = r.get("problems") or []
            return "self-test: " + (r.get("result", "?") if not probs else "; ".join(probs))
        if ev == "jogged":
            return f"servo jog {a(0)}: {a(1)} ns for {a(2)} ms: {a(3)}"
        if ev == "service":
            if a(0) == "enter":
                steps = a(1) if isinstance(a(1), list) else []
                return "service mode on: steps " + ", ".join(str(x) for x in steps)
            if a(0) == "leave":
                r = a(1) if isinstance(a(1), dict) else {}
                bad = r.get("failed") or {}
                return f"service mode off: {len(r.get('ok') or [])} ok, {len(bad)} failed" + (
                    " (" + "; ".join(f"{k}: {v}" for k, v in bad.items()) + ")" if bad else "")
            return f"service {a(0)}: {a(1)}"
    except Exception:  # noqa: BLE001 - a malformed event is shown raw
        pass
    return f"{ev} {json.dumps(d)}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hauntbox monitor",
                                description="Print the events a hauntbox board sends.")
    p.add_argument("--port", default="auto",
                   help="serial port, 'auto' (the Pico found by USB id, default) or a pty path")
    p.add_argument("--json", action="store_true", help="print the raw JSON event lines")
    p.add_argument("--count", type=int, default=0, metavar="N",
                   help="stop after N events (default: run until Ctrl-C)")
    p.add_argument("--until-over", action="store_true", help="stop when a game ends")
    p.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for a reply")
    return p


def run_monitor(port: str | Callable[[], str], json_mode: bool = False, count: int = 0,
                until_over: bool = False, out: Callable[[str], None] = print,
                timeout: float = 2.0, stop: threading.Event | None = None,
                open_serial: Any = None) -> int:
    from hauntbox.client import Client, ClientError

    done = stop or threading.Event()
    seen = [0]
    gone = [False]
    colours = [DEFAULT_COLOURS]

    def say(text: str) -> None:
        # Every text line has something from the board in it: cleaned.
        out(clean(text))

    early: list[str] = []       # events that came before the hello answer
    ready = threading.Event()

    lock = threading.Lock()

    def show(text: str) -> None:
        with lock:
            if ready.is_set():
                say(text)
            else:
                early.append(text)

    def on_event(msg: dict) -> None:
        if json_mode:
            out(safe_json(msg))
        else:
            text = format_event(msg, colours[0])
            if text is not None:
                show(text)
        seen[0] += 1
        if (count and seen[0] >= count) or (until_over and msg.get("ev") == "over"):
            done.set()

    def on_status(status: str, detail: str) -> None:
        if status in ("lost", "reconnecting", "gone") and not json_mode:
            say(f"-- {status}: {detail} --")
        if status == "gone":
            gone[0] = True
            done.set()

    def on_resync(h: dict, st: dict) -> None:
        if not json_mode:
            say(f"-- reconnected: build {h.get('build')}, game {h.get('game')} --")

    kw: dict = {}
    if open_serial is not None:
        kw["open_serial"] = open_serial
    c = Client(port, on_event=on_event, on_status=on_status, on_resync=on_resync,
               timeout=timeout, **kw)
    try:
        h = c.connect()
    except ClientError as exc:
        print(clean(f"hauntbox monitor: {exc}"), file=sys.stderr)
        return 1
    assert h is not None
    colours[0] = game_colours(h.get("game"))
    if not json_mode:
        say(f"-- {c.port}: hauntbox firmware {h.get('firmware')}, build {h.get('build')}, "
            f"protocol {h.get('proto')}, game {h.get('game')} --")
        from hauntbox.client import health_summary
        health = health_summary(h)
        if health:
            out(f"-- {health} --")
    with lock:
        for text in early:
            say(text)
        ready.set()
    try:
        c.events(True)
        while not done.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass
    except ClientError as exc:
        print(clean(f"hauntbox monitor: {exc}"), file=sys.stderr)
        return 1
    finally:
        c.close()
    return 1 if gone[0] else 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from hauntbox import ports

    spec = args.port

    def resolve() -> str:
        return ports.resolve_port(spec)

    try:
        resolve()
    except ports.PortError as exc:
        print(f"hauntbox monitor: {exc}", file=sys.stderr)
        return 1

    def out(line: str) -> None:
        print(line, flush=True)

    return run_monitor(resolve, json_mode=args.json, count=args.count,
                       until_over=args.until_over, out=out, timeout=args.timeout)
