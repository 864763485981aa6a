"""Lint and types: ruff over the whole tree, and firmware/ against the MicroPython rp2 stubs."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_ruff_is_clean():
    proc = subprocess.run([str(BIN / "ruff"), "check", "firmware", "sim", "host", "tests"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_firmware_typechecks_against_the_rp2_stubs():
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "typecheck.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_firmware_avoids_modules_micropython_lacks():
    banned = ("dataclasses", "typing", "pathlib", "enum", "abc", "subprocess", "threading", "functools")
    bad = []
    for path in (ROOT / "firmware").rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            s = line.strip()
            for mod in banned:
                if s.startswith((f"import {mod}", f"from {mod} ")):
                    bad.append(f"{path.relative_to(ROOT)}:{n}: {s}")
    assert not bad, "\n".join(bad)
