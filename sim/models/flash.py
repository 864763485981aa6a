"""A model of the Pico's littlefs flash filesystem with power-cut points.

The firmware's Store uses `open`, `os.rename` and `os.remove`; the simulator
points `games.store`'s `open` and `os` at this model (the firmware code is
unchanged). Every operation is a power-cut point: the model can report, for a
cut at any point, the filesystem a rebooted board would find:

- a file being written is only committed when it is closed (littlefs is
  copy-on-write): a cut before close leaves the previous committed content of
  that path (none, for a new temporary file) -- or, in `torn` mode, the bytes
  written so far, to model a filesystem without that guarantee;
- rename and remove are atomic: before or after, never half.

`stall_us` gives operations a duration in virtual time: the firmware waits
(its loop is blocked, as on a Pico while littlefs programs or erases flash)
while the hardware goes on (the scheduled edges still fire).
"""
from __future__ import annotations

import io
from typing import Any, Callable


class FlashFile(io.StringIO):
    def __init__(self, fs: "FlashModel", path: str, mode: str, initial: str = "") -> None:
        super().__init__(initial)
        self.fs = fs
        self.path = path
        self.mode = mode
        if "w" not in mode:
            self.seek(0)

    def write(self, s: str) -> int:
        self.fs._op("write", self.path)
        n = super().write(s)
        self.fs.open_writes[self.path] = self.getvalue()
        return n

    def close(self) -> None:
        if not self.closed and "w" in self.mode:
            self.fs._op("close", self.path)
            self.fs.files[self.path] = self.getvalue()
            self.fs.open_writes.pop(self.path, None)
            self.fs.commits += 1
        super().close()

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Os:
    def __init__(self, fs: "FlashModel") -> None:
        self.fs = fs

    def rename(self, src: str, dst: str) -> None:
        self.fs.rename(src, dst)

    def remove(self, path: str) -> None:
        self.fs.remove(path)

    def stat(self, path: str) -> tuple:
        if path not in self.fs.files:
            raise OSError(2, "ENOENT")
        return (0x8000, 0, 0, 0, 0, 0, len(self.fs.files[path]), 0, 0, 0)

    def listdir(self, path: str = "/") -> list[str]:
        return sorted(p.rsplit("/", 1)[-1] for p in self.fs.files)


class FlashModel:
    def __init__(self, files: dict[str, str] | None = None,
                 stall_us: dict[str, int] | None = None) -> None:
        self.files: dict[str, str] = dict(files or {})
        self.stall_us = stall_us or {}     # operation kind -> time it blocks the firmware
        self.open_writes: dict[str, str] = {}
        self.ops = 0
        self.commits = 0
        self.renames = 0
        self.on_op: Callable[[str, str], None] | None = None
        self.os = _Os(self)

    def _op(self, kind: str, path: str) -> None:
        # Called *before* the operation takes effect: a cut here means it never happened.
        self.ops += 1
        if self.on_op is not None:
            self.on_op(kind, path)
        us = self.stall_us.get(kind, 0)
        if us:
            from hauntbox_sim.core import runtime
            runtime.irq_off(us)     # littlefs programs and erases with interrupts off

    def open(self, path: str, mode: str = "r") -> FlashFile:
        if "w" in mode:
            self._op("open", path)
            self.open_writes[path] = ""
            return FlashFile(self, path, mode)
        if path not in self.files:
            raise OSError(2, "ENOENT")
        return FlashFile(self, path, mode, self.files[path])

    def rename(self, src: str, dst: str) -> None:
        self._op("rename", src)
        if src not in self.files:
            raise OSError(2, "ENOENT")
        self.files[dst] = self.files.pop(src)
        self.renames += 1

    def remove(self, path: str) -> None:
        if path not in self.files:
            raise OSError(2, "ENOENT")
        self._op("remove", path)
        del self.files[path]

    def after_cut(self, torn: bool = False) -> dict[str, str]:
        """The files a rebooted board finds if the power went now."""
        out = dict(self.files)
        if torn:
            out.update(self.open_writes)
        return out


def attach(fs: FlashModel) -> None:
    """Point the firmware's store module at this flash model."""
    import games.store as store_mod
    store_mod.open = fs.open  # type: ignore[attr-defined]
    store_mod.os = fs.os  # type: ignore[attr-defined]


def detach() -> None:
    import builtins
    import os

    import games.store as store_mod
    store_mod.open = builtins.open  # type: ignore[attr-defined]
    store_mod.os = os  # type: ignore[attr-defined]
