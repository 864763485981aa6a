"""A simulated board on a pseudo-terminal: `hauntbox sim --pty`.

The unmodified firmware runs on the simulated Roller Ghoster tower with the
clock in realtime mode, and its host link (firmware/games/link_core.py's `Link`
with firmware/protocol.py) is served on a pseudo-terminal, so `hauntbox
console`, `hauntbox monitor` and the Client connect to the printed path exactly
as to a Pico's USB serial port:

    $ hauntbox sim --pty
    board on /dev/pts/5
    $ hauntbox console --port /dev/pts/5        # in another terminal

Only the byte transport differs from the Pico: `FdTransport` reads the pty
master with `loop.add_reader` and writes without blocking (a bounded backlog,
whole lines dropped when no one reads), where the Pico reads sys.stdin.

Without `--bots` the people at the console make every decision (the roll
included); the simulated hands still do the physical chores the firmware asks
for (turning a jammed tower by hand, putting balls back). With `--bots N` the
last N seats are simulated players pressing the simulated buttons.
"""
from __future__ import annotations

from hauntbox_fw.games import game_arg
import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import threading
import tty
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.core.clock import VirtualClock
from hauntbox_sim.players.buttons import ButtonPlayers

FIRMWARE = sim_install.FIRMWARE
GAMES = ("roller-ghoster", "haunted-house", "beetlejuice", "superskill")
#: Players a first game may have, per game (firmware/games/registry.py PLAYERS).
PLAYERS = {"roller-ghoster": (2, 4), "haunted-house": (1, 4), "beetlejuice": (1, 6),
           "superskill": (1, 4)}


class FdTransport:
    """Bytes in and out of a file descriptor (the pty master), never blocking.

    Like the Pico's link (firmware/games/link_core.py, PollingWriter): events
    that do not fit the backlog are dropped whole; replies are always kept,
    and while `pause_at` bytes or more wait for the host the board stops
    reading the pty, so a host that floods it with requests is held back by
    the pty's own buffer (its write waits) instead of losing replies.
    """

    READ_SIZE = 1024

    def __init__(self, fd: int, max_backlog: int = 16384, pause_at: int = 4096) -> None:
        self.fd = fd
        self.max_backlog = max_backlog
        self.pause_at = pause_at
        self.backlog = bytearray()
        self.dropped_lines = 0
        self.pauses = 0                 # times reading stopped for waiting replies
        self.loop: asyncio.AbstractEventLoop | None = None
        self.link: Any = None
        self.filter: Any = None
        self._writer_on = False
        self._reader_on = False

    def attach(self, loop: asyncio.AbstractEventLoop, link: Any) -> None:
        self.loop = loop
        self.link = link
        self._reading(True)

    def detach(self) -> None:
        if self.loop is not None:
            self._reading(False)
            if self._writer_on:
                self.loop.remove_writer(self.fd)
                self._writer_on = False
        self.loop = None

    def _reading(self, on: bool) -> None:
        if self.loop is None or on == self._reader_on:
            return
        if on:
            self.loop.add_reader(self.fd, self._readable)
        else:
            self.loop.remove_reader(self.fd)
        self._reader_on = on

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, self.READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            return  # EIO: no terminal side; nothing to read
        if data and self.filter is not None:
            data = self.filter(data)      # sim/inject.py answers the `sim` requests
        if data and self.link is not None:
            self.link.receive(data)

    def write(self, line: bytes) -> None:
        """An event: dropped whole when the backlog is full."""
        if self.backlog and len(self.backlog) + len(line) > self.max_backlog:
            self.dropped_lines += 1
            return
        self._put(line)

    def write_reply(self, line: bytes) -> None:
        """A reply: always kept; reading pauses while replies wait."""
        self._put(line)
        if len(self.backlog) >= self.pause_at and self._reader_on:
            self.pauses += 1
            self._reading(False)

    def _put(self, line: bytes) -> None:
        if self.backlog:
            self.backlog += line
            return
        try:
            n = os.write(self.fd, line)
        except (BlockingIOError, InterruptedError):
            n = 0
        if n < len(line):
            self.backlog += line[n:]
            if self.loop is not None and not self._writer_on:
                self.loop.add_writer(self.fd, self._flush)
                self._writer_on = True

    def _flush(self) -> None:
        try:
            n = os.write(self.fd, bytes(self.backlog))
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            n = len(self.backlog)
        del self.backlog[:n]
        if len(self.backlog) < self.pause_at and self.link is not None:
            self._reading(True)
        if not self.backlog and self.loop is not None and self._writer_on:
            self.loop.remove_writer(self.fd)
            self._writer_on = False


class SeatBots(ButtonPlayers):
    """Simulated players for some seats only; people (via the host) play the others."""

    def __init__(self, *args: Any, seats: set[int], **kw: Any) -> None:
        self.seats = seats
        super().__init__(*args, **kw)

    def on_event(self, ev: tuple) -> None:
        if ev[0] == "prompt" and ev[2] not in self.seats:
            return
        super().on_event(ev)


class Hands:
    """What people at the table do physically when a person (not a bot) is asked."""

    def __init__(self, tower: Any, seats: set[int]) -> None:
        self.tower = tower
        self.seats = seats

    def __call__(self, ev: tuple) -> None:
        if ev[0] != "prompt" or ev[2] in self.seats or ev[4] != 0:
            return
        clk = runtime.clock()
        if ev[1] == "manual_turn":
            clk.after_ms(300, self.tower.turn_by_hand)
        elif ev[1] == "refill":
            clk.after_ms(300, self.tower.refill)


@dataclass
class BoardOptions:
    game: str = "roller-ghoster"
    players: int = 2
    seed: int = 1
    bots: int = 0
    noise: str = "none"
    faults: list[str] = field(default_factory=list)
    policies: list[str] = field(default_factory=lambda: ["bold", "safe", "random", "bold"])
    state_dir: str | None = None
    link: str | None = None
    reservoir: bool = False
    fast: bool = False
    settle_ms: int | None = None
    die_ms: int | None = None
    quiet: bool = False


class PtyBoard:
    """The simulated board plus its pseudo-terminal; run() blocks until stopped."""

    def __init__(self, opts: BoardOptions, out: Any = None) -> None:
        self.opts = opts
        self.out = out or sys.stdout
        self.master = -1
        self.slave = -1
        self.path = ""
        self.app: Any = None
        self.tower: Any = None
        self.transport: FdTransport | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._main: asyncio.Task | None = None
        self._stopping = False
        self.resets = 0
        self._tmp: tempfile.TemporaryDirectory | None = None
        self.ready = threading.Event()

    # ---- the pseudo-terminal ---------------------------------------------
    def open(self) -> str:
        self.master, self.slave = os.openpty()
        # The board keeps the terminal side open too, so the master never sees
        # a hang-up between clients; raw mode: no echo, no line editing.
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        if self.opts.link:
            tmp = self.opts.link + ".tmp%d" % os.getpid()
            try:
                os.remove(tmp)
            except OSError:
                pass
            os.symlink(self.path, tmp)
            os.replace(tmp, self.opts.link)
        return self.path

    def close(self) -> None:
        if self.opts.link:
            try:
                if os.readlink(self.opts.link) == self.path:
                    os.remove(self.opts.link)
            except OSError:
                pass
        for fd in (self.master, self.slave):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = -1
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    # ---- the simulated board ----------------------------------------------
    def build(self) -> None:
        """(Re)build firmware + tower model, as at power-up."""
        from hauntbox_sim.boards.faults import parse_fault
        from hauntbox_sim.models.tower import Faults, TowerModel
        from hauntbox_sim.boards.roller import noise_config

        o = self.opts
        sim_install.install(VirtualClock(realtime=True))
        if o.state_dir is None and self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="hauntbox-pty-")
        state_dir = o.state_dir or (self._tmp.name if self._tmp else ".")
        Path(state_dir).mkdir(parents=True, exist_ok=True)
        if o.game != "roller-ghoster":
            self._build_other(state_dir)
            return
        faults = Faults()
        for spec in o.faults:
            parse_fault(spec, faults)
        import app as firmware_app  # the unmodified firmware module
        pinmap = json.loads((FIRMWARE / "boards/roller-ghoster.json").read_text())
        self.app = firmware_app.App(root=str(FIRMWARE) + "/", state_root=state_dir,
                                    settings={"reservoir": o.reservoir}, seed=o.seed,
                                    game=o.game)
        pins = {name: p["gpio"] for name, p in pinmap["pins"].items()}
        cfg = noise_config(o.noise)
        c = self.app.controller
        settle, die = o.settle_ms, o.die_ms
        think = (150, 600)
        if o.fast:
            # Quick games for tests and demos: balls roll and the tower turns faster.
            cfg.roll_ms = (20.0, 60.0)
            cfg.refill_ms = 200.0
            cfg.max_speed_dps = 240.0
            settle = 150 if settle is None else settle
            die = 20 if die is None else die
            think = (100, 160)   # a press lasts 80 ms: the next must not overlap it
        if settle is not None:
            c.tower.settle_ms = settle
        if die is not None:
            c.die_show_ms = die
        self.tower = TowerModel(pins, cfg, seed=o.seed, faults=faults)
        if self.transport is not None:
            from hauntbox_sim.boards.inject import Injector, SimRequests
            self.transport.filter = SimRequests(Injector(runtime.clock(), pinmap, tower=self.tower),
                                                self.transport.write_reply).feed
        n = o.players
        seats = set(range(max(0, n - o.bots), n)) if o.bots else set()
        if o.bots >= n:
            seats = set(range(-1, 4))   # -1: questions to the table (resume the saved game?)
        self.seats = seats
        if seats:
            SeatBots(self.app, self.tower, pinmap, o.policies, seed=o.seed, seats=seats,
                     think_ms=think, bounce=o.noise in ("bounce", "all"))
        self.app.bus.subscribe(Hands(self.tower, seats))
        if not o.quiet:
            from hauntbox_sim.views.roller_log import RollerLog
            self.app.bus.subscribe(RollerLog(c.colours, out=self.say,
                                             clock_s=lambda: runtime.clock().now_us / 1e6))

    def _build_other(self, state_dir: str) -> None:
        """Haunted House (its table and expander models) or a dice companion.

        People at the host make every decision: no bots, no hands.
        """
        import app as firmware_app  # the unmodified firmware module

        o = self.opts
        self.seats = set()
        if o.game == "haunted-house":
            from hauntbox_sim.boards.haunted import IrqOff, attach_chips, load_data, load_pinmap
            from hauntbox_sim.models.table import TableModel, noise_config as table_noise

            pinmap = load_pinmap()
            cfg = table_noise(o.noise)
            self.chips = attach_chips(pinmap, cfg, o.seed, IrqOff())
            self.table = TableModel(pinmap, load_data(), self.chips, cfg, seed=o.seed,
                                    policies=o.policies)
        if o.game == "haunted-house":
            table, board_map = self.table, pinmap
        else:
            from hauntbox_sim.boards.companion import load_pinmap as companion_pinmap
            table, board_map = None, companion_pinmap()
        if self.transport is not None:
            from hauntbox_sim.boards.inject import Injector, SimRequests
            self.transport.filter = SimRequests(Injector(runtime.clock(), board_map, table=table),
                                                self.transport.write_reply).feed
        # --fast: the turn window closes after a shorter quiet time (tests, demos).
        settings = {"quiet_ms": 500} if o.fast and o.game == "haunted-house" else {}
        self.app = firmware_app.App(root=str(FIRMWARE) + "/", state_root=state_dir,
                                    settings=settings, seed=o.seed, game=o.game)

    async def serve(self) -> None:
        """The board's host link on the pty master: firmware Link + Protocol."""
        from games.link_core import Link
        from protocol import Protocol

        assert self.transport is not None
        link = Link(Protocol(self.app), self.transport.write, None, self.transport.write_reply)
        self.transport.attach(asyncio.get_running_loop(), link)
        try:
            await link.pump()
        finally:
            self.transport.detach()
            link.proto.close()

    async def _run_app(self) -> Any:
        self.ready.set()
        return await self.app.main_async(self.opts.players, 0, None, exit_when_over=False,
                                         extra_tasks=[self.serve()])

    def run(self) -> int:
        """Serve until stop() or Ctrl-C; a simulated reset restarts the firmware."""
        from hauntbox_sim.core.loop import VirtualTimeLoop

        if self.master < 0:
            self.open()
        self.transport = FdTransport(self.master)
        while not self._stopping:
            self.build()
            loop = VirtualTimeLoop()
            self.loop = loop
            try:
                self._main = loop.create_task(self._run_app())
                loop.run_until_complete(self._main)
                break
            except runtime.BoardReset as e:
                self.resets += 1
                self.say(f"-- board reset ({e.cause}): firmware restarts --")
                continue
            except asyncio.CancelledError:
                break
            finally:
                self._cancel_all(loop)
                loop.close()
                self.loop = None
        return 0

    def _cancel_all(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
        except RuntimeError:
            return
        for t in tasks:
            t.cancel()
        if tasks:
            try:
                loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            except BaseException:  # noqa: BLE001 - shutting down anyway
                pass

    def stop(self) -> None:
        """Stop from another thread (or a signal handler)."""
        self._stopping = True
        loop, main = self.loop, self._main
        if loop is not None and main is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(main.cancel)
            except RuntimeError:
                pass


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hauntbox sim --pty",
        description="Run the simulated board (realtime clock) behind a pseudo-terminal, so "
                    "`hauntbox console --port PATH` and `hauntbox monitor` connect to it as "
                    "to a Pico.")
    p.add_argument("--pty", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--game", type=game_arg, default="roller-ghoster",
                   help="roller-ghoster, haunted-house, beetlejuice or superskill")
    p.add_argument("--players", type=int, default=2, help="players of the first game (2-4)")
    p.add_argument("--seed", type=int, default=1, help="seed for the dice and the physical model")
    p.add_argument("--bots", type=int, default=0, metavar="N",
                   help="the last N seats are simulated players pressing the buttons "
                        "(default 0: people play every seat through the console)")
    p.add_argument("--policy", action="append", choices=("random", "safe", "bold"),
                   help="bot policy per seat (repeat; cycles)")
    p.add_argument("--noise", choices=("none", "bounce", "glitch", "all"), default="none")
    p.add_argument("--fault", action="append", default=[],
                   help="inject a fault: jam, stuck-beam:K, dead-beam:K, dead-notch, missing-balls")
    p.add_argument("--reservoir", action="store_true", help="use the optional reservoir sensor")
    p.add_argument("--state-dir", help="where the board keeps its saved game (default: temporary)")
    p.add_argument("--link", metavar="PATH",
                   help="also make PATH a symlink to the pty (a stable port name across restarts)")
    p.add_argument("--fast", action="store_true",
                   help="short die display, settle and rolling times (tests and demos)")
    p.add_argument("--settle-ms", type=int, help="ball settle window after a turn of the tower")
    p.add_argument("--die-ms", type=int, help="how long the die is shown after a roll")
    p.add_argument("--quiet", action="store_true", help="do not print the game log")
    return p


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    lo, hi = PLAYERS[a.game]
    if not lo <= a.players <= hi:
        print(f"hauntbox sim --pty: --players must be {lo}..{hi} for {a.game}", file=sys.stderr)
        return 2
    if a.game != "roller-ghoster" and (a.bots or a.fault or a.reservoir):
        print(f"hauntbox sim --pty: --bots, --fault and --reservoir are for roller-ghoster, "
              f"not {a.game}", file=sys.stderr)
        return 2
    if a.bots < 0:
        print("hauntbox sim --pty: --bots must be 0 or more", file=sys.stderr)
        return 2
    from hauntbox_sim.boards.faults import parse_fault
    from hauntbox_sim.models.tower import Faults
    for spec in a.fault:
        try:
            parse_fault(spec, Faults())
        except (argparse.ArgumentTypeError, ValueError) as e:
            print(f"hauntbox sim --pty: {e}", file=sys.stderr)
            return 2
    if a.link and not Path(a.link).parent.is_dir():
        print(f"hauntbox sim --pty: --link {a.link}: no such folder", file=sys.stderr)
        return 2
    opts = BoardOptions(game=a.game, players=a.players, seed=a.seed, bots=a.bots, noise=a.noise,
                        faults=a.fault, policies=a.policy or ["bold", "safe", "random", "bold"],
                        state_dir=a.state_dir, link=a.link, reservoir=a.reservoir, fast=a.fast,
                        settle_ms=a.settle_ms, die_ms=a.die_ms, quiet=a.quiet)
    board = PtyBoard(opts)
    path = board.open()
    board.say(f"board on {path}")
    if a.link:
        board.say(f"link {a.link} -> {path}")
    who = ("simulated players" if a.bots >= a.players else
           f"people at the console{f' and {a.bots} bot(s)' if a.bots else ''}")
    board.say(f"{a.game}, {a.players} players ({who}); connect with: "
              f"hauntbox console --port {a.link or path}   (Ctrl-C stops the board)")

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)
    try:
        board.run()
    except KeyboardInterrupt:
        board.say("board stopped")
    finally:
        board.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
