"""The heap census: what the live heap of a build is made of, read off the
emulated Pico's SRAM during real play (docs/performance.md).

A bench heap run (sim/pico/bench.py) with census=True ends with the board
printing, from sim/pico/census_probe.py, the addresses of the types, modules
and module dicts it has, and its heap's block map (micropython.mem_info(1):
every 16-byte block free, the head of an object, or a tail); the SRAM is
copied right then. Here each object (a head and its tails) is named:

- by its first word, the type pointer of every MicroPython object: a built-in
  type, or a class of one of the loaded modules (an instance);
- a block that starts with no known type is a buffer of another object (a dict's
  table, a list's items, a function's bytecode, an array's data, a qstr pool):
  it is named after the first typed object found pointing at its start, as
  "<owner>.data"; a module's globals dict is named after the module;
- what is left (pointed to from outside the heap only: the interpreter's qstr
  pools and chunks, the C stack) is "unowned", with how much of it is text.

    python -m hauntbox_sim.pico.heap_census [--build roller-ghoster] [--turns 3] [--seed 7]
"""
from __future__ import annotations

import argparse
import re
import struct
import sys
from collections import defaultdict
from typing import Any

BLOCK = 16
# Built-in types whose objects are parts of something else (named after their owner).
GENERIC = {"dict", "list", "tuple", "str", "bytes", "function", "bound_method", "bigint", "float",
           "closure", "bytearray", "array.array", "memoryview", "set", "property", "staticmethod",
           "classmethod"}
SRAM_BASE = 0x20000000


def parse(text: list[str]) -> tuple[dict[int, str], dict[int, str], int, str]:
    """(type address -> name, module-dict address -> module, heap start, the map's
    characters, one per block)."""
    types: dict[int, str] = {}
    dicts: dict[int, str] = {}
    start = 0
    blocks: list[str] = []
    for line in text:
        line = line.strip()
        if line.startswith("CENSUS_T "):
            _, name, addr = line.split()
            types.setdefault(int(addr), name)
        elif line.startswith("CENSUS_M "):
            _, name, mod, d = line.split()
            types.setdefault(int(mod), "module " + name)   # not a type: marks the module object
            dicts[int(d)] = name
        elif line.startswith("GC memory layout; from "):
            start = int(line.split("from ")[1].rstrip(":"), 16)
        else:
            m = re.match(r"^([0-9a-f]{8}): (\S+)$", line)
            if m and start:
                off = int(m.group(1), 16) // BLOCK
                if len(blocks) < off:
                    blocks.extend("." * (off - len(blocks)))
                blocks[off:off + len(m.group(2))] = list(m.group(2))
    return types, dicts, start, "".join(blocks)


def objects(blocks: str) -> list[tuple[int, int]]:
    """(first block, blocks) of every object in the map."""
    out = []
    i = 0
    while i < len(blocks):
        if blocks[i] in ".=":
            i += 1
            continue
        k = i + 1
        while k < len(blocks) and blocks[k] == "=":
            k += 1
        out.append((i, k - i))
        i = k
    return out


def census(text: list[str], sram: bytes) -> dict[str, Any]:
    types, dicts, start, blocks = parse(text)
    if not start:
        raise ValueError("no heap map in the census text")

    def word(addr: int) -> int:
        o = addr - SRAM_BASE
        return struct.unpack_from("<I", sram, o)[0] if 0 <= o <= len(sram) - 4 else 0

    objs = objects(blocks)
    addr_of = {start + b * BLOCK: (b, n) for b, n in objs}
    name: dict[int, str] = {}
    module_type = next((a for a, n in types.items() if n == "module"), None)
    function_type = next((a for a, n in types.items() if n == "function"), None)

    def module_of_context(ctx: int) -> str | None:
        # A function's context is a module object (mp_module_context_t starts
        # with one): its second word is that module's globals dict.
        return dicts.get(word(ctx + 4)) if word(ctx) == module_type else None

    for a in addr_of:
        t = word(a)
        if a in dicts:
            name[a] = "globals of " + dicts[a]
        elif a in types and types[a].startswith("module "):
            name[a] = types[a]
        elif a in types:
            name[a] = "class " + types[a]
        elif t == function_type:
            m = module_of_context(word(a + 4))
            name[a] = "function of " + m if m else "function"
        elif t == module_type and module_of_context(a):
            name[a] = "code of " + str(module_of_context(a))
        elif t in types and not types[t].startswith("module "):
            name[a] = types[t]
        elif t in addr_of and word(t) in types and types[word(t)] == "type":
            name[a] = "instance of a class made at run time"
    # Buffers and plain objects: named after the first object with a specific
    # name that points at them, in rounds (a class points at its dict, the
    # dict at its table, the table at the functions, a function at its
    # bytecode). Plain objects (a dict, a list, a string...) only name what no
    # specific owner reaches.
    def generic(k: str | None) -> bool:
        return k is None or k.split(".data")[0] in GENERIC

    for specific_only in (True, False):
        for _ in range(8):
            changed = False
            for a, (_b, n) in addr_of.items():
                owner = name.get(a)
                if owner is None or (specific_only and generic(owner)):
                    continue
                for off in range(0, n * BLOCK, 4):
                    p = word(a + off)
                    if p in addr_of and p != a and (p not in name if not specific_only
                                                     else generic(name.get(p))):
                        if p in name and not generic(name[p]):
                            continue
                        name[p] = owner if owner.endswith(".data") else owner + ".data"
                        changed = True
            if not changed:
                break
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    unowned_text = 0
    for a, (_b, n) in addr_of.items():
        k = name.get(a, "unowned")
        by[k][0] += 1
        by[k][1] += n * BLOCK
        if k == "unowned":
            o = a - SRAM_BASE
            chunk = sram[o:o + n * BLOCK]
            unowned_text += sum(32 <= c < 127 for c in chunk)
    total = sum(v[1] for v in by.values())
    items = [(a, n * BLOCK, name.get(a, "unowned")) for a, (_b, n) in sorted(addr_of.items())]
    return {"total_b": total, "objects": len(addr_of), "unowned_printable_b": unowned_text, "items": items,
            "free_b": blocks.count(".") * BLOCK,
            "by": sorted(((k, v[0], v[1]) for k, v in by.items()), key=lambda r: -r[2])}


def qstr_sources(text: list[str], resident: set[str]) -> dict[str, Any]:
    """The board's interned strings (micropython.qstr_info(1): "Q(name)" lines)
    sorted by where they come from: a name or string in the code of a module
    still loaded, only in modules no longer loaded (loaders dropped after use:
    their names stay interned for good), in the game data files, or elsewhere
    (made at run time, MicroPython's own)."""
    import ast
    import io
    import json
    import tokenize
    from pathlib import Path
    fw = Path(__file__).resolve().parents[2] / "firmware"
    where: dict[str, set[str]] = defaultdict(set)
    for f in fw.rglob("*.py"):
        mod = ".".join(f.relative_to(fw).with_suffix("").parts).removesuffix(".__init__")
        try:
            for tok in tokenize.generate_tokens(io.StringIO(f.read_text()).readline):
                if tok.type == tokenize.NAME:
                    where[tok.string].add(mod)
                elif tok.type == tokenize.STRING:
                    try:
                        v = ast.literal_eval(tok.string)
                    except Exception:  # noqa: BLE001
                        continue
                    if isinstance(v, str):
                        where[v].add(mod)
        except (tokenize.TokenError, SyntaxError):
            continue
    data: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            data.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                data.add(k)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for f in list(fw.rglob("*.json")):
        walk(json.loads(f.read_text()))
    qs = [m.group(1) for line in text if (m := re.match(r"^Q\((.*)\)$", line.strip()))]
    info = next((line for line in text if line.startswith("qstr pool:")), "")
    n = re.search(r"n_qstr=(\d+)", info)
    total = re.search(r"n_total_bytes=(\d+)", info)
    data_b = re.search(r"n_str_data_bytes=(\d+)", info)
    per = ((int(total.group(1)) - int(data_b.group(1))) / int(n.group(1))) if n and total and data_b else 0.0
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    gone: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for q in qs:
        mods = where.get(q, set())
        if mods & resident:
            g = "names in the code of loaded modules"
        elif mods:
            g = "names only in modules no longer loaded"
            for m in mods:
                gone[m][0] += 1
                gone[m][1] += len(q) + 1
        elif q in data:
            g = "strings of the game data"
        else:
            g = "other (made at run time, or MicroPython's)"
        groups[g][0] += 1
        groups[g][1] += len(q) + 1
    return {"listed": len(qs), "pool_line": info, "per_qstr_overhead_b": round(per, 1),
            "groups": sorted(((k, v[0], v[1]) for k, v in groups.items()), key=lambda r: -r[1]),
            "gone": sorted(((k, v[0], v[1]) for k, v in gone.items()), key=lambda r: -r[1])}


def report(c: dict[str, Any], top: int = 40) -> None:
    print(f"live heap in the map: {c['total_b']} B in {c['objects']} objects; free {c['free_b']} B")
    print(f"{'what':58} {'objects':>7} {'bytes':>7}")
    for k, n, b in c["by"][:top]:
        print(f"{k[:58]:58} {n:7} {b:7}")
    rest = c["by"][top:]
    if rest:
        print(f"{'(' + str(len(rest)) + ' more kinds)':58} {sum(r[1] for r in rest):7} {sum(r[2] for r in rest):7}")
    print(f"unowned blocks hold {c['unowned_printable_b']} printable bytes (qstr text among them)")


def show(c: dict[str, Any], sram: bytes, kind: str, limit: int = 60) -> None:
    """The objects of one kind, largest first, with their bytes as text."""
    rows = sorted((r for r in c["items"] if r[2] == kind), key=lambda r: -r[1])
    for a, n, _k in rows[:limit]:
        o = a - SRAM_BASE
        raw = sram[o:o + min(n, 96)]
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in raw)
        print(f"  {a:#010x} {n:6} B  {text}")


def main(argv: list[str] | None = None) -> int:
    from pathlib import Path

    from hauntbox_sim.pico import bench
    ap = argparse.ArgumentParser(prog="python -m hauntbox_sim.pico.heap_census", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="roller-ghoster", choices=sorted(bench.BUILDS))
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--show", action="append", default=[], metavar="KIND",
                    help="list the objects of this kind with their bytes as text (repeatable)")
    ap.add_argument("--load", action="store_true",
                    help="analyse the census saved by the last run of this build instead of running one")
    a = ap.parse_args(argv)
    out = bench.ROOT / "build" / "heap-census"
    txt, raw = out / f"{a.build}.txt", out / f"{a.build}.sram"
    if a.load:
        if not (txt.is_file() and raw.is_file()):
            print(f"heap_census: no saved census of {a.build} in {out}: run it once without --load",
                  file=sys.stderr)
            return 2
        text, sram = txt.read_text().splitlines(), raw.read_bytes()
    else:
        r = bench.heap_run(a.build, 1, a.seed, turns=a.turns, census=True)
        if not r.get("census"):
            print("heap_census: the board printed no census", file=sys.stderr)
            return 1
        f = bench.figures_of(r)
        print(f"{a.build}: heap_rest {f['heap_rest_kib']} KiB, peak {f['heap_peak_kib']} KiB, largest free block "
              f"{f['largest_free_kib']} KiB over {f['turns']} turns (the census is taken after them, its probes "
              f"included)")
        text, sram = r["census"]["text"], r["census"]["sram"]
        out.mkdir(parents=True, exist_ok=True)
        txt.write_text("\n".join(text))
        raw.write_bytes(sram)
        print(f"saved in {Path(txt).relative_to(bench.ROOT)} and .sram (--load re-reads them)")
    c = census(text, sram)
    report(c, a.top)
    resident = {ln.split()[1] for ln in text if ln.startswith("CENSUS_M ")}
    q = qstr_sources(text, resident)
    if q["listed"]:
        print(f"interned strings: {q['pool_line']}; the pools' own bytes ~{q['per_qstr_overhead_b']} B a string")
        for k, n, b in q["groups"]:
            print(f"  {k:50} {n:5} strings {b:6} B of text")
        print("  of which only in modules no longer loaded: " +
              ", ".join(f"{m} {n}" for m, n, _b in q["gone"][:12]))
    for kind in a.show:
        print(f"{kind}:")
        show(c, sram, kind)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
