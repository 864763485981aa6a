"""``hauntbox flash``: build the firmware and copy it onto a Pico with mpremote.

Steps (each one a small function, so tests can drive them with fakes):

1. ``build()`` compiles firmware/ to build/firmware/ (see hauntbox.build).
2. ``--dry-run`` stops here: every file, its size, the total and the budget.
3. The port is found (``--port auto``: the single Raspberry Pi USB serial port).
4. ``probe_board``: mpremote runs a one-line probe printing the MicroPython
   version and ``sys.implementation._mpy``; too old for mpy 6.3 -> refused.
5. ``read_board_manifest``: ``mpremote fs cat :manifest.json`` (missing -> copy all).
6. ``make_plan``: files whose sha256 differs from the board's manifest, files to
   delete (listed in the old manifest but gone now, and any ``.py`` that
   would shadow a shipped ``.mpy``), folders to create.
7. ``plan_commands`` turns the plan into mpremote argv lists, in this order:
   a "pending" manifest (only the untouched files) goes first, then folders and
   deletions, then the copies (``data/build.json`` last), then the real manifest.
   A run that dies half way therefore leaves a manifest that lists only files
   known to be right, and a rerun recopies everything else.
8. ``mpremote reset``, then ``verify_hello``: send ``{"cmd":"hello"}`` over the
   serial port and expect ``"build"`` to equal the new build id.

The raw REPL is never spoken here: all board access goes through mpremote.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hauntbox import build as hb_build
from hauntbox import ports

#: How mpremote is started: the one installed next to this Python.
MPREMOTE: tuple[str, ...] = (sys.executable, "-m", "mpremote")
#: Board path of the manifest.
BOARD_MANIFEST = "manifest.json"
#: Seconds allowed for the hello answer once the port is open again.
HELLO_TIMEOUT = 5.0
#: Seconds allowed for the USB serial port to come back after the reset.
RECONNECT_TIMEOUT = 10.0
#: mpremote sub-commands per mpremote run (joined with "+").
DEFAULT_CHAIN = 8
#: Line the probe prints first, so other output (boot messages) is ignored.
PROBE_TAG = "HAUNTBOX-PROBE"
PROBE_CODE = (
    "import sys; i = sys.implementation; v = i.version; "
    f"print('{PROBE_TAG}', i.name, v[0], v[1], v[2], getattr(i, '_mpy', -1))"
)
UF2_URL = "https://micropython.org/download/RPI_PICO/"


class FlashError(Exception):
    """Flashing cannot go on; the message says why and what to do."""


# --------------------------------------------------------------------------
# running mpremote


@dataclass
class RunResult:
    """Outcome of one command."""

    returncode: int
    stdout: str = ""
    stderr: str = ""

    @property
    def output(self) -> str:
        return (self.stdout + "\n" + self.stderr).strip()


class Runner(Protocol):
    """Runs one command line; tests replace it with a recording fake."""

    def run(self, argv: Sequence[str]) -> RunResult: ...


class SubprocessRunner:
    """The real runner: ``subprocess.run`` with captured output and a timeout."""

    def __init__(self, timeout: float = 300.0) -> None:
        self.timeout = timeout

    def run(self, argv: Sequence[str]) -> RunResult:
        try:
            cp = subprocess.run(
                list(argv), capture_output=True, text=True, timeout=self.timeout, check=False
            )
        except FileNotFoundError as exc:
            raise FlashError(f"cannot start {argv[0]}: {exc}") from None
        except subprocess.TimeoutExpired:
            raise FlashError(
                f"mpremote did not finish within {self.timeout:.0f} s: "
                "unplug the Pico, plug it back in and run hauntbox flash again"
            ) from None
        return RunResult(cp.returncode, cp.stdout or "", cp.stderr or "")


def mpremote(port: str, *args: str, prefix: Sequence[str] = MPREMOTE) -> list[str]:
    """``mpremote connect PORT args...`` as an argv list."""
    return [*prefix, "connect", port, *args]


# --------------------------------------------------------------------------
# board checks


@dataclass(frozen=True)
class BoardInfo:
    """What the probe reported."""

    name: str
    version: tuple[int, int, int]
    mpy: int  # sys.implementation._mpy, -1 when missing

    @property
    def mpy_major(self) -> int:
        return self.mpy & 0xFF

    @property
    def mpy_sub(self) -> int:
        return (self.mpy >> 8) & 3

    @property
    def mpy_text(self) -> str:
        # sub-versions exist from mpy 6 on; older headers used those bits for flags
        return f"{self.mpy_major}.{self.mpy_sub}" if self.mpy_major >= 6 else str(self.mpy_major)

    @property
    def version_text(self) -> str:
        return "v%d.%d.%d" % self.version


def parse_probe(text: str) -> BoardInfo:
    """Read the probe line out of mpremote's output."""
    for line in text.splitlines():
        parts = line.strip().split()
        if len(parts) == 6 and parts[0] == PROBE_TAG:
            try:
                return BoardInfo(
                    parts[1], (int(parts[2]), int(parts[3]), int(parts[4])), int(parts[5])
                )
            except ValueError:
                break
    raise FlashError(f"the board did not answer the version probe; it said:\n{text.strip()}")


def check_board(info: BoardInfo) -> None:
    """Refuse boards that cannot load the mpy 6.3 files this build ships."""
    need = "v%d.%d" % hb_build.MIN_MICROPYTHON
    mpy = "%d.%d" % hb_build.MPY_VERSION
    if info.name != "micropython":
        raise FlashError(
            f"the board runs {info.name} {info.version_text}, not MicroPython: "
            f"put MicroPython {need} or newer on it ({UF2_URL}, see docs/flashing.md)"
        )
    if info.mpy < 0:
        raise FlashError(
            f"this MicroPython {info.version_text} cannot import .mpy files: "
            f"install the standard Pico build from {UF2_URL}"
        )
    if info.mpy_major != hb_build.MPY_VERSION[0] or info.version[:2] < hb_build.MIN_MICROPYTHON:
        raise FlashError(
            f"MicroPython {info.version_text} on the board is too old: hauntbox ships "
            f"mpy {mpy} bytecode, which needs MicroPython {need} or newer "
            f"(the board reads mpy {info.mpy_text}). "
            f"Download the latest UF2 from {UF2_URL}, hold BOOTSEL while plugging in "
            "the Pico and drag the UF2 onto the RPI-RP2 drive"
        )


def probe_board(runner: Runner, port: str, prefix: Sequence[str] = MPREMOTE) -> BoardInfo:
    """Ask the board for its MicroPython version and check it."""
    res = runner.run(mpremote(port, "exec", PROBE_CODE, prefix=prefix))
    if res.returncode != 0:
        raise FlashError(
            f"cannot talk to the board on {port} (mpremote exit {res.returncode}):\n"
            f"{res.output}\nIs another program (Thonny, a serial monitor, `hauntbox "
            "console`) holding the port? Close it and try again."
        )
    info = parse_probe(res.stdout)
    check_board(info)
    return info


def _valid_manifest(m: Any) -> bool:
    return (
        isinstance(m, dict)
        and isinstance(m.get("files"), list)
        and all(
            isinstance(e, dict)
            and isinstance(e.get("path"), str)
            and isinstance(e.get("sha256"), str)
            for e in m["files"]
        )
    )


def read_board_manifest(runner: Runner, port: str, prefix: Sequence[str] = MPREMOTE) -> dict | None:
    """The board's manifest.json, or None when it is missing or unreadable."""
    res = runner.run(mpremote(port, "fs", "cat", ":" + BOARD_MANIFEST, prefix=prefix))
    if res.returncode != 0:
        text = res.output
        missing = "ENOENT" in text or "No such file" in text
        if missing and "failed to access" not in text and "cat:" in text:
            return None
        raise FlashError(f"cannot read :{BOARD_MANIFEST} on {port}:\n{res.output}")
    try:
        m = json.loads(res.stdout)
    except ValueError:
        return None
    return m if _valid_manifest(m) else None


# --------------------------------------------------------------------------
# planning


@dataclass
class FlashPlan:
    """What has to change on the board."""

    copy: list[hb_build.BuiltFile]  # in copy order; data/build.json last
    unchanged: list[str]
    remove: list[str]  # board paths to delete (missing ones are ignored)
    mkdirs: list[str]  # folders, parents first
    pending_manifest: dict  # written before anything else changes
    had_manifest: bool
    stale: list[str] = field(default_factory=list)  # old manifest entries gone now

    @property
    def changes_board(self) -> bool:
        return bool(self.copy or self.stale)


def make_plan(
    result: hb_build.BuildResult, board_manifest: dict | None, copy_all: bool = False
) -> FlashPlan:
    """Compare the build with the board's manifest."""
    old = {}
    if board_manifest is not None:
        old = {e["path"]: e.get("sha256") for e in board_manifest.get("files", [])}
    copy, unchanged = [], []
    for f in result.files:
        if not copy_all and old.get(f.path) == f.sha256:
            unchanged.append(f.path)
        else:
            copy.append(f)
    # data/build.json goes last: the hello answer only changes once every
    # other file has arrived.
    copy.sort(key=lambda f: (f.path == hb_build.BUILD_INFO_PATH, f.path))
    new_paths = {f.path for f in result.files}
    stale = sorted(p for p in old if p not in new_paths and p != BOARD_MANIFEST)
    shadows = sorted(
        f.path[:-4] + ".py"
        for f in result.files
        if f.path.endswith(".mpy") and f.path[:-4] + ".py" not in new_paths
    )
    remove = sorted(set(stale) | set(shadows))
    dirs = set()
    for f in result.files:
        parts = f.path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    mkdirs = sorted(dirs, key=lambda d: (d.count("/"), d))
    by_path = result.by_path()
    pending = {
        "format": 1,
        "build": "pending",
        "files": [by_path[p].manifest_entry() for p in sorted(unchanged)],
    }
    return FlashPlan(
        copy, unchanged, remove, mkdirs, pending, board_manifest is not None, stale=stale
    )


def prepare_script(plan: FlashPlan) -> str:
    """MicroPython code (run with mpremote exec) making folders and deleting files."""
    lines = ["import os"]
    if plan.mkdirs:
        lines += [
            f"for d in {tuple(plan.mkdirs)!r}:",
            "    try:",
            "        os.mkdir(d)",
            "    except OSError:",
            "        pass",
        ]
    if plan.remove:
        lines += [
            f"for f in {tuple(plan.remove)!r}:",
            "    try:",
            "        os.remove(f)",
            "    except OSError:",
            "        pass",
        ]
    return "\n".join(lines)


def plan_steps(plan: FlashPlan, out_dir: Path, pending_path: Path) -> list[list[str]]:
    """mpremote sub-commands (without ``connect PORT``), in order."""
    steps: list[list[str]] = []
    if plan.changes_board:
        steps.append(["fs", "cp", str(pending_path), ":" + BOARD_MANIFEST])
    steps.append(["exec", prepare_script(plan)])
    for f in plan.copy:
        steps.append(["fs", "cp", str(out_dir / f.path), ":" + f.path])
    if plan.changes_board or not plan.had_manifest:
        steps.append(["fs", "cp", str(out_dir / hb_build.MANIFEST_NAME), ":" + BOARD_MANIFEST])
    return steps


def plan_commands(
    plan: FlashPlan,
    port: str,
    out_dir: Path,
    pending_path: Path,
    chain: int = 1,
    prefix: Sequence[str] = MPREMOTE,
) -> list[list[str]]:
    """mpremote argv lists for ``plan``; ``chain`` sub-commands per run, joined by ``+``."""
    steps = plan_steps(plan, out_dir, pending_path)
    chain = max(1, chain)
    cmds = []
    for i in range(0, len(steps), chain):
        args: list[str] = []
        for step in steps[i : i + chain]:
            if args:
                args.append("+")
            args.extend(step)
        cmds.append(mpremote(port, *args, prefix=prefix))
    return cmds


def reset_command(port: str, prefix: Sequence[str] = MPREMOTE) -> list[str]:
    return mpremote(port, "reset", prefix=prefix)


# --------------------------------------------------------------------------
# hello check


class SerialLike(Protocol):
    def write(self, data: bytes) -> Any: ...
    def readline(self) -> bytes: ...
    def close(self) -> None: ...


def open_serial_port(port: str) -> SerialLike:
    import serial

    return serial.Serial(port, 115200, timeout=0.2)


def _ask_hello(
    ser: SerialLike, deadline: float, clock: Callable[[], float], seen: list
) -> dict | None:
    # Send hello about once a second until a JSON object with "build" arrives.
    next_send = clock()
    while clock() < deadline:
        if clock() >= next_send:
            ser.write(b'{"cmd":"hello"}\n')
            next_send = clock() + 1.0
        raw = ser.readline()
        if not raw:
            continue
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        seen.append(line)
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and "build" in msg:
            return msg
    return None


def verify_hello(
    port: str,
    build_id: str,
    open_serial: Callable[[str], SerialLike] = open_serial_port,
    timeout: float = HELLO_TIMEOUT,
    reconnect_timeout: float = RECONNECT_TIMEOUT,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    settle: float = 0.5,
) -> dict:
    """Send ``{"cmd":"hello"}`` and check the answer's ``build``; return the answer.

    After the reset the USB port disappears and comes back: opening (or using)
    it is retried for ``reconnect_timeout`` seconds; once it is open the answer
    must come within ``timeout`` seconds.
    """
    sleep(settle)
    reconnect_deadline = clock() + reconnect_timeout
    seen: list[str] = []
    while True:
        try:
            ser = open_serial(port)
        except Exception as exc:  # the port is gone while the Pico restarts
            if clock() >= reconnect_deadline:
                raise FlashError(
                    f"{port} did not come back within {reconnect_timeout:.0f} s after the "
                    f"reset ({exc}); unplug and replug the Pico, then run "
                    "`hauntbox flash` again"
                ) from None
            sleep(0.25)
            continue
        try:
            msg = _ask_hello(ser, clock() + timeout, clock, seen)
        except OSError as exc:  # serial.SerialException: the old port died under us
            if clock() >= reconnect_deadline:
                raise FlashError(f"lost {port} while waiting for the hello answer: {exc}") from None
            sleep(0.25)
            continue
        finally:
            ser.close()
        break
    if msg is None:
        tail = "\n".join(seen[-5:]) or "(nothing)"
        raise FlashError(
            f"no hello answer from the board on {port} within {timeout:.0f} s. "
            f"Last lines received:\n{tail}\nThe firmware may have stopped at start-up: "
            f"look with `mpremote connect {port} repl` (Ctrl-C stops the game, Ctrl-D restarts it)"
        )
    got = msg["build"]
    if got != build_id:
        hint = (
            "the firmware could not read data/build.json"
            if got == "dev"
            else "the board is still running older files"
        )
        raise FlashError(
            f"the board answered build {got!r} but this flash built {build_id!r}: "
            f"{hint}. Run `hauntbox flash --all` to copy every file again."
        )
    return msg


# --------------------------------------------------------------------------
# the whole flash


@dataclass
class FlashReport:
    build_id: str
    port: str
    board: BoardInfo
    copied: list[str]
    unchanged: list[str]
    removed: list[str]
    hello: dict | None


def _default_runner() -> Runner:
    if importlib.util.find_spec("mpremote") is None:
        raise FlashError("mpremote is not installed: run `pip install mpremote` (or `make venv`)")
    return SubprocessRunner()


def flash(
    port_spec: str = "auto",
    game: str | None = None,
    copy_all: bool = False,
    verify: bool = True,
    runner: Runner | None = None,
    open_serial: Callable[[str], SerialLike] = open_serial_port,
    src: Path | str | None = None,
    out: Path | str | None = None,
    chain: int = DEFAULT_CHAIN,
    prefix: Sequence[str] = MPREMOTE,
    log: Callable[[str], None] = print,
    result: hb_build.BuildResult | None = None,
    hello_kwargs: dict | None = None,
    line_numbers: bool = False,
) -> FlashReport:
    """Build (unless ``result`` is given), copy what changed, reset, check hello."""
    if result is None:
        result = hb_build.build(src=src, out=out, game=game, line_numbers=line_numbers)
    log(f"built {result.build_id}: {len(result.files) + 1} files, {result.total} B")
    if result.total > hb_build.BUDGET_BYTES:
        log(
            f"WARNING: {result.total} B is over the {hb_build.BUDGET_BYTES // 1024} KB budget "
            "(flashing anyway)"
        )
    port = ports.resolve_port(port_spec)
    runner = runner or _default_runner()

    board = probe_board(runner, port, prefix)
    log(f"board on {port}: MicroPython {board.version_text} (mpy {board.mpy_text})")
    board_manifest = read_board_manifest(runner, port, prefix)
    if board_manifest is None:
        log("no manifest on the board: copying every file")
    plan = make_plan(result, board_manifest, copy_all=copy_all)
    log(f"{len(plan.copy)} to copy, {len(plan.unchanged)} unchanged, {len(plan.stale)} to delete")

    pending_path = result.out_dir.parent / f"{result.out_dir.name}.pending-manifest.json"
    pending_path.write_text(json.dumps(plan.pending_manifest, separators=(",", ":")) + "\n")
    try:
        cmds = plan_commands(plan, port, result.out_dir, pending_path, chain=chain, prefix=prefix)
        for n, cmd in enumerate(cmds, 1):
            copying = [a[1:] for a in cmd if a.startswith(":") and a != ":" + BOARD_MANIFEST]
            log(f"[{n}/{len(cmds)}] " + (", ".join(copying) if copying else "board bookkeeping"))
            res = runner.run(cmd)
            if res.returncode != 0:
                raise FlashError(
                    f"mpremote failed (exit {res.returncode}) at step {n} of {len(cmds)}:\n"
                    f"{res.output}\nThe board's manifest still lists only files known to be "
                    "right, so running `hauntbox flash` again copies whatever is missing."
                )
    finally:
        pending_path.unlink(missing_ok=True)

    res = runner.run(reset_command(port, prefix))
    if res.returncode != 0:
        raise FlashError(
            f"files copied, but the reset failed:\n{res.output}\nPress the Pico's reset "
            "(or unplug it) to start the new firmware."
        )
    hello = None
    if verify:
        log("reset: waiting for the hello answer")
        hello = verify_hello(port, result.build_id, open_serial=open_serial, **(hello_kwargs or {}))
        log(f"hello OK: build {hello.get('build')}")
    return FlashReport(
        result.build_id,
        port,
        board,
        [f.path for f in plan.copy],
        plan.unchanged,
        plan.remove,
        hello,
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hauntbox flash",
        description="Build the firmware and copy it onto a Raspberry Pi Pico running MicroPython.",
    )
    p.add_argument("--port", default="auto", help="serial port of the Pico, or 'auto' (default)")
    p.add_argument(
        "--dry-run", action="store_true", help="build and list the files; touch no device"
    )
    p.add_argument(
        "--game", default=None, metavar="NAME", help="game the box starts (data/build.json)"
    )
    p.add_argument(
        "--all",
        dest="copy_all",
        action="store_true",
        help="copy every file, even those the board's manifest lists as unchanged",
    )
    p.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="skip the hello check after the reset",
    )
    p.add_argument(
        "--boot-timeout",
        type=float,
        default=HELLO_TIMEOUT,
        metavar="S",
        help=f"seconds the board may take to answer hello after the reset (default "
             f"{HELLO_TIMEOUT:.0f}; the emulated Pico, `hauntbox sim --pico --pty`, needs about 30)",
    )
    p.add_argument(
        "--line-numbers",
        action="store_true",
        help="keep file names and line numbers in tracebacks, for debugging (about 3 KB more heap per game)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``hauntbox flash``; returns the exit code."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    try:
        if args.dry_run:
            res = hb_build.build(game=args.game, line_numbers=args.line_numbers)
            print(
                f"build {res.build_id} (hauntbox {res.version}, mpy "
                "%d.%d, for %s)" % (*hb_build.MPY_VERSION, hb_build.SUPPORTED_MICROPYTHON)
            )
            for line in hb_build.format_listing(res):
                print(line)
            print("dry run: no device touched")
            return 0
        if args.boot_timeout <= 0:
            print("error: --boot-timeout must be more than 0 seconds", file=sys.stderr)
            return 2
        rep = flash(args.port, game=args.game, copy_all=args.copy_all, verify=args.verify,
                    line_numbers=args.line_numbers,
                    hello_kwargs={"timeout": args.boot_timeout})
        print(
            f"flashed build {rep.build_id} to {rep.port}: {len(rep.copied)} copied, "
            f"{len(rep.unchanged)} unchanged"
        )
        return 0
    except (hb_build.BuildError, ports.PortError, FlashError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
