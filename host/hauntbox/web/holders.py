"""Which other programs have a serial port open (Linux: /proc/PID/fd).

Linux lets several programs open one serial port at once and then splits the
bytes between them, so neither sees whole lines. The web page says so
("another program holds the port: mpremote (pid 4242)") instead of showing a
board that seems to have gone quiet. A process listed in ``ignore`` (the
simulated board the server started, which keeps its own terminal side open)
and this process are left out, and so is the program on the other side of a
pseudo-terminal (the one holding its master: the simulated board itself). Elsewhere (no /proc) nothing is found.
"""

from __future__ import annotations

import os
from collections.abc import Iterable


def _target(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _name(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return "?"
    if not argv:
        return "?"
    prog = os.path.basename(argv[0])
    # `python -m mod` / `python script`: the module or script says more than "python".
    if prog.startswith("python") and len(argv) > 1:
        rest = argv[2] if argv[1] == "-m" and len(argv) > 2 else os.path.basename(argv[1])
        return f"{prog} {rest}"
    return prog


def port_holders(port: str, ignore: Iterable[int] = ()) -> list[tuple[int, str]]:
    """(pid, program) of every other process with ``port`` open, by pid."""
    want = _target(port)
    if want is None or not os.path.isdir("/proc"):
        return []
    skip = {os.getpid(), *ignore}
    real = os.path.realpath(port)
    pty_index = real[len("/dev/pts/"):] if real.startswith("/dev/pts/") else None
    found = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if int(pid) in skip:
            continue
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue            # gone, or not ours to look at
        holds = board = False
        for fd in fds:
            try:
                if _target(os.path.join(fd_dir, fd)) == want:
                    holds = True
                elif pty_index is not None and _is_master_of(pid, fd, pty_index):
                    board = True
            except OSError:
                continue
        if holds and not board:
            found.append((int(pid), _name(pid)))
    return sorted(found)


def _is_master_of(pid: str, fd: str, index: str) -> bool:
    # The process holding a pty's master side is the (simulated) board itself.
    if os.readlink(f"/proc/{pid}/fd/{fd}") != "/dev/ptmx":
        return False
    with open(f"/proc/{pid}/fdinfo/{fd}") as f:
        return any(line.split() == ["tty-index:", index] for line in f)
