"""The emulated Pico on a pseudo-terminal: `hauntbox sim --pico --pty`.

The emulated chip's USB serial is bridged to a pty, so the real tools talk to
it exactly as to a Pico on USB: `mpremote connect /dev/pts/N ...`,
`hauntbox flash --port /dev/pts/N`, `hauntbox console`, `hauntbox monitor`.
Emulated time follows the wall clock (the chip never runs ahead of it; when it
is busy it may fall behind, at about 0.2x real time for CPU-bound code).

The build's physical models run beside it (the tower or the table), as in
`make pico`. `--state-dir DIR` keeps the emulated flash in DIR/flash.bin
between runs, so what `hauntbox flash` or mpremote wrote is there next time.
"""
from __future__ import annotations

from hauntbox_fw.games import game_arg
import argparse
import os
import select
import signal
import sys
import time
import tty
from pathlib import Path
from typing import Any

from hauntbox_sim.pico import session as ps

BUILDS = {"roller-ghoster": ps.RollerPico, "haunted-house": ps.HauntedPico,
          "beetlejuice": ps.CompanionPico, "superskill": ps.CompanionPico}
SLICE_US = 20_000          # at most this much emulated time per step
OUT_CAP = 1 << 20          # bytes kept for a client that does not read


class PicoPty:
    def __init__(self, session: Any, link: str | None = None, flash_file: Path | None = None) -> None:
        self.s = session
        self.link = link
        self.flash_file = flash_file
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.out = bytearray()
        self.dropped = 0
        self.stopping = False
        board = session.board
        # What the chip sends goes to the pty (and to the session's host view,
        # which the log and any bots read).
        board.raw_out = self._to_pty
        board.host.passive = True       # the pty's client is the host; the session only listens
        # The simulator-only `sim` requests (sensor injection) are answered here,
        # by the build's models, before the chip sees them (sim/inject.py).
        from hauntbox_sim.boards.inject import Injector, SimRequests
        self.sims = SimRequests(Injector(board.clock, session.pinmap, getattr(session, "tower", None),
                                         getattr(session, "table", None)), self._sim_reply)
        self.mid_line = False           # the chip's output stopped inside a line
        self.replies: list[bytes] = []  # sim replies waiting for the end of that line
        self.replies_since = 0.0
        if link:
            tmp = link + ".tmp%d" % os.getpid()
            if os.path.lexists(tmp):
                os.remove(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, link)

    def _sim_reply(self, line: bytes) -> None:
        if not self.mid_line:
            self._to_pty(line, chip=False)
            return
        if not self.replies:
            self.replies_since = time.monotonic()
        self.replies.append(line)

    def _to_pty(self, data: bytes, chip: bool = True) -> None:
        if chip and data:
            if self.replies and b"\n" in data:
                # Between two of the chip's lines, never inside one.
                i = data.rindex(b"\n") + 1
                data = data[:i] + b"".join(self.replies) + data[i:]
                self.replies.clear()
            self.mid_line = not data.endswith(b"\n")
        self.out += data
        if len(self.out) > OUT_CAP:
            cut = len(self.out) - OUT_CAP
            del self.out[:cut]
            self.dropped += cut

    def _flush(self) -> None:
        while self.out:
            try:
                n = os.write(self.master, bytes(self.out[:4096]))
            except BlockingIOError:
                return
            except OSError:
                return
            del self.out[:n]

    def serve(self) -> None:
        board = self.s.board
        t0 = time.monotonic() - board.now_us / 1e6
        while not self.stopping:
            wall_us = int((time.monotonic() - t0) * 1e6)
            try:
                r, _, _ = select.select([self.master], [], [], 0)
                if r:
                    data = os.read(self.master, 4096)
                    data = self.sims.feed(data) if data else data
                    if data:
                        board.pico.write(data)
            except OSError:
                pass
            if board.now_us < wall_us:
                board.step(min(wall_us, board.now_us + SLICE_US))
            else:
                # Ahead of the wall clock: wait for it, or for the host.
                select.select([self.master], [], [], min(0.01, (board.now_us - wall_us) / 1e6))
            if self.replies and time.monotonic() - self.replies_since > 0.2:
                self.mid_line = False        # e.g. the REPL's ">>> ": no line end is coming
                for line in self.replies:
                    self._to_pty(line, chip=False)
                self.replies.clear()
            self._flush()

    def close(self) -> None:
        if self.flash_file is not None:
            try:
                self.flash_file.write_bytes(self.s.board.pico.filesystem())
            except Exception as e:  # noqa: BLE001 - the board may be gone: say so, keep going
                print(f"hauntbox sim --pico: flash not saved: {e}", file=sys.stderr)
        if self.link:
            try:
                if os.readlink(self.link) == self.path:
                    os.remove(self.link)
            except OSError:
                pass
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self.s.close()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hauntbox sim --pico --pty",
        description="The emulated Pico (official MicroPython rp2 firmware in rp2040js) behind a "
                    "pseudo-terminal: mpremote, `hauntbox flash`, `hauntbox console` and "
                    "`hauntbox monitor` talk to it as to a Pico on USB.")
    p.add_argument("--pty", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--pico", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--game", type=game_arg, default="roller-ghoster",
                   help="roller-ghoster, haunted-house, beetlejuice or superskill")
    p.add_argument("--players", type=int, default=2, help="players of the first game")
    p.add_argument("--seed", type=int, default=1, help="seed for the models and the bots")
    p.add_argument("--bots", type=int, default=0, metavar="N",
                   help="simulated players for every seat when N > 0 (they read the prompts "
                        "from the event stream of the console that is connected)")
    p.add_argument("--noise", choices=("none", "bounce", "glitch", "all"), default="none")
    p.add_argument("--state-dir", help="keep the emulated flash in DIR/flash.bin between runs")
    p.add_argument("--link", metavar="PATH", help="also make PATH a symlink to the pty")
    p.add_argument("--blank", action="store_true",
                   help="start from blank flash (MicroPython formats it): flash it with "
                        "`hauntbox flash --port PTY`")
    p.add_argument("--uf2", help="another MicroPython UF2 (a maker's own download)")
    p.add_argument("--quiet", action="store_true", help="do not print the game log")
    return p


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    from hauntbox_sim.pico.emulator import PicoError

    flash_file = None
    flash = None
    if a.state_dir:
        d = Path(a.state_dir)
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            print(f"hauntbox sim --pico: cannot use --state-dir {a.state_dir}: {e.strerror}",
                  file=sys.stderr)
            return 2
        flash_file = d / "flash.bin"
        if flash_file.exists():
            flash = flash_file.read_bytes()
    if a.link and not Path(a.link).parent.is_dir():
        print(f"hauntbox sim --pico: --link {a.link}: no such folder", file=sys.stderr)
        return 2
    if flash is None and a.blank:
        flash = b"\xff" * 4096        # an erased block: MicroPython formats the filesystem
    cls = BUILDS[a.game]
    kw: dict[str, Any] = dict(players=a.players, seed=a.seed, flash=flash, uf2=a.uf2)
    if cls is ps.CompanionPico:
        kw["game"] = a.game
    else:
        kw["noise"] = a.noise
    try:
        s = cls(**kw)
    except PicoError as e:
        print(f"hauntbox sim --pico: {e}", file=sys.stderr)
        return 2
    if a.bots <= 0:
        s.bots_off()
    pty = PicoPty(s, link=a.link, flash_file=flash_file)
    print(f"board on {pty.path}", flush=True)
    if a.link:
        print(f"link {a.link} -> {pty.path}", flush=True)
    print(f"emulated Pico: {s.machine}, MicroPython {s.micropython}, {a.game}"
          f"{' (blank flash)' if a.blank and not (flash_file and flash_file.exists()) else ''}; "
          f"connect with: hauntbox console --port {a.link or pty.path}   (Ctrl-C stops it)",
          flush=True)

    def on_stop(signum: int, frame: Any) -> None:
        # Stop between two exchanges with the emulator, never inside one, so
        # the flash can still be read and kept.
        pty.stopping = True

    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)
    try:
        pty.serve()
        print("board stopped", flush=True)
    finally:
        pty.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
