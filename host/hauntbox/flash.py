"""``hauntbox flash``: build the firmware and copy it onto a Pico with mpremote.

Steps (each one a small function, so tests can drive them with fakes):

1. ``build()`` compiles firmware/ to build/firmware/ (see hauntbox_fw.build).
2. ``--dry-run`` stops here: every file, its size, the total and the budget.
3. The port is found (``--port auto``: the single Raspberry Pi USB serial port).
4. ``probe_board``: mpremote runs a one-line probe printing the MicroPython
   version and ``sys.implementation._mpy``; too old for mpy 6.3 -> refused.
5. ``read_board_manifest``: ``mpremote fs cat :manifest.json``, a hint only:
   which files an earlier flash wrote, and with what content.
6. ``board_hashes``: one ``mpremote exec`` hashes, on the board, every file of
   the build, every file the old manifest lists and every ``.py`` that would
   shadow a shipped ``.mpy``: what is on the board, by content.
7. ``make_plan``: the files whose content on the board differs from the build
   are copied. A file is deleted only if hauntbox wrote it: the old manifest
   lists it, the board still holds exactly the content listed, and its path is
   one a build can produce (``build.shippable``: never the saves or
   config.json at the root). A ``foo.py`` that would shadow ``foo.mpy`` and
   that hauntbox did not write is renamed to ``foo.py.bak``, not deleted.
   Anything else the manifest lists is left alone (and reported).
8. ``plan_commands`` turns the plan into mpremote argv lists, in this order:
   a "pending" manifest (only the files found right) goes first, then folders,
   deletions and renames, then the copies (``data/build.json`` last). The
   copies are hashed on the board again (``verify_copies``) and only then is
   the real manifest written. A run that dies half way therefore leaves a
   manifest that lists only files known to be right, and a rerun finds the
   rest by their content anyway.
9. ``mpremote reset``, then ``verify_hello``: send ``{"cmd":"hello"}`` over the
   serial port and expect ``"build"`` to equal the new build id.

The raw REPL is never spoken here: all board access goes through mpremote.
"""

from __future__ import annotations

from hauntbox_fw.games import game_arg
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

from hauntbox_fw import build as hb_build
from hauntbox import ports
from hauntbox_fw.sanitize import clean_lines

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
# what is on the board, by content

#: Line the hashing script prints per file: tag, sha256 (or "-": no such file), path.
HASH_TAG = "HAUNTBOX-SHA"
#: Printed instead when the board's MicroPython has no hashlib.
NOHASH_TAG = "HAUNTBOX-NOHASH"


def hash_script(paths: Sequence[str]) -> str:
    """MicroPython code printing the sha256 of every file in ``paths`` (one exec).

    ``mpremote fs sha256sum`` exists too, but takes about three raw-REPL
    round trips per file; this hashes the whole list in one. Paths are passed
    as a Python literal (repr), so no path can be read as code.
    """
    return "\n".join([
        "try:",
        "    import hashlib, binascii",
        "except ImportError:",
        f"    hashlib = None; print({NOHASH_TAG!r})",
        "b = bytearray(512)",
        "m = memoryview(b)",
        f"for p in {tuple(paths)!r}:",
        "    if hashlib is None:",
        "        break",
        "    try:",
        "        f = open(p, 'rb')",
        "    except OSError:",
        f"        print({HASH_TAG!r}, '-', p)",
        "        continue",
        "    h = hashlib.sha256()",
        "    while True:",
        "        n = f.readinto(b)",
        "        if not n:",
        "            break",
        "        h.update(m[:n])",
        "    f.close()",
        f"    print({HASH_TAG!r}, binascii.hexlify(h.digest()).decode(), p)",
    ])


def parse_hashes(text: str, paths: Sequence[str]) -> dict[str, str | None] | None:
    """{path: sha256 or None (no such file)} from the script's output; None: no hashlib."""
    got: dict[str, str | None] = {}
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.strip() == NOHASH_TAG:
            return None
        if not line.startswith(HASH_TAG + " "):
            continue
        parts = line.split(" ", 2)
        if len(parts) == 3:
            got[parts[2]] = None if parts[1] == "-" else parts[1].lower()
    missing = [p for p in paths if p not in got]
    if missing:
        raise FlashError(
            f"the board did not report the content of {len(missing)} file(s) "
            f"(first: {missing[0]}); its answer was:\n{text.strip()[-500:]}"
        )
    return {p: got[p] for p in paths}


def board_hashes(
    runner: Runner, port: str, paths: Sequence[str], prefix: Sequence[str] = MPREMOTE
) -> dict[str, str | None] | None:
    """What is on the board: the sha256 of each path, hashed on the board."""
    if not paths:
        return {}
    res = runner.run(mpremote(port, "exec", hash_script(paths), prefix=prefix))
    if res.returncode != 0:
        raise FlashError(f"cannot read the files on the board ({port}):\n{res.output}")
    return parse_hashes(res.stdout, paths)


# --------------------------------------------------------------------------
# planning


@dataclass
class FlashPlan:
    """What has to change on the board."""

    copy: list[hb_build.BuiltFile]  # in copy order; data/build.json last
    unchanged: list[str]  # on the board with the build's content (hashed there)
    remove: list[str]  # board paths to delete: files hauntbox wrote, unchanged since
    mkdirs: list[str]  # folders, parents first
    pending_manifest: dict  # written before anything else changes
    had_manifest: bool
    write_manifest: bool = True  # the board's manifest is not the build's
    stale: list[str] = field(default_factory=list)  # old files of ours the build lacks now
    set_aside: list[str] = field(default_factory=list)  # foo.py shadowing foo.mpy: -> .bak
    kept: list[str] = field(default_factory=list)  # listed by the manifest, not ours: kept

    @property
    def changes_board(self) -> bool:
        return bool(self.copy or self.remove or self.set_aside)


def _manifest_hints(board_manifest: dict | None) -> dict[str, str]:
    # The board's manifest says which files hauntbox wrote there, and with what
    # content: a hint, never trusted on its own (a file is only ours if the
    # board still holds exactly that content, and only paths a build can
    # produce count).
    if board_manifest is None:
        return {}
    out = {}
    for e in board_manifest.get("files", []):
        p, h = e.get("path"), e.get("sha256")
        if isinstance(h, str) and p != BOARD_MANIFEST and hb_build.shippable(p):
            out[p] = h.lower()
    return out


def paths_to_hash(result: hb_build.BuildResult, board_manifest: dict | None) -> list[str]:
    """Every path whose content on the board the plan depends on."""
    paths = {f.path for f in result.files} | set(_manifest_hints(board_manifest))
    paths |= {f.path[:-4] + ".py" for f in result.files if f.path.endswith(".mpy")}
    return sorted(paths)


def make_plan(
    result: hb_build.BuildResult,
    board_manifest: dict | None,
    hashes: dict[str, str | None] | None = None,
    copy_all: bool = False,
) -> FlashPlan:
    """Compare the build with what is on the board.

    ``hashes``: the sha256 of each of ``paths_to_hash()`` as found on the
    board (None: the file is missing); ``None`` altogether: the board cannot
    hash, so every file is copied and nothing is deleted. The board's
    manifest is only a hint of which files hauntbox wrote.
    """
    on_board = hashes or {}
    hints = _manifest_hints(board_manifest)
    copy, unchanged = [], []
    for f in result.files:
        if not copy_all and on_board.get(f.path) == f.sha256:
            unchanged.append(f.path)
        else:
            copy.append(f)
    # data/build.json goes last: the hello answer only changes once every
    # other file has arrived.
    copy.sort(key=lambda f: (f.path == hb_build.BUILD_INFO_PATH, f.path))
    new_paths = {f.path for f in result.files}
    ours = {p for p, h in hints.items() if on_board.get(p) == h}   # content proves it
    stale = sorted(p for p in ours if p not in new_paths)
    kept = sorted(p for p in hints if p not in new_paths and p not in ours
                  and on_board.get(p) is not None)
    shadows = sorted(
        f.path[:-4] + ".py"
        for f in result.files
        if f.path.endswith(".mpy") and f.path[:-4] + ".py" not in new_paths
        and on_board.get(f.path[:-4] + ".py") is not None
    )
    remove = sorted(set(stale) | {p for p in shadows if p in ours})
    set_aside = [p for p in shadows if p not in ours]
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
    current = board_manifest == hb_build.load_manifest(result.manifest_path)
    plan = FlashPlan(copy, unchanged, remove, mkdirs, pending, board_manifest is not None,
                     stale=stale, set_aside=set_aside, kept=kept)
    plan.write_manifest = plan.changes_board or not current
    return plan


def prepare_script(plan: FlashPlan) -> str:
    """MicroPython code (run with mpremote exec): make folders, delete our old
    files, rename shadowing sources to a free ``.bak`` name."""
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
    if plan.set_aside:
        lines += [
            f"for f in {tuple(plan.set_aside)!r}:",
            "    t = f + '.bak'",
            "    n = 1",
            "    while True:",
            "        try:",
            "            os.stat(t)",
            "        except OSError:",
            "            break",
            "        t = f + '.bak%d' % n",
            "        n += 1",
            "    os.rename(f, t)",
        ]
    return "\n".join(lines)


def plan_steps(
    plan: FlashPlan, out_dir: Path, pending_path: Path, final: bool = True
) -> list[list[str]]:
    """mpremote sub-commands (without ``connect PORT``), in order.

    ``final``: end with the new manifest (``flash()`` writes it separately,
    once it has checked the copies on the board).
    """
    steps: list[list[str]] = []
    if plan.changes_board:
        steps.append(["fs", "cp", str(pending_path), ":" + BOARD_MANIFEST])
    steps.append(["exec", prepare_script(plan)])
    for f in plan.copy:
        steps.append(["fs", "cp", str(out_dir / f.path), ":" + f.path])
    if final and plan.write_manifest:
        steps.append(manifest_step(out_dir))
    return steps


def manifest_step(out_dir: Path) -> list[str]:
    return ["fs", "cp", str(out_dir / hb_build.MANIFEST_NAME), ":" + BOARD_MANIFEST]


def plan_commands(
    plan: FlashPlan,
    port: str,
    out_dir: Path,
    pending_path: Path,
    chain: int = 1,
    prefix: Sequence[str] = MPREMOTE,
    final: bool = True,
) -> list[list[str]]:
    """mpremote argv lists for ``plan``; ``chain`` sub-commands per run, joined by ``+``."""
    steps = plan_steps(plan, out_dir, pending_path, final=final)
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


def verify_copies(
    runner: Runner, port: str, plan: FlashPlan, prefix: Sequence[str] = MPREMOTE
) -> None:
    """Hash the copied files on the board again: each must hold what was built."""
    got = board_hashes(runner, port, [f.path for f in plan.copy], prefix)
    if got is None:
        return  # no hashlib on the board: nothing more to check
    bad = [f.path for f in plan.copy if got.get(f.path) != f.sha256]
    if bad:
        raise FlashError(
            f"after copying, {len(bad)} file(s) on the board differ from the build "
            f"(first: {bad[0]}); the board's manifest still lists only files known to be "
            "right: run `hauntbox flash` again"
        )


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
    set_aside: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


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

    def note(text: str) -> None:
        # Lines may quote the board (hello, mpremote's output): cleaned.
        log(clean_lines(text))

    if result is None:
        result = hb_build.build(src=src, out=out, game=game, line_numbers=line_numbers)
    note(f"built {result.build_id}: {len(result.files) + 1} files, {result.total} B")
    if result.total > hb_build.BUDGET_BYTES:
        note(
            f"WARNING: {result.total} B is over the {hb_build.BUDGET_BYTES // 1024} KB budget "
            "(flashing anyway)"
        )
    port = ports.resolve_port(port_spec)
    if runner is None:
        # A real port: one that is not there is said so, not blamed on another program.
        missing = ports.missing_port(port)
        if missing:
            raise ports.PortError(missing)
    runner = runner or _default_runner()

    board = probe_board(runner, port, prefix)
    note(f"board on {port}: MicroPython {board.version_text} (mpy {board.mpy_text})")
    board_manifest = read_board_manifest(runner, port, prefix)
    if board_manifest is None:
        note("no manifest on the board")
    hashes = board_hashes(runner, port, paths_to_hash(result, board_manifest), prefix)
    if hashes is None:
        note("the board cannot hash files (no hashlib): copying every file, deleting none")
    plan = make_plan(result, board_manifest, hashes, copy_all=copy_all)
    note(f"{len(plan.copy)} to copy, {len(plan.unchanged)} unchanged (checked by content), "
        f"{len(plan.remove)} to delete")
    for path in plan.set_aside:
        note(f"{path} would shadow {path[:-3]}.mpy: renamed to a .bak name, not deleted")
    for path in plan.kept:
        note(f"{path}: listed in the board's manifest but not as hauntbox wrote it: left alone")

    pending_path = result.out_dir.parent / f"{result.out_dir.name}.pending-manifest.json"
    pending_path.write_text(json.dumps(plan.pending_manifest, separators=(",", ":")) + "\n")
    try:
        cmds = plan_commands(plan, port, result.out_dir, pending_path, chain=chain,
                             prefix=prefix, final=False)
        for n, cmd in enumerate(cmds, 1):
            copying = [a[1:] for a in cmd if a.startswith(":") and a != ":" + BOARD_MANIFEST]
            note(f"[{n}/{len(cmds)}] " + (", ".join(copying) if copying else "board bookkeeping"))
            res = runner.run(cmd)
            if res.returncode != 0:
                raise FlashError(
                    f"mpremote failed (exit {res.returncode}) at step {n} of {len(cmds)}:\n"
                    f"{res.output}\nThe board's manifest still lists only files known to be "
                    "right, so running `hauntbox flash` again copies whatever is missing."
                )
    finally:
        pending_path.unlink(missing_ok=True)
    if plan.copy:
        verify_copies(runner, port, plan, prefix)
    if plan.write_manifest:
        res = runner.run(mpremote(port, *manifest_step(result.out_dir), prefix=prefix))
        if res.returncode != 0:
            raise FlashError(f"cannot write :{BOARD_MANIFEST} (exit {res.returncode}):\n"
                             f"{res.output}\nRun `hauntbox flash` again.")

    res = runner.run(reset_command(port, prefix))
    if res.returncode != 0:
        raise FlashError(
            f"files copied, but the reset failed:\n{res.output}\nPress the Pico's reset "
            "(or unplug it) to start the new firmware."
        )
    hello = None
    if verify:
        note("reset: waiting for the hello answer")
        hello = verify_hello(port, result.build_id, open_serial=open_serial, **(hello_kwargs or {}))
        note(f"hello OK: build {hello.get('build')}")
    return FlashReport(
        result.build_id,
        port,
        board,
        [f.path for f in plan.copy],
        plan.unchanged,
        plan.remove,
        hello,
        plan.set_aside,
        plan.kept,
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
        "--game", default=None, metavar="NAME", type=game_arg,
        help="game the box starts (data/build.json): roller-ghoster, haunted-house, beetlejuice, superskill"
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
        print("error: " + clean_lines(str(exc)), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
