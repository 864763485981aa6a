"""The bench's accounting of interned strings (qstrs): how much heap their
pools would take on a board rather than in the VM that `make bench` runs.

MicroPython interns names and short strings (qstrs) in pools on the heap:
the first pool holds 20, each next one twice as many as the one before; a
pool is 24 bytes plus 7 per entry (pointer, 2-byte hash, 1-byte length) in
16-byte GC blocks, on the rp2 port as in the VM (py/qstr.c). The text of each
string (and its NUL) is heap too.

The VM's harness interns its own names before the baseline (100-270 of them),
so in the VM the firmware's strings fill pools that are partly paid for, and
the strings the harness had already interned cost the firmware nothing. A
board interns next to nothing before the firmware. `on_board` turns a VM
reading into the board's: it takes out the pools the VM allocated after the
baseline, puts in every pool a board starting from none would need for the
firmware's strings, and adds back the strings the harness and the firmware
share (found in the loaded modules' .mpy files, `shared_names`).
"""
from __future__ import annotations

import re
from pathlib import Path

QSTR_POOL_FIRST = 20

# The VM's stand-ins for modules the rp2 firmware has built in (sim/mpfakes):
# their names are in the board's flash, so a firmware name the harness shares
# with them costs the board nothing either.
STAND_INS = ("machine.py", "neopixel.py", "tsf_shim.py")


def qstr_pool_bytes(n: int) -> int:
    """Heap taken by the pools that hold n interned strings, from none."""
    total = cap = 0
    alloc = QSTR_POOL_FIRST
    while cap < n:
        total += (24 + 7 * alloc + 15) // 16 * 16
        cap += alloc
        alloc *= 2
    return total


def qstr_marks(lines: list[str]) -> dict:
    """{tag: (interned strings, bytes of their text, bytes of pools and text)}
    from the "QSTR tag" lines and the micropython.qstr_info() line after each."""
    out = {}
    for i, ln in enumerate(lines[:-1]):
        if ln.startswith("QSTR "):
            m = re.search(r"n_qstr=(\d+), n_str_data_bytes=(\d+), n_total_bytes=(\d+)", lines[i + 1])
            if m:
                out[ln[5:]] = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return out


def harness_names(lines: list[str]) -> set[str]:
    """The strings interned at the baseline: the "Q(name)" lines that
    micropython.qstr_info(1) prints after the "HARNESS" line."""
    names: set[str] = set()
    inside = False
    for ln in lines:
        if ln == "HARNESS":
            inside = True
        elif inside:
            if ln.startswith("Q(") and ln.endswith(")"):
                names.add(ln[2:-1])
            elif not ln.startswith("qstr pool:"):
                inside = False
    return names


def marked_modules(lines: list[str]) -> dict[str, list[str]]:
    """{tag: the modules loaded at that mark} from the "MODS tag name ..." lines."""
    out = {}
    for ln in lines:
        if ln.startswith("MODS "):
            parts = ln.split()
            out[parts[1]] = parts[2:]
    return out


def _read_uint(data: bytes, i: int) -> tuple[int, int]:
    # mpy's variable-length unsigned int: 7 bits a byte, most significant first.
    n = 0
    while True:
        b = data[i]
        i += 1
        n = (n << 7) | (b & 0x7F)
        if not b & 0x80:
            return n, i


def mpy_qstrs(data: bytes) -> set[str]:
    """The strings a bytecode .mpy file (v6) interns when it is loaded: its qstr
    table, without the static ones every MicroPython firmware has built in."""
    if data[:1] != b"M" or data[1] != 6:
        raise ValueError("not an mpy v6 file")
    i = 4
    n_qstr, i = _read_uint(data, i)
    _n_obj, i = _read_uint(data, i)
    names = set()
    for _ in range(n_qstr):
        v, i = _read_uint(data, i)
        if v & 1:               # a static qstr: its index in the built-in table
            continue
        n = v >> 1
        names.add(data[i:i + n].decode("utf-8", "replace"))
        i += n + 1              # the text and its NUL
    return names


def module_file(fw: Path, name: str) -> Path | None:
    """The .mpy file of firmware module `name` in the build `fw`, if it has one."""
    base = fw / name.replace(".", "/")
    for p in (base.with_suffix(".mpy"), base / "__init__.mpy"):
        if p.is_file():
            return p
    return None


def firmware_names(fw: Path, modules: list[str]) -> set[str]:
    names: set[str] = set()
    for m in modules:
        p = module_file(fw, m)
        if p is not None:
            names |= mpy_qstrs(p.read_bytes())
    return names


def shared_names(harness: set[str], firmware: set[str], stand_ins: set[str]) -> set[str]:
    """Strings the firmware interns that the harness had interned already and a
    board does not have built in: on a board the firmware pays for them."""
    return (harness & firmware) - stand_ins


def on_board(live: int, q: dict, tag: str, shared: set[str] | frozenset[str] = frozenset()) -> int | None:
    """The live heap at mark `tag` with the qstr pools a board would hold, and
    the text of the `shared` strings (which the VM's harness had paid for)."""
    if "base" not in q or tag not in q:
        return None
    n_base, data_base, total_base = q["base"]
    n, data, total = q[tag]
    vm_pools = (total - data) - (total_base - data_base)
    text = sum(len(s.encode()) + 1 for s in shared)
    return live - vm_pools + qstr_pool_bytes(n - n_base + len(shared)) + text
