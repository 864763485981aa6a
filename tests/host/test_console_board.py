"""The console against the simulated board behind a pty (issue 20, items 1-4).

- a restart, and a restart into the resume prompt: the console takes the new
  board's prompt (its event counter starts again below the old one's);
- the board gone for minutes and back: the console keeps trying, says
  "reconnecting..." with how long the board has been away, in words, and
  takes the new board (the minutes pass on an injected clock, not in sleep);
- the port taken by another program: refused in one line, nothing mixed;
- `events off` in one console: the next console turns them on and says so.
"""
from __future__ import annotations

import threading
import time

import pytest

from hauntbox.client import IN_USE, Client, Disconnected
from hauntbox.console import ConsoleCore, connect
from hauntbox.simboard import SimBoardProcess


def wait_for(pred, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.03)
    return False


def play_until_turns(core: ConsoleCore, turns: int) -> None:
    """Choose option 1 until `turns` turns are done and a roll is asked for."""
    def done():
        core.refresh(force=True)
        st, p = core.state or {}, core.prompt
        if st.get("turns", 0) >= turns and p is not None and p["kind"] == "roll":
            return True
        if p is not None:
            core.command("1")
        return False
    assert wait_for(done, 20), core.state


def test_after_a_restart_the_console_takes_the_new_boards_prompt(tmp_path):
    link = str(tmp_path / "board")
    flash = str(tmp_path / "flash")
    args = ["--fast", "--quiet", "--players", "3", "--link", link]
    a = SimBoardProcess(args + ["--state-dir", flash, "--seed", "1"])
    a.start()
    core = ConsoleCore()
    b = c = None
    try:
        connect(core, link, timeout=3.0, backoff=(0.05, 0.2))
        core.command("new 3")
        play_until_turns(core, 4)           # many events: the old counter is high
        old_seq = core.prompt_seq
        saved = core.state["state"]
        a.stop()
        assert wait_for(lambda: core.status.startswith("reconnecting"))
        # The same flash: the new board asks the table whether to resume.
        b = SimBoardProcess(args + ["--state-dir", flash, "--seed", "2"])
        b.start()
        assert wait_for(lambda: core.client.reconnects == 1 and core.prompt is not None
                        and core.prompt["kind"] == "resume"), core.prompt
        assert core.prompt_seq < old_seq
        assert any(x.startswith("-- reconnected") for x in core.log)
        assert core.command("1") == "chose resume the saved game"
        assert wait_for(lambda: core.prompt is not None and core.prompt["kind"] == "roll")
        assert core.prompt["player"] == saved["turn"]
        b.stop()
        # A fresh board (no saved game): a new game, red to roll, and typing plays it.
        c = SimBoardProcess(args + ["--seed", "3"])
        c.start()
        assert wait_for(lambda: core.client.reconnects == 2 and core.prompt is not None
                        and core.prompt["kind"] == "roll" and core.prompt["player"] == 0)
        assert core.command("1").startswith("chose ")
        assert wait_for(lambda: any(x.startswith("red rolls") for x in list(core.log)[-8:]))
    finally:
        core.client.close()
        for x in (a, b, c):
            if x is not None:
                x.stop()


def test_the_board_gone_for_minutes_and_back(tmp_path):
    link = str(tmp_path / "board")
    args = ["--fast", "--quiet", "--players", "2", "--link", link]
    a = SimBoardProcess(args + ["--seed", "1"])
    a.start()
    b = SimBoardProcess(args + ["--seed", "4"])
    now = [1000.0]
    minutes = 7 * 60

    def sleep(seconds: float) -> None:
        # Each retry pause passes on the console's clock at once; after seven
        # minutes of them the board comes back.
        now[0] += seconds
        time.sleep(0.002)
        if now[0] - 1000.0 > minutes and b.proc is None:
            b.start()

    core = ConsoleCore()
    said: list[str] = []
    on_status = core.on_status
    core.on_status = lambda st, d: (said.append(d) if st == "reconnecting" else None,
                                    on_status(st, d))
    try:
        connect(core, link, timeout=3.0, sleep=sleep, clock=lambda: now[0])
        a.stop()
        assert wait_for(lambda: core.client.reconnects == 1 and core.status == "connected", 30)
        log = "\n".join(core.log)
        assert "-- gone" not in log
        lost = [x for x in core.log if x.startswith("-- lost")]
        assert lost == ["-- lost: the board went away (unplugged, reset, or its program "
                        "stopped) --"], log
        assert "returned no data" not in log and "Errno" not in log
        tries = [x for x in core.log if x.startswith("-- reconnecting")]
        assert len(tries) == 1, log            # said once, then kept up to date in the header
        assert "away 7 min" in said[-1] and said[-1].endswith("trying again every 2 s"), said[-1]
        assert core.prompt is not None and core.prompt["kind"] == "roll"
    finally:
        core.client.close()
        a.stop()
        b.stop()


def test_the_header_says_how_long_the_board_has_been_away():
    core = ConsoleCore()
    core.on_status("lost", "the board went away")
    core.on_status("reconnecting", "/dev/x: the port is not there; away 3 min 05 s, "
                                   "trying again every 2 s")
    core.on_status("reconnecting", "/dev/x: the port is not there; away 3 min 07 s, "
                                   "trying again every 2 s")
    assert "[reconnecting... (away 3 min 07 s)]" in core.header()
    assert sum(x.startswith("-- reconnecting") for x in core.log) == 1


def test_the_port_taken_by_another_program_is_refused_in_one_line(tmp_path, capsys):
    with SimBoardProcess(["--fast", "--quiet", "--players", "2"]) as board:
        first = ConsoleCore()
        connect(first, board.path, timeout=3.0)
        try:
            second = ConsoleCore()
            with pytest.raises(Disconnected) as e:
                connect(second, board.path, timeout=3.0)
            assert str(e.value) == f"{board.path} {IN_USE}"
            from hauntbox.console import main
            assert main(["--port", board.path, "--plain"]) == 1
            err = capsys.readouterr().err
            assert err == f"hauntbox console: {board.path} {IN_USE}\n"
            # the first console is undisturbed
            assert first.command("state") == "state fetched"
            assert first.status == "connected"
        finally:
            first.client.close()


def test_events_off_in_one_console_does_not_freeze_the_next():
    with SimBoardProcess(["--fast", "--quiet", "--players", "2"]) as board:
        one = ConsoleCore()
        connect(one, board.path, timeout=3.0)
        assert one.command("events off") == "events off"
        one.client.close()
        two = ConsoleCore()
        connect(two, board.path, timeout=3.0)
        try:
            assert any("events were off" in x and "turned on" in x for x in two.log)
            assert two.client.request("events")["events"] is True
            assert two.command("1").startswith("chose ")     # red rolls: shown as it happens
            assert wait_for(lambda: any(x.startswith("red rolls") for x in two.log))
        finally:
            two.client.close()


def test_a_client_that_cannot_lock_the_port_says_who_to_close():
    import serial

    def busy(port):
        raise serial.SerialException(f"Could not exclusively lock port {port}: "
                                     "[Errno 11] Resource temporarily unavailable")
    c = Client("/dev/ttyACM0", open_serial=busy)
    with pytest.raises(Disconnected) as e:
        c.connect()
    assert str(e.value) == f"/dev/ttyACM0 {IN_USE}"
    assert threading.active_count() >= 1
