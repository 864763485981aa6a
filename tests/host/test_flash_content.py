"""Issue 17, defect 17: `hauntbox flash` goes by what is on the board, not by its manifest.

The fake board of test_flash.py runs the code flash.py sends (the hashing
script included) against its own files, so these tests check the board's
contents after a flash whose manifest lies, lists files hauntbox never wrote,
or meets a copy that did not arrive intact.
"""
from __future__ import annotations

import hashlib
import json

import pytest
from test_flash import TREE, FakeBoard, assert_board_matches, do_flash, make_tree

from hauntbox_fw import build as hb
from hauntbox import flash as fl


@pytest.fixture
def tree(tmp_path):
    return make_tree(tmp_path / "fw", TREE)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def forged_manifest(board, entries):
    m = json.loads(board.files[fl.BOARD_MANIFEST])
    m["files"] += [{"path": p, "size": len(d), "sha256": sha(d)} for p, d in entries.items()]
    board.files[fl.BOARD_MANIFEST] = json.dumps(m).encode()


def test_a_manifest_that_claims_every_file_current_is_not_believed(tree, tmp_path):
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")                 # build A on the board
    (tree / "rules/rng.py").write_text("A = 7\n")
    (tree / "games/loop.py").write_text("def run():\n    return 7\n")
    b = hb.build(src=tree, out=tmp_path / "b")
    # The board's manifest and data/build.json say "build B", its modules are A's.
    board.files[fl.BOARD_MANIFEST] = b.manifest_path.read_bytes()
    board.files[hb.BUILD_INFO_PATH] = (b.out_dir / hb.BUILD_INFO_PATH).read_bytes()
    rep = do_flash(board, tree, tmp_path / "out")
    assert sorted(rep.copied) == ["games/loop.mpy", "rules/rng.mpy"]
    assert rep.hello["build"] == b.build_id
    assert_board_matches(board, b)


def test_a_file_changed_on_the_board_is_copied_again(tree, tmp_path):
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")
    board.files["main.py"] = b"print('edited by hand')\n"   # the manifest still lists the old one
    rep = do_flash(board, tree, tmp_path / "out")
    assert rep.copied == ["main.py"]
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "check"))


def test_files_hauntbox_did_not_write_are_never_deleted_even_if_listed(tree, tmp_path):
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")
    theirs = {
        "config.json": b'{"players": 3}',                   # settings
        "roller-ghoster.json": b'{"turn": 12}',             # a saved game
        "roller-ghoster.json.bad": b"{",                    # a save set aside
        "notes.txt": b"my notes",                           # a user's file
        "data/mine.json": b'{"mine": 1}',                   # a user's file in our folder
        "games/extra.mpy": b"M\x06 not ours",               # a module of someone else's
    }
    board.files.update(theirs)
    # The manifest claims them all, with their real content for the first four
    # and a content they no longer have for the last two (edited since).
    forged_manifest(board, {k: v for k, v in list(theirs.items())[:4]})
    forged_manifest(board, {"data/mine.json": b"other", "games/extra.mpy": b"other"})
    (tree / "rules/rng.py").write_text("A = 8\n")
    rep = do_flash(board, tree, tmp_path / "out")
    for path, data in theirs.items():
        assert board.files[path] == data, path
    assert rep.removed == []
    assert sorted(rep.kept) == ["data/mine.json", "games/extra.mpy"]
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "check"), extra=theirs)


def test_old_files_of_ours_are_still_deleted(tree, tmp_path):
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")
    (tree / "rules/deep/table.py").unlink()
    rep = do_flash(board, tree, tmp_path / "out")
    assert rep.removed == ["rules/deep/table.mpy"]
    assert "rules/deep/table.mpy" not in board.files
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "check"))


def test_a_shadowing_source_hauntbox_did_not_write_is_set_aside(tree, tmp_path):
    board = FakeBoard(files={"rules/rng.py": b"# mine\n", "rules/rng.py.bak": b"# older\n"})
    rep = do_flash(board, tree, tmp_path / "out")
    assert rep.set_aside == ["rules/rng.py"] and "rules/rng.py" not in board.files
    assert board.files["rules/rng.py.bak"] == b"# older\n"
    assert board.files["rules/rng.py.bak1"] == b"# mine\n"


class CorruptingBoard(FakeBoard):
    """A board where one copy arrives damaged, once."""

    def __init__(self, bad_path: str, **kw) -> None:
        super().__init__(**kw)
        self.bad_path = bad_path

    def _one(self, step):
        rc, text = super()._one(step)
        if self.bad_path and step[:2] == ["fs", "cp"] and step[3] == ":" + self.bad_path:
            self.files[self.bad_path] = self.files[self.bad_path][:-1]
            self.bad_path = None
        return rc, text


def test_a_copy_that_did_not_arrive_intact_stops_the_flash_before_the_manifest(tree, tmp_path):
    board = CorruptingBoard("rules/rng.mpy")
    with pytest.raises(fl.FlashError, match="1 file.s. on the board differ from the build "
                                            r"\(first: rules/rng.mpy\)"):
        do_flash(board, tree, tmp_path / "out")
    assert board.resets == 0
    m = board.manifest()
    assert m["build"] == "pending" and "rules/rng.mpy" not in {e["path"] for e in m["files"]}
    rep = do_flash(board, tree, tmp_path / "out")              # the rerun mends it
    assert "rules/rng.mpy" in rep.copied
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "check"))


def test_a_board_without_hashlib_gets_every_file_and_loses_none(tree, tmp_path):
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")
    (tree / "rules/deep/table.py").unlink()
    board.has_hashlib = False
    rep = do_flash(board, tree, tmp_path / "out")
    res = hb.build(src=tree, out=tmp_path / "check")
    assert len(rep.copied) == len(res.files) and rep.removed == []
    assert "rules/deep/table.mpy" in board.files
    assert_board_matches(board, res, extra={"rules/deep/table.mpy"})


def test_manifest_paths_are_data_never_code(tree, tmp_path):
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")
    board.files["config.json"] = b'{"players": 2}'
    evil = "x'); import os; os.remove('config.json'); ('.mpy"
    forged_manifest(board, {evil: b"", "../escape.mpy": b"", "a\nb.mpy": b""})
    do_flash(board, tree, tmp_path / "out")
    assert board.files["config.json"] == b'{"players": 2}'


def test_the_hash_script_reports_every_path_or_the_flash_stops():
    with pytest.raises(fl.FlashError, match="did not report the content of 1 file"):
        fl.parse_hashes("HAUNTBOX-SHA - a.mpy\n", ["a.mpy", "b.mpy"])
    assert fl.parse_hashes("noise\nHAUNTBOX-SHA AB12 a.mpy\r\n", ["a.mpy"]) == {"a.mpy": "ab12"}
    assert fl.parse_hashes("HAUNTBOX-NOHASH\n", ["a.mpy"]) is None


@pytest.mark.parametrize("path, ok", [
    ("app.mpy", True), ("games/roller.mpy", True), ("main.py", True), ("boot.py", True),
    ("data/roller-ghoster.json", True), ("boards/companion.json", True),
    ("config.json", False), ("roller-ghoster.json", False), ("crash.json", False),
    ("manifest.json", False), ("notes.txt", False), ("games/x.py", False),
    ("../x.mpy", False), ("/app.mpy", False), ("a//b.mpy", False), ("a\x1b.mpy", False),
])
def test_which_paths_a_build_can_have_written(path, ok):
    assert hb.shippable(path) is ok
