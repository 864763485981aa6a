"""Start a simulated board on a pseudo-terminal in a child process.

``SimBoardProcess(["--players", "2", "--fast"]).start()`` runs
``python -m hauntbox_sim.boards.pty ...`` (the same board as ``hauntbox sim --pty``)
from the repository, waits for its ``board on /dev/pts/N`` line and returns
that path; ``stop()`` ends it (SIGTERM, then SIGKILL). The console's
``--port sim`` and the end-to-end tests use it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence


READY_PREFIX = "board on "


class SimBoardProcess:
    def __init__(self, args: Sequence[str] = (), python: str = sys.executable) -> None:
        self.args = list(args)
        self.python = python
        self.proc: subprocess.Popen | None = None
        self.path = ""
        self.output: deque[str] = deque(maxlen=200)
        self._reader: threading.Thread | None = None

    def command(self) -> list[str]:
        return [self.python, "-m", "hauntbox_sim.boards.pty", *self.args]

    def start(self, timeout: float = 20.0) -> str:
        """Start the board; return its pty path (RuntimeError if it does not come up)."""
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            self.command(), env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        found = threading.Event()

        def read() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                line = line.rstrip("\n")
                self.output.append(line)
                if not found.is_set() and line.startswith(READY_PREFIX):
                    self.path = line[len(READY_PREFIX):].split()[0]
                    found.set()
            found.set()

        self._reader = threading.Thread(target=read, name="simboard-out", daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while not found.wait(0.05):
            if time.monotonic() > deadline:
                break
        if not self.path:
            self.stop()
            tail = "\n".join(list(self.output)[-10:]) or "(no output)"
            raise RuntimeError(f"the simulated board did not start:\n{tail}")
        return self.path

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 5.0) -> int | None:
        p = self.proc
        if p is None:
            return None
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout)
        if self._reader is not None:
            self._reader.join(1.0)
        return p.returncode

    def __enter__(self) -> SimBoardProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
