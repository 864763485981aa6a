"""The bench's accounting of interned strings (sim/bench_qstr.py): the pool
model of MicroPython's py/qstr.c, the parsing of micropython.qstr_info(), the
strings a .mpy file interns, and the heap a board would hold with its own
pools."""
from pathlib import Path

from sim.bench_qstr import (firmware_names, harness_names, marked_modules, module_file, mpy_qstrs,
                            on_board, qstr_marks, qstr_pool_bytes, shared_names)


def test_pool_sizes_double_from_twenty():
    # 24 bytes + 7 per entry, in 16-byte blocks: 20 -> 176, 40 -> 304, 80 -> 592 ...
    assert qstr_pool_bytes(0) == 0
    assert qstr_pool_bytes(1) == qstr_pool_bytes(20) == 176
    assert qstr_pool_bytes(21) == 176 + 304
    assert qstr_pool_bytes(140) == 176 + 304 + 592
    assert qstr_pool_bytes(620) == 176 + 304 + 592 + 1152 + 2272
    assert qstr_pool_bytes(621) == qstr_pool_bytes(620) + 4512


def test_the_model_matches_what_the_vm_reported():
    # micropython.qstr_info() in the VM at the bench's start: 3 pools, 129
    # strings, 944 bytes of text, 2016 in all: the pools are 1072 bytes.
    assert qstr_pool_bytes(129) == 2016 - 944


def test_marks_are_read_from_the_vm_output():
    lines = ["QSTR base", "qstr pool: n_pool=3, n_qstr=129, n_str_data_bytes=944, n_total_bytes=2016",
             "noise", "QSTR setup", "qstr pool: n_pool=5, n_qstr=612, n_str_data_bytes=5796, "
             "n_total_bytes=10292", '{"done": 1}']
    assert qstr_marks(lines) == {"base": (129, 944, 2016), "setup": (612, 5796, 10292)}


def test_board_estimate_swaps_the_vm_pools_for_a_boards():
    q = {"base": (129, 944, 2016), "setup": (612, 5796, 10292)}
    vm_pools = (10292 - 5796) - (2016 - 944)          # pools the VM added after the baseline
    assert on_board(50000, q, "setup") == 50000 - vm_pools + qstr_pool_bytes(612 - 129)
    assert on_board(50000, {"setup": (1, 1, 1)}, "setup") is None


def test_board_estimate_counts_the_strings_the_harness_had_paid_for():
    q = {"base": (129, 944, 2016), "setup": (612, 5796, 10292)}
    shared = {"players", "App"}
    vm_pools = (10292 - 5796) - (2016 - 944)
    # 483 + 2 strings: still the same pools; the text of both (and their NULs) added
    assert on_board(50000, q, "setup", shared) == \
        50000 - vm_pools + qstr_pool_bytes(485) + len("players") + 1 + len("App") + 1
    # crossing a pool boundary costs the whole next pool
    q2 = {"base": (100, 0, 1000), "setup": (719, 0, 1000)}        # 619 firmware strings
    assert on_board(0, q2, "setup", {"a", "b"}) - on_board(0, q2, "setup") == 4512 + 4


def test_harness_names_and_loaded_modules_are_read_from_the_vm_output():
    lines = ["QSTR base", "qstr pool: n_pool=1, n_qstr=3, n_str_data_bytes=9, n_total_bytes=185",
             "MODS base machine neopixel", "HARNESS",
             "qstr pool: n_pool=1, n_qstr=3, n_str_data_bytes=9, n_total_bytes=185",
             "Q(/fw)", "Q(settle)", "Q(S)", "QSTR setup",
             "qstr pool: n_pool=2, n_qstr=30, n_str_data_bytes=99, n_total_bytes=500",
             "MODS setup app games games.beetlejuice machine", "{}"]
    assert harness_names(lines) == {"/fw", "settle", "S"}
    assert marked_modules(lines) == {"base": ["machine", "neopixel"],
                                     "setup": ["app", "games", "games.beetlejuice", "machine"]}


def test_mpy_files_name_the_strings_they_intern(tmp_path):
    from hauntbox.build import compile_py
    src = tmp_path / "m.py"
    src.write_text("zq_board_name = 1\n\ndef zq_turn(x):\n    return x.append('short')\n"
                   "LONG = 'a text longer than ten characters is an object, not interned'\n")
    names = mpy_qstrs(compile_py(src, "m.py", tmp_path / "m.mpy"))
    assert {"zq_board_name", "zq_turn", "short", "m"} <= names
    assert "append" not in names                    # static: every firmware has it built in
    assert not any(n.startswith("a text") for n in names)


def test_shared_names_leave_out_the_stand_ins_for_built_in_modules(tmp_path):
    from hauntbox.build import compile_py
    (tmp_path / "games").mkdir()
    src = tmp_path / "x.py"
    src.write_text("def zq_play(app):\n    return app.zq_pin.zq_value()\n")
    compile_py(src, "games/__init__.py", tmp_path / "games" / "__init__.mpy")
    assert module_file(tmp_path, "games") == tmp_path / "games" / "__init__.mpy"
    assert module_file(tmp_path, "asyncio") is None                 # not the firmware's
    fw = firmware_names(tmp_path, ["games", "asyncio"])
    assert {"zq_play", "zq_pin", "zq_value"} <= fw
    assert shared_names({"zq_play", "zq_value", "settle"}, fw, {"zq_value"}) == {"zq_play"}


def test_the_bench_reads_the_shared_strings_of_a_real_build():
    # The firmware's own modules, as built: names every game uses are found.
    from hauntbox.build import build
    import tempfile
    out = build(out=Path(tempfile.mkdtemp(prefix="hauntbox-qstr-")) / "fw").out_dir
    names = firmware_names(out, ["app", "protocol", "games.events"])
    assert {"App", "main_async", "take_event", "publish"} <= names
