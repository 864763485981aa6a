"""firmware/ram.py on the real rp2 port: while the sensors are live the
firmware holds gc.threshold's collections (ram.hold_collections) so that none
lands on an edge's way to its LEDs, and gives the threshold back afterwards.
CPython has no threshold (ram does nothing there), so only the port can
show it."""
from pathlib import Path

from tests.sim.pico.conftest import repl

RAM = Path(__file__).resolve().parents[3] / "firmware" / "ram.py"

CHECK = (
    "import gc\n"
    "gc.collect()\n"
    "gc.threshold(4096)\n"
    "before = gc.threshold()\n"
    "hold_collections()\n"
    "held = gc.threshold()\n"
    "a = gc.mem_alloc()\n"
    "for i in range(150):\n"
    "    x = bytearray(100)\n"
    "grew_held = gc.mem_alloc() - a\n"
    "release_collections()\n"
    "after = gc.threshold()\n"
    "gc.collect()\n"
    "a = gc.mem_alloc()\n"
    "for i in range(150):\n"
    "    x = bytearray(100)\n"
    "grew_released = gc.mem_alloc() - a\n"
)


def test_collections_are_held_while_sensing_and_the_threshold_comes_back(repl_pico):
    p = repl_pico
    src = RAM.read_text() + CHECK
    p.write(b"\x05" + src.replace("\n", "\r\n").encode() + b"\x04")    # paste mode
    p.run_until_output(b">>> ", 10000)
    out = repl(p, "print(before, held, after, grew_held > 12000, grew_released < 4096 + 512)")
    # 150 x 112 B allocated: with the hold, no collection (all of it is still
    # counted); without it, one every 4096 B.
    assert out.strip().endswith("4096 -1 4096 True True"), out
