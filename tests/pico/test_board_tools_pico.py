"""The host's board tools against the emulated Pico behind a pty, as against a
Pico on USB (issue 20, items 12 and sensor injection): `hauntbox fs` and
`hauntbox repl` through the real mpremote, each leaving the game running
again, and a ball injected by the pty's link layer that the firmware on the
chip decodes."""
import json
import os
import pty
import select
import subprocess
import time
import tty

import pytest
from .test_pico_pty import BIN, ROOT, start_pty, stop

from hauntbox.client import Client

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/ptmx"), reason="no pseudo-terminals")


def hauntbox(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "hauntbox"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def test_fs_repl_and_a_ball_on_the_emulated_pico(tmp_path):
    proc, link = start_pty(tmp_path)
    try:
        events: list[dict] = []
        c = Client(link, on_event=events.append, timeout=20.0, reconnect=False)
        c.connect()
        assert c.inject("ball", stair=3)["stair"] == 3
        deadline = time.monotonic() + 20
        while not any(e["ev"] == "ball" for e in events) and time.monotonic() < deadline:
            time.sleep(0.05)
        c.close()
        assert [e["data"] for e in events if e["ev"] == "ball"] == [[3, 1]], events

        t0 = time.monotonic()
        # --stay: the board is left at the REPL; the repl below brings the game back
        # (one reset for the whole test: the emulated boot takes seconds).
        r = hauntbox("fs", "ls", "--port", link, "--stay")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "main.py" in r.stdout and "manifest.json" in r.stdout
        r = hauntbox("fs", "cat", "data/build.json", "--port", link, "--stay")
        assert r.returncode == 0 and "build" in json.loads(r.stdout), r.stdout + r.stderr

        # The REPL on a terminal: stop the game, use Python, leave; the game comes back.
        pid, fd = pty.fork()
        if pid == 0:
            time.sleep(0.2)              # the terminal is made raw first (below)
            os.execv(str(BIN / "hauntbox"), [str(BIN / "hauntbox"), "repl", "--port", link])
        # A raw terminal, as mpremote makes it: Ctrl-C is a byte for the board,
        # never a SIGINT for mpremote (even before mpremote has set it up).
        tty.setraw(fd)
        seen = bytearray()

        def until(token: bytes, seconds: float = 30.0) -> bool:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                if select.select([fd], [], [], 0.2)[0]:
                    try:
                        seen.extend(os.read(fd, 4096))
                    except OSError:
                        break
                    if token in seen:
                        return True
            return token in seen
        try:
            assert until(b"to exit this shell"), seen
            time.sleep(0.5)
            os.write(fd, b"\x03")
            assert until(b">>> "), seen
            os.write(fd, b"print(6 * 7)\r")
            assert until(b"42"), seen
            os.write(fd, b"\x1d")              # Ctrl-]: mpremote hands the port back
            assert until(b"back: the game is running", 40), seen.decode(errors="replace")
        finally:
            _, status = os.waitpid(pid, 0)
            os.close(fd)
        assert os.waitstatus_to_exitcode(status) == 0
        assert b"the game is stopped: restarting it" in seen
        print(f"fs ls, fs cat, repl and back: {time.monotonic() - t0:.1f} s wall")
    finally:
        stop(proc)
