"""End to end over a real pseudo-terminal, as a host talks to a Pico.

The simulated board (`python -m hauntbox_sim.boards.pty`, the same as `hauntbox sim
--pty`) runs the unmodified firmware with the clock in realtime mode in a
child process; the host side connects with pyserial through hauntbox.client,
starts a 2-player game of Roller Ghoster and plays it to the end with `act`.
`--fast` shortens the die display, the ball settle window and the rolling
times so that a whole game takes a few seconds.
"""
from __future__ import annotations

import queue
import threading
import time

import pytest

from hauntbox.client import Client, ClientError, Disconnected
from hauntbox.simboard import SimBoardProcess

pytestmark = pytest.mark.skipif(not hasattr(__import__("os"), "openpty"),
                                reason="needs pseudo-terminals (POSIX)")


@pytest.fixture
def board():
    b = SimBoardProcess(["--fast", "--quiet", "--players", "2", "--seed", "7"])
    b.start()
    yield b
    b.stop()


def test_whole_game_over_a_pty(board):
    events: list[dict] = []
    prompts: queue.Queue = queue.Queue()

    def on_event(msg: dict) -> None:
        events.append(msg)
        if msg["ev"] == "prompt" and msg["data"][3] == 0:
            prompts.put(msg)

    c = Client(board.path, on_event=on_event, timeout=3.0)
    t0 = time.monotonic()
    h = c.connect()
    assert h["proto"] == 1 and h["build"] == "dev" and h["game"] == "roller-ghoster"
    assert c.new(players=2, game="roller-ghoster", start=0)["ok"]
    # everything from the "game" event of this new game on
    deadline = time.monotonic() + 25
    start = None
    acted = []
    while time.monotonic() < deadline:
        if start is not None and any(e["ev"] == "over" for e in events[start:]):
            break
        try:
            p = prompts.get(timeout=1.0)
        except queue.Empty:
            continue
        if start is None:
            idx = [i for i, e in enumerate(events) if e["ev"] == "game" and e["seq"] < p["seq"]]
            if not idx:
                continue  # a prompt of the game that was running before "new"
            start = idx[-1]
        kind, player, options, _ = p["data"]
        if kind == "play_again":
            break       # the game is over; the board offers another one
        i = p["seq"] % len(options)
        try:
            r = c.act(index=i, player=player)
        except ClientError as exc:
            pytest.fail(f"act refused: {exc}")
        acted.append((kind, player, r["action"]))
    else:
        pytest.fail("the game did not end in time")
    elapsed = time.monotonic() - t0
    game = events[start:]
    kinds = [e["ev"] for e in game]
    for k in ("roll", "move", "rotate", "rotating", "rotated", "turn", "win", "over"):
        assert k in kinds, k
    assert game[0]["data"] == ["roller-ghoster", 2, 0]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))) and c.missed == 0
    (win,) = [e["data"][0] for e in game if e["ev"] == "win"]
    assert [e["data"] for e in game if e["ev"] == "over"] == [[win]]
    # each roll came from a roll we sent for the player whose turn it was
    rolls = [e["data"][0] for e in game if e["ev"] == "roll"]
    assert rolls == [pl for kind, pl, _ in acted if kind == "roll"]
    turns = [e["data"][0] for e in game if e["ev"] == "turn"]
    assert turns[0] == 0 and all(a != b for a, b in zip(turns, turns[1:]))
    # balls seen by the beams add up to the counts reported after each turn
    rot = [e["data"][0] for e in game if e["ev"] == "rotated"]
    assert all(len(x) == 4 for x in rot)
    st = c.state()
    # after a game the board offers another one (ROLL, or "act" from the host)
    assert st["over"] is True and st["prompt"]["kind"] == "play_again" and st["rotating"] is False
    assert st["state"]["phase"] == "over" and st["state"]["winner"] == win
    assert st["state"]["pos"][win] == "top" and st["state"]["players"] == 2
    assert st["dropped"] == 0
    assert c.legal()["options"] == [["new"]]
    c.close()
    assert elapsed < 25, elapsed


def test_client_reconnects_and_resyncs_when_the_board_goes_away(tmp_path):
    """Board A plays two turns and disappears; board B boots on the same port name
    with the same flash (state dir): the client reconnects, resyncs and resumes."""
    link = str(tmp_path / "board")
    args = ["--fast", "--quiet", "--players", "2", "--link", link,
            "--state-dir", str(tmp_path / "flash")]
    a = SimBoardProcess(args + ["--seed", "1"])
    a.start()
    statuses: list[str] = []
    resyncs: list[tuple] = []
    c = Client(link, timeout=2.0, backoff=(0.05, 0.4), reconnect_for=20.0,
               on_status=lambda s, d: statuses.append(s),
               on_resync=lambda h, st: resyncs.append((h, st)))
    b = None
    try:
        assert c.connect()["ok"]
        assert c.new(players=3)["ok"]
        # play until two turns are done and the next roll is asked for
        t = time.monotonic()
        while time.monotonic() - t < 15:
            st = c.state()
            p = st["prompt"]
            if st["turns"] >= 2 and p is not None and p["kind"] == "roll":
                break
            if p is not None:
                try:
                    c.act(index=0, player=p["player"])
                except ClientError:
                    pass  # the board is still applying the previous choice
            time.sleep(0.02)
        else:
            pytest.fail("two turns were not played in time")
        saved = c.state()["state"]
        assert saved["players"] == 3
        a.stop()  # the port disappears, like an unplugged Pico
        t = time.monotonic()
        while "reconnecting" not in statuses and time.monotonic() - t < 5:
            time.sleep(0.02)
        assert "lost" in statuses and "reconnecting" in statuses
        with pytest.raises(Disconnected):
            c.request("hello", timeout=0.2)
        b = SimBoardProcess(args + ["--seed", "2"])
        b.start()
        t = time.monotonic()
        while not resyncs and time.monotonic() - t < 10:
            time.sleep(0.02)
        assert resyncs, statuses
        h, st = resyncs[0]
        assert h["ok"] and c.reconnects == 1 and c.status == "connected"
        # the new board found the saved game and asks the table what to do
        assert st["prompt"] == {"kind": "resume", "player": -1,
                                "options": [["resume"], ["new"]]}
        assert st["state"] == saved
        assert c.act(action=["resume"])["ok"]
        t = time.monotonic()
        while c.legal()["kind"] != "roll" and time.monotonic() - t < 5:
            time.sleep(0.02)
        lg = c.legal()
        assert lg["kind"] == "roll" and lg["player"] == saved["turn"]
        assert c.state()["state"]["pos"] == saved["pos"]
    finally:
        c.close()
        a.stop()
        if b is not None:
            b.stop()


def test_monitor_and_console_against_the_simulated_board():
    from hauntbox.console import ConsoleCore, connect
    from hauntbox.monitor import run_monitor

    with SimBoardProcess(["--fast", "--quiet", "--players", "2", "--bots", "2",
                          "--seed", "3"]) as b:
        lines: list[str] = []
        stop = threading.Event()
        timer = threading.Timer(20.0, stop.set)  # never hang the test run
        timer.start()
        rc = run_monitor(b.path, count=15, out=lines.append, stop=stop, timeout=5.0)
        timer.cancel()
        assert rc == 0
        assert lines[0].startswith("-- ") and "build dev" in lines[0]
        assert any(" rolls " in x for x in lines), lines
    with SimBoardProcess(["--fast", "--quiet", "--players", "2", "--seed", "4"]) as b:
        core = ConsoleCore()
        connect(core, b.path, timeout=5.0)
        try:
            assert "new game: 2 players, red starts" == core.command("new 2")
            t = time.monotonic()
            while time.monotonic() - t < 25:
                core.refresh()
                st = core.state or {}
                if st.get("over"):
                    break
                if core.prompt is not None and core.prompt["kind"] != "play_again":
                    core.command("1")
                time.sleep(0.02)
            assert core.state["over"] is True
            assert "top" in core.board_text()
            assert any("wins!" in x for x in core.log)
        finally:
            core.client.close()
