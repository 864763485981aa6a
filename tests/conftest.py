"""Test path setup: firmware modules import as on the Pico (rules.x, drivers.x)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "firmware", ROOT, ROOT / "host", ROOT / "tests"):
    s = str(p)
    if s not in sys.path:
        sys.path.insert(0, s) if p.name == "firmware" else sys.path.append(s)
