"""`hauntbox devs` on a fake port list (pyserial's list_ports replaced), and
the fs/repl wrappers' mpremote command lines (issue 20, item 12). The real
mpremote against the emulated Pico is in tests/sim/pico/test_pico_pty.py."""
from types import SimpleNamespace

import pytest

from hauntbox import boards
from hauntbox.cli import main as hauntbox


def fake_port(device, vid=None, pid=None, serial_number=None, description="n/a"):
    return SimpleNamespace(device=device, vid=vid, pid=pid, serial_number=serial_number,
                           description=description)


@pytest.fixture
def comports(monkeypatch):
    from serial.tools import list_ports

    listed = []
    monkeypatch.setattr(list_ports, "comports", lambda: list(listed))
    return listed


def test_devs_lists_the_picos_by_usb_vendor_id(comports, capsys):
    comports += [
        fake_port("/dev/ttyS0"),
        fake_port("/dev/ttyUSB0", vid=0x10C4, pid=0xEA60, description="CP2102"),
        fake_port("/dev/ttyACM1", vid=0x2E8A, pid=0x000C, description="Debug Probe"),
        fake_port("/dev/ttyACM0", vid=0x2E8A, pid=0x0005, serial_number="E66118",
                  description="Board in FS mode"),
    ]
    assert hauntbox(["devs"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "/dev/ttyACM0  MicroPython board, USB 2E8A:0005, serial E66118, Board in FS mode"]
    assert hauntbox(["devs", "--all"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("/dev/ttyACM0  MicroPython board")
    assert "/dev/ttyACM1  Raspberry Pi Debug Probe (not a board), USB 2E8A:000C, Debug Probe" in out
    assert "/dev/ttyUSB0  other serial port, USB 10C4:EA60, CP2102" in out and len(out) == 4


def test_devs_with_no_board_says_so_and_exits_0(comports, capsys):
    comports += [fake_port("/dev/ttyUSB0", vid=0x0403, pid=0x6001)]
    assert hauntbox(["devs"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no board found") and out.count("\n") == 1


class Recorder:
    def __init__(self, rc=0, stdout="", stderr=""):
        self.calls = []
        self.r = SimpleNamespace(returncode=rc, stdout=stdout, stderr=stderr)

    def __call__(self, argv, capture=True):
        self.calls.append(argv[argv.index("connect") + 2:])
        return self.r


def test_fs_and_repl_are_mpremote_command_lines(monkeypatch, tmp_path):
    port = str(tmp_path / "port")
    open(port, "w").close()
    monkeypatch.setattr(boards, "game_answers", lambda p, timeout=2.0: True)
    said = []
    for argv, cmd in ((["ls"], ["fs", "ls", ":"]), (["ls", "data"], ["fs", "ls", ":data"]),
                      (["cat", "/config.json"], ["fs", "cat", ":/config.json"]),
                      (["get", "data/build.json"], ["fs", "cp", ":data/build.json", "build.json"]),
                      (["get", "main.py", "x.py"], ["fs", "cp", ":main.py", "x.py"])):
        run = Recorder(stdout="{}\n")
        a = boards.build_parser("fs").parse_args(argv + ["--port", port])
        assert boards.fs(a, out=said.append, say=said.append, run=run) == 0
        assert run.calls == [cmd]
    run = Recorder(rc=1, stderr="Traceback...\nOSError: [Errno 2] ENOENT\n")
    a = boards.build_parser("fs").parse_args(["cat", "nope", "--port", port, "--stay"])
    assert boards.fs(a, out=said.append, say=said.append, run=run) == 1
    assert said[-1] == "hauntbox fs cat: OSError: [Errno 2] ENOENT"
    run = Recorder()
    a = boards.build_parser("repl").parse_args(["--port", port])
    assert boards.repl(a, say=said.append, run=run) == 0
    assert run.calls == [["repl"]] and said[-1] == "back: the game is running"
    # the game does not answer after the REPL: it is restarted with mpremote reset
    answers = iter([False, True])
    monkeypatch.setattr(boards, "game_answers", lambda p, timeout=2.0: next(answers))
    run = Recorder()
    assert boards.repl(a, say=said.append, run=run) == 0
    assert run.calls == [["repl"], ["reset"]] and said[-1] == "back: the game is running"


def test_fs_usage_errors_are_one_line(capsys):
    assert hauntbox(["fs", "cat"]) == 2
    assert capsys.readouterr().err == ("hauntbox fs: cat needs a PATH on the board "
                                       "(see hauntbox fs --help)\n")
    assert hauntbox(["repl", "--port", "/dev/nonexistent"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
