"""The firmware build as it goes onto the emulated Pico's flash.

The build is the one `hauntbox flash` copies (mpy-cross bytecode, minified
data, manifest); it is cached under build/pico/ by its build id, so a test
session compiles once.
"""
from __future__ import annotations

import json
from pathlib import Path

from hauntbox_fw.paths import BUILD_DIR, FIRMWARE_DIR
from hauntbox_sim.pico import fsimage

ROOT = Path(__file__).resolve().parents[2]
# Next to the firmware build: build/pico in the checkout, the user cache when installed.
CACHE = BUILD_DIR.parent / "pico"
_built: Path | None = None


def firmware_build() -> Path:
    """Compile firmware/ (once per process) and return the build folder."""
    global _built
    if _built is None:
        from hauntbox_fw.build import build     # the image maker hauntbox flash uses
        _built = build(out=CACHE / "fw").out_dir
    return _built


def image(settings: dict | None = None, extra: dict[str, bytes] | None = None,
          main: bool = True) -> bytes:
    """A littlefs image holding the build, a config.json with `settings`, `extra` files.

    main=False leaves main.py out, so the board boots to the REPL.
    """
    files = fsimage.build_files(firmware_build(), settings, extra)
    if not main:
        files.pop("/main.py", None)
    return fsimage.make_image(files)


def pinmap(build: str) -> dict:
    return json.loads((FIRMWARE_DIR / "boards" / (build + ".json")).read_text())
