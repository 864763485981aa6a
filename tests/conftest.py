"""Test path setup: firmware modules import as on the Pico (rules.x, drivers.x).

firmware/ goes first (Adafruit-Blinka's top-level `board` and `micropython`
must not shadow the firmware's). hauntbox, hauntbox_fw and hauntbox_sim come
from the editable install (`make deps`); the checkout root stays on the path
only for `tests.*` helpers.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "firmware", ROOT, ROOT / "tests"):
    s = str(p)
    if s not in sys.path:
        sys.path.insert(0, s) if p.name == "firmware" else sys.path.append(s)
