"""The emulated Pico behind a pseudo-terminal, driven by the real tools:
mpremote (exec, fs), `hauntbox flash` (mpremote copies, reset, hello check).

A full flash of a blank emulated Pico takes about two minutes of wall time
(mpremote's raw-REPL copy runs at about 7 KB/s here), so the test flashes a
board whose build is three files out of date; `make pico`'s docs give the
full figure.
"""
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hauntbox_sim.pico import fsimage
from hauntbox_sim.pico import image as pico_image

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def start_pty(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, str]:
    link = str(tmp_path / "pico")
    proc = subprocess.Popen([str(BIN / "hauntbox"), "sim", "--pico", "--pty", "--link", link,
                             "--quiet", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("board on /dev/pts/"), line
    for _ in range(2):
        proc.stdout.readline()
    return proc, link


def stop(proc: subprocess.Popen) -> str:
    proc.terminate()
    out, _ = proc.communicate(timeout=20)
    return out


def mpremote(link: str, *args: str, timeout: float = 60) -> str:
    r = subprocess.run([str(BIN / "mpremote"), "connect", link, *args], capture_output=True,
                       text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def stale_image(n: int = 3) -> tuple[bytes, list[str]]:
    """The current build on flash, except n files from an older build
    (different contents, and the board's manifest says so)."""
    files = fsimage.build_files(pico_image.firmware_build(), {"game": "roller-ghoster"})
    manifest = json.loads(files["/manifest.json"])
    old = []
    for e in manifest["files"]:
        if e["path"].startswith("rules/") and len(old) < n:
            data = b"# an older build of " + e["path"].encode() + b"\n"
            files["/" + e["path"]] = data
            e["sha256"] = hashlib.sha256(data).hexdigest()
            e["size"] = len(data)
            old.append(e["path"])
    files["/manifest.json"] = json.dumps(manifest).encode()
    return fsimage.make_image(files), old


def test_mpremote_talks_to_the_emulated_pico_as_to_a_pico_on_usb(tmp_path):
    proc, link = start_pty(tmp_path)
    try:
        assert mpremote(link, "exec", "import sys; print(sys.implementation._machine)").strip() \
            == "Raspberry Pi Pico with RP2040"
        listing = mpremote(link, "fs", "ls")
        assert "main.py" in listing and "manifest.json" in listing
    finally:
        stop(proc)


def test_hauntbox_flash_updates_the_emulated_pico_and_verifies_the_build(tmp_path):
    img, old = stale_image()
    state = tmp_path / "state"
    state.mkdir()
    (state / "flash.bin").write_bytes(img)
    proc, link = start_pty(tmp_path, "--state-dir", str(state))
    try:
        t0 = time.monotonic()
        # The emulated chip boots the game at about 0.1x real time (JIT warm-up
        # included): about 8 s of wall time to the hello answer.
        r = subprocess.run([str(BIN / "hauntbox"), "flash", "--port", link, "--boot-timeout", "40"],
                           capture_output=True,
                           text=True, timeout=240, cwd=ROOT)
        wall = time.monotonic() - t0
        assert r.returncode == 0, r.stdout + r.stderr
        assert "hello OK" in r.stdout
        assert f"{len(old)} copied" in r.stdout, r.stdout
        print(f"flash of {len(old)} files: {wall:.1f} s wall")
    finally:
        stop(proc)
    # --state-dir kept the emulated flash: the new files are in it.
    files = fsimage.read_files((state / "flash.bin").read_bytes())
    built = pico_image.firmware_build()
    for path in old:
        assert files["/" + path] == (built / path).read_bytes()


@pytest.mark.skipif(not os.path.exists("/dev/ptmx"), reason="no pseudo-terminals here")
def test_a_bad_option_is_one_line_and_a_non_zero_exit(tmp_path):
    r = subprocess.run([str(BIN / "hauntbox"), "sim", "--pico", "--pty", "--link",
                        "/nonexistent/dir/port"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "no such folder" in r.stderr
