"""The ``hauntbox`` command: one entry point for every host tool.

    hauntbox devs [--all] [--hello]                 the boards plugged in (USB id 0x2E8A)
    hauntbox flash [--dry-run] [--port auto|PATH]   build and copy the firmware (docs/flashing.md)
    hauntbox console [--port auto|PATH|sim]         play and watch a board (docs/console.md)
    hauntbox monitor [--port ...] [--json]          print a board's events
    hauntbox web [--port auto|PATH|sim]             the board live in a browser (docs/web.md)
    hauntbox sim [...]                              a whole game on the simulated board
    hauntbox sim --pty [...]                        the simulated board on a pseudo-terminal
    hauntbox sim --pico [--pty] [...]               the same on the emulated Pico (official rp2 firmware)
    hauntbox repl [--port ...]                      mpremote's REPL on the board, then back to the game
    hauntbox fs ls|cat|get PATH [--port ...]        the files on the board (mpremote)
    hauntbox pins ...                               pin maps
    hauntbox check ...                              simulator accuracy checks
    hauntbox stats beetlejuice|superskill ...       statistics over many simulated games
    hauntbox play beetlejuice|superskill ...        play a game in the terminal

Subcommands are imported only when used, so a missing optional module only
breaks its own subcommand, with a message saying so.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from hauntbox import __version__

#: name -> (module, help); the module's main(argv) does the work.
DELEGATES: dict[str, tuple[str, str]] = {
    "flash": ("hauntbox.flash", "build the firmware and copy it onto a Pico (mpremote)"),
    "console": ("hauntbox.console", "play and watch a board: game, events, prompt"),
    "monitor": ("hauntbox.monitor", "print a board's events (readable or --json)"),
    "web": ("hauntbox.web.server", "the board live in a browser: drawing, prompt buttons, log"),
    "sim": ("hauntbox_sim.cli", "play a game on the simulated board; --pty: serve it on a pseudo-terminal"),
    "pins": ("hauntbox_fw.pinmap", "show and check the pin maps of the hardware builds"),
    "check": ("hauntbox_sim.checks.accuracy", "accuracy checks of the firmware's sensing on the simulator"),
}
#: name -> help; hauntbox.boards.main_for(name, argv) does the work (thin mpremote wrappers).
BOARD_TOOLS: dict[str, str] = {
    "devs": "list the boards plugged in (serial ports with the Pico's USB id 0x2E8A)",
    "repl": "mpremote's REPL on the board (Ctrl-] leaves), then back to the game",
    "fs": "the files on the board: ls [PATH], cat PATH, get PATH [DEST] (mpremote)",
}
#: name -> (module pattern, help, games)
PER_GAME: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "stats": ("hauntbox.stats_{game}", "statistics over many simulated games",
              ("beetlejuice", "superskill")),
    "play": ("hauntbox.play_{game}", "play a game in the terminal against bots",
             ("beetlejuice", "superskill")),
}


class Unavailable(Exception):
    """The module behind a subcommand is not part of this installation."""


def load_main(module: str) -> Callable[..., int | None]:
    """``module.main``, or Unavailable if the module itself is missing."""
    if module.startswith("hauntbox_sim."):
        from hauntbox_fw.paths import prepend_firmware

        prepend_firmware()   # first, never after site-packages: Blinka's `board` would win
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == module or module.startswith(missing + "."):
            raise Unavailable(f"module {module} is not installed") from None
        raise
    fn = getattr(mod, "main", None)
    if not callable(fn):
        raise Unavailable(f"module {module} has no main()")
    return fn


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hauntbox",
        description="Host tools for hauntbox, the MicroPython game controller: flash a Pico, "
                    "talk to it, simulate it.",
        epilog="`hauntbox COMMAND --help` shows the options of one command.",
    )
    p.add_argument("--version", action="version", version=f"hauntbox {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, text) in DELEGATES.items():
        sub.add_parser(name, help=text, add_help=False)
    for name, text in BOARD_TOOLS.items():
        sub.add_parser(name, help=text, add_help=False)
    for name, (_, text, games) in PER_GAME.items():
        sub.add_parser(name, help=f"{text}: {' | '.join(games)}", add_help=False)
    return p


def _run(name: str, module: str, argv: list[str]) -> int:
    try:
        fn = load_main(module)
    except Unavailable as exc:
        print(f"hauntbox {name}: not available in this installation ({exc})", file=sys.stderr)
        return 2
    try:
        rc = fn(argv)
    except SystemExit as exc:  # argparse --help / errors inside the subcommand
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `hauntbox stats ... | head`: the reader left; nothing more to say.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return rc if isinstance(rc, int) else 0


def _sim(argv: list[str]) -> int:
    if "--pico" in argv:
        if "--pty" in argv:
            return _run("sim --pico --pty", "hauntbox_sim.pico.pty", argv)
        return _run("sim --pico", "hauntbox_sim.pico.cli", [a for a in argv if a != "--pico"])
    if "--pty" in argv:
        return _run("sim --pty", "hauntbox_sim.boards.pty", [a for a in argv if a != "--pty"])
    rc = _run("sim", "hauntbox_sim.cli", argv)
    if "-h" in argv or "--help" in argv:
        print("\nWith --pty the simulated board runs in real time behind a pseudo-terminal, "
              "for `hauntbox console` and `hauntbox monitor`: see `hauntbox sim --pty --help`.")
    return rc


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "--version"):
        parser = build_parser()
        if not args:
            parser.print_help()
            return 2
        try:
            parser.parse_args(args)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 0
        return 0
    name, rest = args[0], args[1:]
    if name == "sim":
        return _sim(rest)
    if name in DELEGATES:
        return _run(name, DELEGATES[name][0], rest)
    if name in BOARD_TOOLS:
        from hauntbox.boards import main_for
        try:
            return main_for(name, rest)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 0
        except KeyboardInterrupt:
            return 130
    if name in PER_GAME:
        pattern, text, games = PER_GAME[name]
        if not rest or rest[0] in ("-h", "--help"):
            print(f"usage: hauntbox {name} {{{','.join(games)}}} [options]\n\n{text}.\n"
                  f"`hauntbox {name} GAME --help` shows the options for one game.")
            return 0 if rest else 2
        game = rest[0]
        if game not in games:
            print(f"hauntbox {name}: unknown game {game!r}; choose one of: {', '.join(games)}",
                  file=sys.stderr)
            return 2
        return _run(f"{name} {game}", pattern.format(game=game), rest[1:])
    build_parser().print_usage(sys.stderr)
    print(f"hauntbox: unknown command {name!r}; see `hauntbox --help`", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
