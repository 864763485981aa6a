"""littlefs images of the emulated Pico's filesystem, made and read on the host.

The rp2 port mounts littlefs v2 with 4 KiB blocks over the last 1408 KiB of a
2 MB Pico's flash (352 blocks at offset 0xA0000) and MicroPython's own
geometry (read and prog size 32, lookahead 32). An image made here with the
same geometry is what the port itself would have written, so a test that only
needs the build on the board can skip flashing it over USB.
"""
from __future__ import annotations

import json
from pathlib import Path

from hauntbox_sim.pico.emulator import FS_BLOCK, FS_BLOCKS

GEOMETRY = dict(block_size=FS_BLOCK, block_count=FS_BLOCKS, read_size=32, prog_size=32,
                lookahead_size=32)


def _fs(data: bytes | None = None):
    try:
        import littlefs
    except ImportError as e:  # pragma: no cover - a dependency of the package
        raise RuntimeError("the emulated Pico's filesystem needs littlefs-python "
                           "(pip install littlefs-python)") from e
    if data is None:
        fs = littlefs.LittleFS(**GEOMETRY)
    else:
        fs = littlefs.LittleFS(mount=False, **GEOMETRY)
        fs.context.buffer = bytearray(data)
        fs.mount()
    return fs


def make_image(files: dict[str, bytes]) -> bytes:
    """A formatted filesystem holding `files` ({"/path": bytes})."""
    fs = _fs()
    for path, data in sorted(files.items()):
        parent = str(Path(path).parent)
        if parent not in ("/", "."):
            fs.makedirs(parent, exist_ok=True)
        with fs.open(path, "wb") as f:
            f.write(data)
    return bytes(fs.context.buffer)


def build_files(build_dir: Path, settings: dict | None = None,
                extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """The files of a firmware build (hauntbox_fw.build output), plus config.json."""
    files = {}
    for p in sorted(Path(build_dir).rglob("*")):
        if p.is_file():
            files["/" + p.relative_to(build_dir).as_posix()] = p.read_bytes()
    if settings:
        files["/config.json"] = json.dumps(settings).encode()
    files.update(extra or {})
    return files


def read_files(image: bytes) -> dict[str, bytes]:
    """Every file in a filesystem image (raises on an image that does not mount)."""
    fs = _fs(image)
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for n in names:
            path = (root.rstrip("/") + "/" + n)
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out
