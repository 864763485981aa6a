"""Run code inside the official MicroPython WebAssembly VM (via Node.js).

The firmware tree is mounted at /fw and tests/scenarios at /t/scenarios
inside the VM; /fw and /t are on sys.path (firmware first), so `import rules.roller_ghoster` works exactly as on the Pico.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from hauntbox_fw.paths import FIRMWARE_DIR

# The checkout: node_modules (npm ci) and tests/scenarios are there.
ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_mp.mjs")
VM_PACKAGE = ROOT / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


SCRIPTS = Path(__file__).with_name("scripts")


def script_path(name: str) -> Path:
    """sim/vm/scripts/<name>.py; a clear error for a name that is not there."""
    path = SCRIPTS / f"{name}.py"
    if not path.is_file():
        raise ValueError(f"no VM script {name!r} in {SCRIPTS}")
    return path


def script_code(name: str, *args: object) -> str:
    """The text the VM runs for sim/vm/scripts/<name>.py: the script, then one
    call of its main() with `args` written as literals (their repr: numbers,
    strings, lists, dicts, True/False/None read the same in MicroPython)."""
    return script_path(name).read_text() + f"\nmain({', '.join(repr(a) for a in args)})\n"


def load_script(name: str, params: dict | None = None) -> dict:
    """sim/vm/scripts/<name>.py run on CPython (the other side of a parity
    test): its namespace, with `params` set as globals first."""
    path = script_path(name)
    ns = {"__name__": f"vm_script_{name}", **(params or {})}
    exec(compile(path.read_text(), str(path), "exec"), ns)  # noqa: S102 - our own VM script
    return ns


class MicroPythonError(RuntimeError):
    """The script raised inside the VM; the message carries the traceback."""


def vm_available() -> bool:
    return shutil.which("node") is not None and VM_PACKAGE.is_dir()


def run_micropython(code: str, timeout: float = 300.0, heap: int = 4 * 1024 * 1024,
                    mounts: dict[str, Path] | None = None, firmware: Path | None = None) -> str:
    """Run `code` in the MicroPython VM; return its stdout. Raise on error.

    `mounts` maps extra VM folders (e.g. "/lib") to host folders; "/lib" is on
    MicroPython's default sys.path. `firmware` replaces the source tree mounted
    at /fw (e.g. with a build of .mpy files).
    """
    if not vm_available():
        raise RuntimeError("MicroPython VM missing: run `make deps` (npm ci) first")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
        script = f.name
    try:
        proc = subprocess.run(
            ["node", str(RUNNER), "--heap", str(heap),
             "--mount", f"{firmware or FIRMWARE_DIR}:/fw",
             "--mount", f"{ROOT / 'tests' / 'scenarios'}:/t/scenarios",
             *[a for vm, host in (mounts or {}).items() for a in ("--mount", f"{host}:{vm}")],
             script],
            cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        )
    finally:
        os.unlink(script)
    if proc.returncode != 0:
        raise MicroPythonError(proc.stderr.strip() or f"exit {proc.returncode}")
    return proc.stdout
