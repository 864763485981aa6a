"""``hauntbox devs``, ``hauntbox repl`` and ``hauntbox fs``: what makers know
from mpremote and Thonny, as thin wrappers.

    hauntbox devs [--all] [--hello]        the boards plugged in (pyserial's list_ports,
                                           the Pico's USB vendor id 0x2E8A)
    hauntbox repl [--port auto|PATH]       mpremote's REPL on the board, then back to the game
    hauntbox fs ls [PATH] | cat PATH | get PATH [DEST]   the files on the board, via mpremote

Nothing here speaks the raw REPL: `repl` and `fs` run mpremote (the one next
to this Python), which owns the port while it runs. Both stop the game (the
REPL needs the board's attention); when mpremote is done the game is started
again (`mpremote reset`: the board resumes its saved game) unless `--stay`,
or unless it still answers `hello` (you left the REPL without stopping it).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from hauntbox.cli_style import Parser

EXIT = "exit codes: 0 done; 1 the board or mpremote failed; 2 bad options or no such port"


# ---- devs -------------------------------------------------------------------------------

def list_boards(all_ports: bool = False, comports: Callable[[], list] | None = None) -> list[dict]:
    """The serial ports that are boards (USB vendor id 0x2E8A), or every port with all_ports."""
    from serial.tools import list_ports

    from hauntbox import ports

    out = []
    for p in (comports or list_ports.comports)():
        vid, pid = getattr(p, "vid", None), getattr(p, "pid", None)
        is_pi = vid == ports.PICO_VID
        if is_pi and pid in ports.NOT_A_BOARD:
            kind = ports.NOT_A_BOARD[pid] + " (not a board)"
        elif is_pi:
            kind = ("MicroPython board" if pid == ports.MICROPYTHON_PID
                    else "Raspberry Pi USB device")
        else:
            kind = "other serial port"
        board = is_pi and pid not in ports.NOT_A_BOARD
        if not (board or all_ports):
            continue
        out.append({"device": p.device, "board": board, "kind": kind,
                    "usb": f"{vid:04X}:{pid:04X}" if vid is not None and pid is not None else "",
                    "serial": getattr(p, "serial_number", None) or "",
                    "description": getattr(p, "description", "") or ""})
    return sorted(out, key=lambda d: (not d["board"], d["device"]))


def hello_of(port: str, timeout: float = 1.5) -> str:
    """What the board says to hello, in a few words (the game and build), or why not."""
    from hauntbox.client import Client, ClientError

    c = Client(port, timeout=timeout, reconnect=False)
    try:
        h = c.connect() or {}
    except ClientError as exc:
        return f"no hauntbox answer ({exc})"
    finally:
        c.close()
    return f"hauntbox {h.get('firmware', '?')}, build {h.get('build', '?')}, game {h.get('game')}"


def devs(args: argparse.Namespace, out: Callable[[str], None] = print,
         comports: Callable[[], list] | None = None) -> int:
    found = list_boards(args.all, comports)
    if not any(d["board"] for d in found):
        out("no board found (a Pico running MicroPython has USB vendor id 2E8A; "
            "`hauntbox devs --all` lists every serial port)")
    for d in found:
        bits = [d["kind"]] + [x for x in (d["usb"] and "USB " + d["usb"],
                                          d["serial"] and "serial " + d["serial"],
                                          d["description"] if d["description"] != "n/a" else "")
                              if x]
        line = f"{d['device']}  {', '.join(bits)}"
        if args.hello and d["board"]:
            line += f"  -> {hello_of(d['device'])}"
        out(line)
    return 0


# ---- repl and fs through mpremote ------------------------------------------------------

def _port(spec: str) -> str:
    from hauntbox import ports

    port = ports.resolve_port(spec)
    why = ports.missing_port(port)
    if why:
        raise ports.PortError(why)
    return port


def mpremote_argv(port: str, *args: str) -> list[str]:
    from hauntbox.flash import MPREMOTE, mpremote

    return mpremote(port, *args, prefix=MPREMOTE)


def game_answers(port: str, timeout: float = 2.0) -> bool:
    from hauntbox.client import Client, ClientError

    c = Client(port, timeout=timeout, reconnect=False)
    try:
        c.connect()
        return True
    except ClientError:
        return False
    finally:
        c.close()


def back_to_the_game(port: str, run: Callable[..., Any], say: Callable[[str], None],
                     wait: float = 15.0) -> int:
    """After mpremote: the game runs again (mpremote reset if it does not answer)."""
    if game_answers(port):
        say("back: the game is running")
        return 0
    say("the game is stopped: restarting it (mpremote reset; it resumes the saved game)")
    r = run(mpremote_argv(port, "reset"))
    if r.returncode != 0:
        say(f"mpremote reset failed (exit {r.returncode}): unplug the board and plug it back in")
        return 1
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(0.3)
        if game_answers(port, timeout=1.0):
            say("back: the game is running")
            return 0
    say(f"the game did not answer within {wait:g} s after the reset: "
        f"look with `hauntbox repl --port {port} --stay`")
    return 1


def _run(argv: Sequence[str], capture: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), capture_output=capture, text=True, check=False)


def repl(args: argparse.Namespace, say: Callable[[str], None] = print,
         run: Callable[..., Any] = _run) -> int:
    port = _port(args.port)
    say(f"hauntbox repl: mpremote's REPL on {port}. Ctrl-C stops the game, Ctrl-] leaves"
        + ("." if args.stay else "; then the game starts again."))
    r = run(mpremote_argv(port, "repl"), capture=False)
    if r.returncode != 0:
        say(f"hauntbox repl: mpremote ended with exit {r.returncode}")
        return 1
    return 0 if args.stay else back_to_the_game(port, run, say)


def fs(args: argparse.Namespace, out: Callable[[str], None] = print,
       say: Callable[[str], None] | None = None, run: Callable[..., Any] = _run) -> int:
    say = say or (lambda text: print(text, file=sys.stderr))
    port = _port(args.port)
    path = ":" + (args.path or "").lstrip(":")
    if args.op == "ls":
        cmd = ["fs", "ls", path]
    elif args.op == "cat":
        cmd = ["fs", "cat", path]
    else:
        dest = args.dest or (args.path.rstrip("/").rsplit("/", 1)[-1])
        cmd = ["fs", "cp", path, dest]
    r = run(mpremote_argv(port, *cmd))
    text = (r.stdout or "").rstrip("\n")
    if r.returncode != 0:
        from hauntbox.sanitize import clean
        err = [x for x in ((r.stderr or "") + "\n" + text).splitlines() if x.strip()]
        say(clean(f"hauntbox fs {args.op}: {err[-1] if err else 'mpremote failed'}"))
        rc = 1
    else:
        if text:
            out(text)
        if args.op == "get":
            say(f"copied {path[1:]} to {cmd[-1]}")
        rc = 0
    if not args.stay:
        back = back_to_the_game(port, run, say)
        rc = rc or back
    return rc


# ---- the command line --------------------------------------------------------------------

def build_parser(name: str) -> argparse.ArgumentParser:
    p = Parser(prog=f"hauntbox {name}", epilog=EXIT)
    if name == "devs":
        p.description = ("List the boards plugged in: serial ports with the Raspberry Pi USB "
                         "vendor id 0x2E8A (pyserial's list_ports).")
        p.add_argument("--all", action="store_true", help="every serial port, not only boards")
        p.add_argument("--hello", action="store_true",
                       help="ask each board which game and build it runs")
        return p
    p.add_argument("--port", default="auto", help="'auto' finds the Pico by USB id (default)")
    p.add_argument("--stay", action="store_true",
                   help="leave the board at the REPL afterwards (do not restart the game)")
    if name == "repl":
        p.description = ("mpremote's REPL on the board (Ctrl-C stops the game, Ctrl-] leaves); "
                         "afterwards the game runs again.")
        return p
    p.description = ("The files on the board, through mpremote: ls [PATH], cat PATH, "
                     "get PATH [DEST]. Afterwards the game runs again.")
    p.add_argument("op", choices=("ls", "cat", "get"))
    p.add_argument("path", nargs="?", default="")
    p.add_argument("dest", nargs="?", default=None, help="get: where to write (default: the name)")
    return p


def main_for(name: str, argv: list[str]) -> int:
    from hauntbox import ports

    p = build_parser(name)
    a = p.parse_args(argv)
    if name == "fs" and a.op in ("cat", "get") and not a.path:
        p.error(f"{a.op} needs a PATH on the board")
    if name == "fs" and a.dest is not None and a.op != "get":
        p.error(f"{a.op} takes one PATH")
    try:
        if name == "devs":
            return devs(a)
        return repl(a) if name == "repl" else fs(a)
    except ports.PortError as exc:
        print(f"hauntbox {name}: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("devs", "repl", "fs"):
        print("usage: python -m hauntbox.boards devs|repl|fs ...", file=sys.stderr)
        return 2
    return main_for(argv[0], argv[1:])


if __name__ == "__main__":
    sys.exit(main())
