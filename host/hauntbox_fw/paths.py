"""Where the firmware is: package data in an installed wheel, else the checkout's firmware/.

Every entry point puts FIRMWARE_DIR *first* on sys.path (`prepend_firmware`):
Adafruit-Blinka, which adafruit-circuitpython-pixelbuf brings, installs
top-level `board` and `micropython` packages that would otherwise shadow the
firmware's own `board.py` and MicroPython's `micropython.const`.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: The wheel's copy of firmware/ (setup.py's build_py puts it there).
_PACKAGED = _HERE / "_firmware"
#: The repository this module runs from, or None when installed from a wheel.
CHECKOUT: Path | None = (_HERE.parents[1] if (_HERE.parents[1] / "firmware" / "main.py").is_file()
                         else None)
FIRMWARE_DIR: Path = (_PACKAGED if (_PACKAGED / "main.py").is_file() or CHECKOUT is None
                      else CHECKOUT / "firmware")
#: Where builds go: build/firmware in the checkout, a user cache folder when installed.
BUILD_DIR: Path = (CHECKOUT / "build" / "firmware" if CHECKOUT is not None else
                   Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                   / "hauntbox" / "build" / "firmware")


def prepend_firmware() -> str:
    """Put firmware/ at the front of sys.path (moved there if it was further back)."""
    p = str(FIRMWARE_DIR)
    while p in sys.path:
        sys.path.remove(p)
    sys.path.insert(0, p)
    return p
