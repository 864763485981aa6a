"""Sensor injection (docs/protocol.md, "Simulator-only requests").

The console's `ball 2` / `press roll` against the simulated board behind a
pty: the board's link layer drives the tower model and the buttons, and the
unmodified firmware decodes the beam pulse and the press like any other (its
events show them). Against the firmware's own protocol (a board that does not
know the request) the console says, in one line, that injection needs a
simulated board. The byte filter passes everything else through untouched.
"""
from __future__ import annotations

import json
import time

import pytest
from test_client_console import LoopbackClient
from test_protocol_support import ProtoBoard

from hauntbox.client import NOT_SIMULATED, Client, NotSimulated
from hauntbox.console import ConsoleCore, connect
from hauntbox.simboard import SimBoardProcess
from sim.inject import Injector, SimRequests


def wait_for(pred, seconds=8.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def sim_console():
    board = SimBoardProcess(["--fast", "--quiet", "--players", "2", "--seed", "3"])
    board.start()
    core = ConsoleCore()
    connect(core, board.path, timeout=3.0)
    yield core
    core.client.close()
    board.stop()


def test_console_injects_a_ball_and_a_press_on_the_simulated_board(sim_console):
    core = sim_console
    assert core.prompt is not None and core.prompt["kind"] == "roll"
    # A ball down staircase 2: the firmware's beam decoder counts it.
    assert core.command("ball 2") == "simulated: a ball rolls down staircase 2"
    assert wait_for(lambda: any("ball seen on staircase 2" in x for x in core.log)), list(core.log)
    # ROLL pressed on the simulated button: the firmware rolls the die (the
    # "roll" prompt of player 0 is answered by the press, not by an `act`).
    assert core.command("press roll") == "simulated: roll pressed"
    assert wait_for(lambda: any(x.startswith("red rolls") for x in core.log)), list(core.log)
    assert wait_for(lambda: core.prompt is not None and core.prompt["player"] == 1
                    or core.prompt["kind"] != "roll"), core.prompt
    # What this build can do, and a bad argument refused in one line.
    assert core.command("sim") == ("simulated board: ball 1 | 2 | 3 | 4; "
                                   "press left | menu | right | roll")
    assert core.command("ball 9") == "board says: stair must be 1..4"
    assert core.command("hit bob").startswith("board says: unknown do \"hit\"; this build has:")
    assert core.command("ball") == "ball STAIR (type help)"


def test_a_board_that_does_not_know_injection_refuses_it_in_one_line():
    b = ProtoBoard(players=2, seed=9)     # the firmware's protocol, no simulator link layer
    b.start()
    try:
        core = ConsoleCore(LoopbackClient(b))
        core.set_hello(core.client.hello())
        for text in ("ball 2", "hit bob", "press roll", "sim"):
            assert core.command(text) == NOT_SIMULATED
        with pytest.raises(NotSimulated):
            core.client.inject("ball", stair=1)
    finally:
        b.close()


class _Clock:
    now_us = 5_000

    def __init__(self):
        self.todo = []

    def at(self, t, fn):
        self.todo.append((t, fn))


def test_the_filter_passes_everything_but_sim_requests_through():
    answers: list[bytes] = []
    inj = Injector(_Clock(), {"pins": {"btn_roll": {"gpio": 21}}})
    f = SimRequests(inj, answers.append)
    other = (b'\x03\x03\r\x01{1: 2}\r\n{"cmd":"hello","id":1}\n{"cmd":"simple"}\n'
             b'{"cmd":"sim"x\n>>> {\n')
    out = b"".join(f.feed(other[i:i + 3]) for i in range(0, len(other), 3))   # split anywhere
    assert out == other and answers == []
    out = f.feed(b'{"cmd":"hello","id":2}\n{"cmd":"sim","id":7,"do":"press","button":"roll"}\n'
                 b'{"cmd":"state"}\n')
    assert out == b'{"cmd":"hello","id":2}\n{"cmd":"state"}\n'
    assert [json.loads(a) for a in answers] == [
        {"ok": True, "id": 7, "sim": "press", "button": "roll", "at_ms": 5}]
    assert len(inj.clock.todo) == 2          # the press and the release
    f.feed(b'{"cmd":"sim","id":8,"do":"ball","stair":1}\n{"cmd":"sim","id":9,"do":"press"}\n')
    errs = [json.loads(a) for a in answers[1:]]
    assert errs[0]["ok"] is False and errs[0]["error"].startswith("unknown do \"ball\"")
    assert errs[1] == {"ok": False, "id": 9, "error": "button must be one of roll"}
    assert len(inj.clock.todo) == 2          # refused requests change nothing


def test_client_inject_sends_the_sim_request():
    sent = []

    class Fake(Client):
        def request(self, cmd, timeout=None, check=True, **args):
            sent.append((cmd, args))
            return {"ok": True}

    Fake("x").inject("hit", target="bob")
    assert sent == [("sim", {"do": "hit", "target": "bob"})]
