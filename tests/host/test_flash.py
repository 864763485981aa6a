"""``hauntbox flash`` without a board: a fake mpremote runner and a fake serial port.

The fake board keeps a dict of files. It carries out the mpremote command lines
that flash.py builds (``fs cat``, ``fs cp``, ``exec``, ``reset``, chains joined
with ``+``), so the tests check the resulting board contents, not only the
command text.
"""

import binascii
import builtins
import hashlib
import io
import json
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from hauntbox_fw import build as hb
from hauntbox import flash as fl
from hauntbox import ports

PORT = "/dev/ttyACM0"
PREFIX = ("mpremote",)
SUBPROC_ENV_PATH = str(Path(hb.__file__).resolve().parents[1])

TREE = {
    "main.py": "import games.loop\n",
    "games/__init__.py": "",
    "games/loop.py": "def run():\n    return 1\n",
    "rules/__init__.py": "",
    "rules/rng.py": "A = 1\n",
    "rules/deep/__init__.py": "",
    "rules/deep/table.py": "T = (1, 2)\n",
    "data/cards.json": '{"cards": [1, 2]}\n',
}


def make_tree(root: Path, files: dict) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def probe_line(major=1, minor=24, micro=1, mpy=0x1306, name="micropython"):
    return f"{fl.PROBE_TAG} {name} {major} {minor} {micro} {mpy}\n"


class FakeBoard:
    """A MicroPython filesystem driven by mpremote argv lists."""

    def __init__(self, probe=None, fail_on_copy=None, files=None):
        self.files: dict[str, bytes] = dict(files or {})
        self.dirs: set[str] = {""}
        for p in self.files:
            self._add_parents(p)
        self.probe = probe or probe_line()
        self.fail_on_copy = fail_on_copy  # n: the n-th `fs cp` to a file fails
        self.copies = 0
        self.resets = 0
        self.execs = 0
        self.has_hashlib = True
        self.calls: list[list[str]] = []

    def _add_parents(self, path):
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            self.dirs.add("/".join(parts[:i]))

    # Runner interface --------------------------------------------------
    def run(self, argv):
        argv = list(argv)
        self.calls.append(argv)
        assert argv[: len(PREFIX)] == list(PREFIX)
        rest = argv[len(PREFIX) :]
        assert rest[:2] == ["connect", PORT], rest
        rest = rest[2:]
        out = []
        step: list[str] = []
        for a in rest + ["+"]:
            if a != "+":
                step.append(a)
                continue
            rc, text = self._one(step)
            out.append(text)
            step = []
            if rc:
                return fl.RunResult(rc, "", "\n".join(out))
        return fl.RunResult(0, "".join(out), "")

    def _one(self, step):
        if step[:2] == ["exec", fl.PROBE_CODE]:
            return 0, self.probe
        if step[0] == "exec":
            return self._exec(step[1])
        if step[:2] == ["fs", "cat"]:
            path = step[2].lstrip(":")
            if path not in self.files:
                return 1, f"mpremote: cat: {path}: No such file or directory."
            return 0, self.files[path].decode()
        if step[:2] == ["fs", "cp"]:
            local, remote = step[2], step[3]
            assert remote.startswith(":") and not local.startswith(":")
            remote = remote[1:]
            if remote != fl.BOARD_MANIFEST:
                self.copies += 1
                if self.copies == self.fail_on_copy:
                    return 1, f"mpremote: cp: {remote}: Input/output error."
            parent = remote.rsplit("/", 1)[0] if "/" in remote else ""
            if parent not in self.dirs:
                return 1, f"mpremote: cp: {remote}: No such file or directory."
            self.files[remote] = Path(local).read_bytes()
            return 0, f"cp {local} :{remote}\n"
        if step == ["reset"]:
            self.resets += 1
            return 0, ""
        raise AssertionError(f"unexpected mpremote command {step}")

    def _exec(self, code):
        # Runs the code flash.py sends, against this board's files: os (mkdir,
        # remove, rename, stat), open(path, "rb"), hashlib/binascii (unless
        # the board has no hashlib), print captured as the exec's output.
        board = self
        printed = []

        class FakeOs:
            @staticmethod
            def mkdir(d):
                if d in board.dirs:
                    raise OSError(17, "EEXIST")
                board.dirs.add(d)

            @staticmethod
            def remove(f):
                if f not in board.files:
                    raise OSError(2, "ENOENT")
                del board.files[f]

            @staticmethod
            def stat(f):
                if f not in board.files and f not in board.dirs:
                    raise OSError(2, "ENOENT")
                return (0,) * 10

            @staticmethod
            def rename(a, b):
                if a not in board.files:
                    raise OSError(2, "ENOENT")
                board.files[b] = board.files.pop(a)

        def fake_open(path, mode="r"):
            assert mode == "rb", mode
            if path not in board.files:
                raise OSError(2, "ENOENT")
            return io.BytesIO(board.files[path])

        modules = {"os": FakeOs, "hashlib": hashlib, "binascii": binascii}

        def fake_import(name, *a, **k):
            assert name in modules, name
            if name == "hashlib" and not board.has_hashlib:
                raise ImportError("no module named 'hashlib'")
            return modules[name]

        def fake_print(*args):
            printed.append(" ".join(str(a) for a in args) + "\n")

        env = {"__builtins__": {**vars(builtins), "__import__": fake_import,
                                "open": fake_open, "print": fake_print}}
        exec(compile(code, "<board>", "exec"), env)
        self.execs += 1
        return 0, "".join(printed)

    # helpers -----------------------------------------------------------
    def manifest(self):
        return json.loads(self.files[fl.BOARD_MANIFEST])

    def file_copies(self):
        return [
            c[c.index("cp") + 2][1:]
            for c in self.calls
            if "cp" in c and c[c.index("cp") + 2] != ":" + fl.BOARD_MANIFEST
        ]


class FakeSerial:
    """Answers hello with whatever data/build.json the fake board holds."""

    def __init__(self, board=None, answer=None, junk=()):
        self.board = board
        self.answer = answer
        self.queue = [j.encode() for j in junk]
        self.written = b""
        self.closed = False

    def write(self, data):
        self.written += data
        if data == b'{"cmd":"hello"}\n':
            if self.answer is not None:
                msg = self.answer
            else:
                info = json.loads(self.board.files["data/build.json"])
                msg = {"ok": True, "build": info["build"], "game": None}
            self.queue.append((json.dumps(msg) + "\r\n").encode())

    def readline(self):
        return self.queue.pop(0) if self.queue else b""

    def close(self):
        self.closed = True


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.1
        return self.t

    def sleep(self, s):
        self.t += s


@pytest.fixture
def tree(tmp_path):
    return make_tree(tmp_path / "fw", TREE)


def do_flash(board, src, out, **kw):
    kw.setdefault("chain", 1)
    return fl.flash(
        PORT,
        runner=board,
        open_serial=lambda port: FakeSerial(board),
        src=src,
        out=out,
        prefix=PREFIX,
        log=lambda s: None,
        hello_kwargs={"settle": 0},
        **kw,
    )


def assert_board_matches(board, result, extra=()):
    for f in result.files:
        assert board.files[f.path] == (result.out_dir / f.path).read_bytes(), f.path
    assert board.manifest() == hb.load_manifest(result.manifest_path)
    expected = {f.path for f in result.files} | {fl.BOARD_MANIFEST} | set(extra)
    assert set(board.files) == expected


def build_hashes(res, changes=None):
    """What a board holding exactly build ``res`` reports, with ``changes``
    ({path: sha256 or None}) on top."""
    h = {p: None for p in fl.paths_to_hash(res, None)}
    h.update({f.path: f.sha256 for f in res.files})
    h.update(changes or {})
    return h


# ---------------------------------------------------------------------------
# command lines


def test_command_lines_for_a_fresh_board(tree, tmp_path):
    res = hb.build(src=tree, out=tmp_path / "out")
    # an empty board, but for a games/loop.py of someone's
    hashes = {p: None for p in fl.paths_to_hash(res, None)}
    hashes["games/loop.py"] = "ab" * 32
    plan = fl.make_plan(res, None, hashes)
    pending = tmp_path / "pending.json"
    cmds = fl.plan_commands(plan, PORT, res.out_dir, pending, chain=1, prefix=PREFIX)
    texts = [shlex.join(c) for c in cmds]
    out = res.out_dir
    assert texts[0] == f"mpremote connect {PORT} fs cp {pending} :manifest.json"
    assert cmds[1][:4] == ["mpremote", "connect", PORT, "exec"]
    script = cmds[1][4]
    assert "os.mkdir(d)" in script
    assert "('data', 'games', 'rules', 'rules/deep')" in script  # parents first
    copies = texts[2:-1]
    assert copies[-1] == f"mpremote connect {PORT} fs cp {out}/data/build.json :data/build.json"
    assert f"mpremote connect {PORT} fs cp {out}/games/loop.mpy :games/loop.mpy" in copies
    assert f"mpremote connect {PORT} fs cp {out}/main.py :main.py" in copies
    assert len(copies) == len(res.files)
    assert texts[-1] == f"mpremote connect {PORT} fs cp {out}/manifest.json :manifest.json"
    assert fl.reset_command(PORT, PREFIX) == ["mpremote", "connect", PORT, "reset"]
    # a shadowing source is set aside (not ours: renamed, not deleted): a
    # games/loop.py on the board would win over loop.mpy
    assert plan.set_aside == ["games/loop.py"] and plan.remove == []
    assert repr(("games/loop.py",)) in script and "os.rename(f, t)" in script


def test_default_prefix_runs_this_pythons_mpremote():
    assert fl.mpremote(PORT, "reset")[:5] == [sys.executable, "-m", "mpremote", "connect", PORT]


def test_chained_commands_hold_the_same_steps(tree, tmp_path):
    res = hb.build(src=tree, out=tmp_path / "out")
    plan = fl.make_plan(res, None)
    one = fl.plan_commands(plan, PORT, res.out_dir, tmp_path / "p", chain=1, prefix=PREFIX)
    four = fl.plan_commands(plan, PORT, res.out_dir, tmp_path / "p", chain=4, prefix=PREFIX)
    assert len(four) == -(-len(one) // 4)
    steps = []
    for c in four:
        assert c[:3] == ["mpremote", "connect", PORT]
        assert c[3] != "+" and c[-1] != "+"
        cur: list[str] = []
        for a in c[3:] + ["+"]:
            if a == "+":
                steps.append(cur)
                cur = []
            else:
                cur.append(a)
    assert steps == [c[3:] for c in one]


def test_unchanged_files_are_skipped(tree, tmp_path):
    res = hb.build(src=tree, out=tmp_path / "out")
    board_manifest = hb.load_manifest(res.manifest_path)
    # pretend the board holds an older rules/rng.mpy and a file we no longer ship
    for e in board_manifest["files"]:
        if e["path"] == "rules/rng.mpy":
            e["sha256"] = "0" * 64
    board_manifest["files"].append({"path": "games/old.mpy", "size": 9, "sha256": "1" * 64})
    hashes = build_hashes(res, {"rules/rng.mpy": "0" * 64, "games/old.mpy": "1" * 64})
    plan = fl.make_plan(res, board_manifest, hashes)
    assert [f.path for f in plan.copy] == ["rules/rng.mpy"]
    assert "games/old.mpy" in plan.remove and plan.stale == ["games/old.mpy"]
    assert sorted(plan.unchanged) == sorted(f.path for f in res.files if f.path != "rules/rng.mpy")
    assert plan.pending_manifest["files"] == [
        f.manifest_entry() for f in res.files if f.path != "rules/rng.mpy"
    ]
    cmds = fl.plan_commands(plan, PORT, res.out_dir, tmp_path / "p", chain=1, prefix=PREFIX)
    copied = [c[6] for c in cmds if c[3:5] == ["fs", "cp"] and c[6] != ":manifest.json"]
    assert copied == [":rules/rng.mpy"]


def test_up_to_date_board_gets_no_copies(tree, tmp_path):
    res = hb.build(src=tree, out=tmp_path / "out")
    plan = fl.make_plan(res, hb.load_manifest(res.manifest_path), build_hashes(res))
    assert plan.copy == [] and not plan.changes_board and not plan.write_manifest
    cmds = fl.plan_commands(plan, PORT, res.out_dir, tmp_path / "p", chain=1, prefix=PREFIX)
    assert [c[3] for c in cmds] == ["exec"]
    # --all copies everything again
    assert len(fl.make_plan(res, hb.load_manifest(res.manifest_path), build_hashes(res),
                            copy_all=True).copy) == len(res.files)


# ---------------------------------------------------------------------------
# whole flashes against the fake board


def test_flash_fresh_board_then_rerun_copies_nothing(tree, tmp_path):
    board = FakeBoard()
    rep = do_flash(board, tree, tmp_path / "out")
    res_files = hb.load_manifest(tmp_path / "out/manifest.json")
    assert rep.hello["build"] == res_files["build"] == rep.build_id
    assert board.resets == 1
    assert board.calls[0][3:5] == ["exec", fl.PROBE_CODE]  # version checked before anything
    assert board.calls[1][3:6] == ["fs", "cat", ":manifest.json"]
    result = hb.build(src=tree, out=tmp_path / "again")
    assert result.build_id == rep.build_id
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "out"))

    board.calls.clear()
    rep2 = do_flash(board, tree, tmp_path / "out")
    assert rep2.copied == [] and board.file_copies() == []
    assert board.resets == 2


def test_flash_copies_only_changed_files_and_drops_stale_ones(tree, tmp_path):
    board = FakeBoard(files={"games/loop.py": b"# dev copy left on the board\n"})
    do_flash(board, tree, tmp_path / "out")
    assert "games/loop.py" not in board.files  # it would shadow games/loop.mpy
    # not written by hauntbox: set aside, never deleted
    assert board.files.pop("games/loop.py.bak") == b"# dev copy left on the board\n"
    (tree / "rules/rng.py").write_text("A = 2\n")
    (tree / "rules/deep/table.py").unlink()
    board.calls.clear()
    rep = do_flash(board, tree, tmp_path / "out")
    assert sorted(rep.copied) == ["data/build.json", "rules/rng.mpy"]
    assert rep.copied[-1] == "data/build.json"
    assert "rules/deep/table.mpy" not in board.files
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "check"))


def test_files_the_firmware_saved_are_left_alone(tree, tmp_path):
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")
    board.files["data/save.json"] = b'{"turn": 3}'
    (tree / "rules/rng.py").write_text("A = 3\n")
    do_flash(board, tree, tmp_path / "out")
    assert board.files["data/save.json"] == b'{"turn": 3}'


def test_failure_half_way_then_rerun_completes(tree, tmp_path):
    board = FakeBoard()
    first = do_flash(board, tree, tmp_path / "out")  # board holds build A
    # change three modules, and make the 3rd copy fail
    for rel, text in [
        ("games/loop.py", "def run():\n    return 2\n"),
        ("rules/rng.py", "A = 5\n"),
        ("rules/deep/table.py", "T = (3,)\n"),
    ]:
        (tree / rel).write_text(text)
    board.fail_on_copy = board.copies + 3
    with pytest.raises(fl.FlashError) as err:
        do_flash(board, tree, tmp_path / "out")
    assert "exit 1" in str(err.value) and "again" in str(err.value)
    assert board.resets == 1  # no reset after a failed copy
    # the board's manifest now lists only files known to be right, never build B's
    m = board.manifest()
    assert m["build"] == "pending"
    listed = {e["path"] for e in m["files"]}
    assert listed.isdisjoint({"games/loop.mpy", "rules/rng.mpy", "rules/deep/table.mpy"})
    assert "data/build.json" not in listed
    # build.json is copied last, so the board still reports build A
    assert json.loads(board.files["data/build.json"])["build"] == first.build_id

    board.fail_on_copy = None
    board.calls.clear()
    rep = do_flash(board, tree, tmp_path / "out")
    # by content: the two files that arrived before the failure are not copied again
    assert sorted(rep.copied) == ["data/build.json", "rules/rng.mpy"]
    assert rep.hello["build"] == rep.build_id != first.build_id
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "check"))


def test_failure_then_revert_still_ends_consistent(tree, tmp_path):
    # A half-finished flash of B, then the maker goes back to A: files that
    # reached the board from B must be replaced even though A equals the old manifest.
    board = FakeBoard()
    do_flash(board, tree, tmp_path / "out")
    a_text = (tree / "games/loop.py").read_text()
    (tree / "games/loop.py").write_text("def run():\n    return 99\n")
    (tree / "rules/rng.py").write_text("A = 99\n")
    board.fail_on_copy = board.copies + 2  # loop.mpy arrives, rng.mpy fails
    with pytest.raises(fl.FlashError):
        do_flash(board, tree, tmp_path / "out")
    (tree / "games/loop.py").write_text(a_text)
    (tree / "rules/rng.py").write_text(TREE["rules/rng.py"])
    board.fail_on_copy = None
    rep = do_flash(board, tree, tmp_path / "out")
    assert "games/loop.mpy" in rep.copied
    assert_board_matches(board, hb.build(src=tree, out=tmp_path / "check"))


@pytest.mark.parametrize(
    "probe, words",
    [
        (probe_line(1, 22, 2, 0x1206), ["v1.22.2", "too old", "v1.23", "mpy 6.3"]),
        (probe_line(1, 18, 0, 0x0505), ["v1.18.0", "too old", "reads mpy 5)"]),
        (probe_line(9, 2, 4, 0x1306, name="circuitpython"), ["circuitpython", "not MicroPython"]),
        (probe_line(1, 24, 0, -1), ["cannot import .mpy"]),
    ],
)
def test_board_too_old_is_refused_before_copying(tree, tmp_path, probe, words):
    board = FakeBoard(probe=probe)
    with pytest.raises(fl.FlashError) as err:
        do_flash(board, tree, tmp_path / "out")
    for w in words:
        assert w in str(err.value)
    assert len(board.calls) == 1 and board.files == {}


def test_new_enough_boards_pass_the_check():
    for line in (probe_line(1, 23, 0, 0x1306), probe_line(1, 29, 0, 0x1306)):
        info = fl.parse_probe("soft reboot\n" + line)
        fl.check_board(info)
        assert info.mpy_major == 6 and info.mpy_sub == 3


def test_probe_without_answer_is_an_error():
    with pytest.raises(fl.FlashError, match="did not answer the version probe"):
        fl.parse_probe("Traceback (most recent call last):\nNameError\n")


def test_unreachable_board_is_reported(tree, tmp_path):
    class DeadRunner:
        def run(self, argv):
            return fl.RunResult(1, "", "mpremote: failed to access /dev/ttyACM0 (it may be in use)")

    with pytest.raises(fl.FlashError, match="(?s)cannot talk to the board.*in use"):
        do_flash(DeadRunner(), tree, tmp_path / "out")


def test_manifest_read_failure_is_not_taken_for_a_missing_manifest():
    class Flaky:
        def run(self, argv):
            return fl.RunResult(1, "", "mpremote: failed to access /dev/ttyACM0: No such file")

    with pytest.raises(fl.FlashError, match="cannot read :manifest.json"):
        fl.read_board_manifest(Flaky(), PORT, PREFIX)


def test_unreadable_board_manifest_means_copy_all(tree, tmp_path):
    board = FakeBoard(files={"manifest.json": b"{not json"})
    rep = do_flash(board, tree, tmp_path / "out")
    assert len(rep.copied) == len(hb.load_manifest(tmp_path / "out/manifest.json")["files"])


# ---------------------------------------------------------------------------
# hello check


def test_hello_mismatch_is_reported(tree, tmp_path):
    board = FakeBoard()
    with pytest.raises(fl.FlashError) as err:
        fl.flash(
            PORT,
            runner=board,
            open_serial=lambda p: FakeSerial(answer={"build": "0123456789ab"}),
            src=tree,
            out=tmp_path / "out",
            prefix=PREFIX,
            log=lambda s: None,
            hello_kwargs={"settle": 0},
        )
    built = hb.load_manifest(tmp_path / "out/manifest.json")["build"]
    assert "'0123456789ab'" in str(err.value) and repr(built) in str(err.value)


def test_hello_dev_answer_explains_build_json():
    with pytest.raises(fl.FlashError, match="could not read data/build.json"):
        fl.verify_hello(
            PORT, "abc", open_serial=lambda p: FakeSerial(answer={"build": "dev"}), settle=0
        )


def test_hello_silence_times_out_with_a_clear_message():
    clock = FakeClock()
    ser = FakeSerial(answer=None, junk=["MicroPython v1.24.1 on 2024-11-29", "not json {"])
    ser.write = lambda data: setattr(ser, "written", ser.written + data)  # never answers
    with pytest.raises(fl.FlashError) as err:
        fl.verify_hello(PORT, "abc", open_serial=lambda p: ser, clock=clock, sleep=clock.sleep)
    msg = str(err.value)
    assert "no hello answer" in msg and "5 s" in msg and "not json {" in msg
    assert ser.written.count(b'{"cmd":"hello"}\n') >= 4  # asked again about every second
    assert ser.closed


def test_hello_skips_noise_and_waits_for_the_port(monkeypatch):
    clock = FakeClock()
    attempts = []

    def opener(port):
        attempts.append(port)
        if len(attempts) < 3:
            raise OSError(2, "could not open port")
        return FakeSerial(
            answer={"build": "abc", "version": "0.1.0"},
            junk=["", "soft reboot", '{"event": "boot"}', "[1, 2]"],
        )

    msg = fl.verify_hello(PORT, "abc", open_serial=opener, clock=clock, sleep=clock.sleep)
    assert msg["build"] == "abc" and len(attempts) == 3


def test_hello_survives_the_old_port_dying():
    clock = FakeClock()
    opened = []

    class DyingSerial(FakeSerial):
        def write(self, data):
            raise OSError(5, "device reports readiness to read but returned no data")

    def opener(port):
        opened.append(port)
        if len(opened) == 1:
            return DyingSerial()
        return FakeSerial(answer={"build": "abc"})

    assert fl.verify_hello(PORT, "abc", open_serial=opener, clock=clock, sleep=clock.sleep)
    assert len(opened) == 2


def test_port_that_never_returns():
    clock = FakeClock()

    def opener(port):
        raise OSError(2, "gone")

    with pytest.raises(fl.FlashError, match="did not come back"):
        fl.verify_hello(PORT, "abc", open_serial=opener, clock=clock, sleep=clock.sleep)


# ---------------------------------------------------------------------------
# the command line


@pytest.fixture
def no_device(monkeypatch, tmp_path):
    """Any device access fails the test; builds go to tmp_path."""
    monkeypatch.setattr(hb, "BUILD_DIR", tmp_path / "build" / "firmware")

    def boom(*a, **k):
        raise AssertionError("a dry run touched a device")

    monkeypatch.setattr(ports.list_ports, "comports", boom)
    monkeypatch.setattr(fl.SubprocessRunner, "run", boom)
    monkeypatch.setattr(fl, "open_serial_port", boom)
    return tmp_path / "build" / "firmware"


def test_dry_run_on_the_real_tree(no_device, capsys):
    assert fl.main(["--dry-run"]) == 0
    out = capsys.readouterr().out
    manifest = hb.load_manifest(no_device / "manifest.json")
    rows = {}
    for ln in out.splitlines():
        if ln.startswith("  ") and ln.endswith(" B"):
            name, size, _ = ln.split()
            rows[name] = int(size)
    expected = {e["path"]: e["size"] for e in manifest["files"]}
    expected["manifest.json"] = (no_device / "manifest.json").stat().st_size
    assert rows == expected
    total = sum(rows.values())
    assert f"total: {total} B in {len(rows)} files" in out
    assert f"{total} B of 262144 B (256 KB)" in out
    assert "no device touched" in out
    assert manifest["build"] in out.splitlines()[0]
    for name in rows:
        if name.endswith(".py"):
            assert name in ("main.py", "boot.py")


def test_main_reports_no_board(no_device, monkeypatch, capsys):
    monkeypatch.setattr(ports.list_ports, "comports", lambda: [])
    assert fl.main([]) == 1
    err = capsys.readouterr().err
    assert "no Pico found: is it plugged in and running MicroPython? try --port /dev/ttyACM0" in err


def test_main_reports_several_boards(no_device, monkeypatch, capsys):
    monkeypatch.setattr(
        ports.list_ports,
        "comports",
        lambda: [
            SimpleNamespace(device=d, vid=0x2E8A, pid=5, serial_number=s, description="Board")
            for d, s in (("/dev/ttyACM0", "A1"), ("/dev/ttyACM1", "B2"))
        ],
    )
    assert fl.main(["--port", "auto"]) == 1
    err = capsys.readouterr().err
    assert "/dev/ttyACM0" in err and "/dev/ttyACM1" in err and "--port" in err


def test_main_reports_unknown_game(no_device, capsys):
    # A usage error (exit 2), refused before anything is built.
    with pytest.raises(SystemExit) as e:
        fl.main(["--dry-run", "--game", "no_such_game"])
    assert e.value.code == 2
    assert "unknown game 'no_such_game'" in capsys.readouterr().err


def test_python_dash_m_flash_help():
    cp = subprocess.run(
        [sys.executable, "-m", "hauntbox.flash", "--help"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SUBPROC_ENV_PATH, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert cp.returncode == 0
    for opt in ("--port", "--dry-run", "--game", "--all", "--no-verify"):
        assert opt in cp.stdout
