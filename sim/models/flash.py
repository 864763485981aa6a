"""A model of the Pico's littlefs flash filesystem with power-cut points.

The firmware's Store uses `open`, `os.rename` and `os.remove`; the simulator
points `games.store`'s `open` and `os` at this model (the firmware code is
unchanged), and its `json` at `_Json` (json.dump in one write when no one can
see the pieces). Every operation is a power-cut point: the model can report, for a
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

import contextlib
import io
import json
from typing import Any, Callable, Iterator


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
        return super().write(s)

    def close(self) -> None:
        if not self.closed and "w" in self.mode:
            self.fs._op("close", self.path)
            self.fs.files[self.path] = self.getvalue()
            if self.fs._writing.get(self.path) is self:
                del self.fs._writing[self.path]
            self.fs.commits += 1
        super().close()

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Json:
    """What the firmware's store reaches as `json` while a model is attached.

    On the Pico, json.dump is MicroPython's C encoder streaming the text to the
    file in small pieces. On CPython, json.dump to a file runs the pure-Python
    encoder and makes one write per token (about 30 per Super-Skill save): the
    encoding and the model's per-write bookkeeping were a large share of a
    companion run. When nobody can see the file between two pieces -- no
    power-cut observer (on_op) and no virtual time spent per write (stall_us
    "write") -- the text goes in one write, encoded by the C encoder: the same
    text (json.dumps and json.dump give the same), the same commit. Otherwise
    the pieces are written one by one, as before, so a cut can tear a save
    between any two of them."""

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)

    @staticmethod
    def dump(obj: Any, fp: Any, **kw: Any) -> None:
        if type(fp) is FlashFile and fp.fs.on_op is None and not fp.fs.stall_us.get("write"):
            fp.write(json.dumps(obj, **kw))
        else:
            json.dump(obj, fp, **kw)


_JSON = _Json()


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
        # Files open for writing, by path: what a torn cut leaves is read from
        # them when asked (open_writes), not copied out on every write (json.dump
        # writes a save in many small pieces).
        self._writing: dict[str, FlashFile] = {}
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
            f = FlashFile(self, path, mode)
            self._writing[path] = f
            return f
        if path not in self.files:
            raise OSError(2, "ENOENT")
        return FlashFile(self, path, mode, self.files[path])

    @property
    def open_writes(self) -> dict[str, str]:
        """What has been written so far to each file not yet closed."""
        return {p: f.getvalue() for p, f in self._writing.items()}

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


@contextlib.contextmanager
def in_memory(enabled: bool = True) -> Iterator[FlashModel | None]:
    """Saves go to a fresh FlashModel (RAM) inside the block, then back to real
    files. For `hauntbox sim` runs without --state-dir: nobody reads those saves
    after the run, and renaming real files was a large share of its time. The
    firmware's Store runs unchanged; only what its `open`, `os` and `json` reach
    differs."""
    if not enabled:
        yield None
        return
    from hauntbox_sim.fakes import install
    install.install()       # the fakes in place before the firmware's store is imported
    fs = FlashModel()
    attach(fs)
    try:
        yield fs
    finally:
        detach()


def attach(fs: FlashModel) -> None:
    """Point the firmware's store module at this flash model."""
    import games.store as store_mod
    store_mod.open = fs.open  # type: ignore[attr-defined]
    store_mod.os = fs.os  # type: ignore[attr-defined]
    store_mod.json = _JSON  # type: ignore[attr-defined]


def detach() -> None:
    import builtins
    import os

    import games.store as store_mod
    store_mod.open = builtins.open  # type: ignore[attr-defined]
    store_mod.os = os  # type: ignore[attr-defined]
    store_mod.json = json  # type: ignore[attr-defined]
