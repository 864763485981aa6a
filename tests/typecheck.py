"""Type-check firmware/ against the MicroPython rp2 stubs (PyPI micropython-rp2-stubs).

The stubs describe the rp2 port's modules (machine, rp2, neopixel, time,
asyncio, ...) and MicroPython's stdlib. Checked error codes are the ones that
reveal code the Pico cannot run: a missing module or attribute, a wrong call
signature, an unknown name. Errors inside the stubs themselves are ignored.
Exit 0 when firmware/ is clean; the errors are printed otherwise.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODES = ("attr-defined", "call-arg", "import-not-found", "import-untyped", "name-defined",
         "call-overload")


def stub_dirs() -> tuple[Path, Path]:
    site = Path(sysconfig.get_paths()["purelib"])
    rp2 = next(site.glob("micropython_rp2_stubs-*.dist-info"), None)
    if rp2 is None or not (site / "stdlib").is_dir():
        raise SystemExit("micropython-rp2-stubs is not installed (make venv)")
    return site, rp2


def main() -> int:
    site, rp2_info = stub_dirs()
    with tempfile.TemporaryDirectory() as tmp:
        stubs = Path(tmp)
        for line in (rp2_info / "RECORD").read_text().splitlines():
            rel = line.split(",")[0]
            if rel.endswith(".pyi") and ".dist-info" not in rel:
                dst = stubs / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(site / rel, dst)
        shutil.copytree(site / "_mpy_shed", stubs / "_mpy_shed")
        cmd = [sys.executable, "-m", "mypy", "--custom-typeshed-dir", str(site),
               "--python-version", "3.11", "--no-site-packages", "--explicit-package-bases",
               "--check-untyped-defs", "--no-error-summary", "--show-error-codes",
               "--cache-dir", str(stubs / ".cache"), "."]
        proc = subprocess.run(cmd, cwd=ROOT / "firmware", capture_output=True, text=True,
                              env={"MYPYPATH": str(stubs), "PATH": "/usr/bin:/bin"})
    errors = [ln for ln in proc.stdout.splitlines()
              if ": error:" in ln and not ln.startswith(("/", ".."))
              and any(f"[{c}]" in ln for c in CODES)]
    for ln in errors:
        print("firmware/" + ln)
    if proc.returncode not in (0, 1):
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        return 2
    print(f"typecheck: {len(errors)} error(s) against the rp2 stubs")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
