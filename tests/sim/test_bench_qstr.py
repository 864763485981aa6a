"""The bench's accounting of interned strings (sim/bench.py): the pool model
of MicroPython's py/qstr.c, the parsing of micropython.qstr_info() and the
heap a board would hold with its own pools."""
from sim.bench import on_board, qstr_marks, qstr_pool_bytes


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
