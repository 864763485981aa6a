"""The heap census's naming (sim/pico/heap_census.py), on a made-up heap: a block
map as micropython.mem_info(1) prints it and the SRAM words behind it. The real
census runs on the emulated Pico (`python -m hauntbox_sim.pico.heap_census`,
docs/performance.md); this checks the reading of its output."""
import struct

from hauntbox_sim.pico import heap_census as hc

BASE = 0x20010000
TYPE_MODULE, TYPE_FUNCTION, TYPE_DICT, TYPE_TYPE = 0x10001000, 0x10002000, 0x10003000, 0x10004000


def heap(objects):
    """objects: [(blocks, [words])] laid end to end from BASE; the map and the SRAM."""
    sram = bytearray(0x20000 + 0x1000)
    chars = []
    addr = BASE
    for blocks, words in objects:
        for i, w in enumerate(words):
            struct.pack_into("<I", sram, addr - hc.SRAM_BASE + 4 * i, w)
        chars.append("h" + "=" * (blocks - 1))
        addr += blocks * hc.BLOCK
    row = "".join(chars)
    return row, bytes(sram)


def at(i):
    return BASE + 16 * i


def test_objects_are_named_by_type_module_and_owner():
    # 0: a class Foo (a type)   1: an instance of Foo   2..3: the instance's member table
    # 4: module m's globals (a dict)   5: a module object (a function's context)
    # 6: a function of module m   7..9: its bytecode   10: a block nobody points at
    objects = [
        (1, [TYPE_TYPE]),
        (1, [at(0), 0, 0, at(2)]),
        (2, [0x1234]),
        (1, [TYPE_DICT]),
        (1, [TYPE_MODULE, at(4)]),
        (1, [TYPE_FUNCTION, at(5), 0, at(7)]),
        (3, [0xDEAD]),
        (1, [0x41414141]),
    ]
    row, sram = heap(objects)
    text = [f"CENSUS_T type {TYPE_TYPE}", f"CENSUS_T function {TYPE_FUNCTION}", f"CENSUS_T dict {TYPE_DICT}",
            f"CENSUS_T module {TYPE_MODULE}", f"CENSUS_T m.Foo {at(0)}",
            f"CENSUS_M m {0x20019990} {at(4)}",
            f"GC memory layout; from {BASE:08x}:", f"00000000: {row}"]
    c = hc.census(text, sram)
    names = {a: k for a, _n, k in c["items"]}
    assert names[at(0)] == "class m.Foo"
    assert names[at(1)] == "m.Foo"
    assert names[at(2)] == "m.Foo.data"
    assert names[at(4)] == "globals of m"
    assert names[at(5)] == "code of m"
    assert names[at(6)] == "function of m"
    assert names[at(7)] == "function of m.data"
    assert names[at(10)] == "unowned"
    assert c["total_b"] == 11 * hc.BLOCK
    by = {k: b for k, _n, b in c["by"]}
    assert by["function of m.data"] == 3 * hc.BLOCK


def test_interned_strings_are_sorted_by_where_they_come_from():
    text = ["qstr pool: n_pool=1, n_qstr=4, n_str_data_bytes=30, n_total_bytes=70",
            "Q(play_again)", "Q(games/roller.mpy)", "Q(staircases)", "Q(zz_made_at_run_time)"]
    q = hc.qstr_sources(text, resident={"games.roller", "app"})
    groups = {k: n for k, n, _b in q["groups"]}
    assert groups["other (made at run time, or MicroPython's)"] == 2
    assert q["per_qstr_overhead_b"] == 10.0
