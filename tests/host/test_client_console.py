"""The console's non-interactive core and the monitor, without a terminal.

A loopback client sends the console's requests straight to the firmware's
Protocol on a simulated board (virtual time), so the console is exercised
against the real protocol; the monitor runs on the fake serial board of
test_client.py.
"""
from __future__ import annotations

import json
import threading
import time

import pytest
from rich.console import Console
from test_client import FakeBoard
from test_protocol_support import ProtoBoard

from hauntbox.client import Client, RequestError
from hauntbox.console import HELP, ConsoleCore, board_picture, run_plain
from hauntbox.monitor import describe_option, format_event, run_monitor

COLOURS = ["red", "blue", "green", "yellow"]


class LoopbackClient(Client):
    """Client whose requests go to Protocol.handle_line directly."""

    def __init__(self, board: ProtoBoard) -> None:
        super().__init__("loopback")
        self.board = board
        self.port = "loopback"
        self.n = 0

    def request(self, cmd, timeout=None, check=True, **args):
        self.n += 1
        msg = {"cmd": cmd, "id": self.n}
        msg.update({k: v for k, v in args.items() if v is not None})
        r = self.board.ask(json.loads(json.dumps(msg)))
        if check and not r.get("ok"):
            raise RequestError(cmd, r)
        return r


@pytest.fixture
def setup():
    b = ProtoBoard(players=2, seed=9)
    b.start()
    core = ConsoleCore(LoopbackClient(b))
    core.set_hello(core.client.hello())
    b.drain()
    core.refresh(force=True)

    def pump(ms=0):
        if ms:
            b.run_ms(ms)
        for e in b.drain():
            core.on_event(e)
        core.refresh()
    yield b, core, pump
    b.close()


def test_the_console_shows_board_prompt_and_header(setup):
    b, core, pump = setup
    text = core.board_text()
    assert "start [RB]" in text and "staircase 4" in text and "to play: red" in text
    assert core.prompt_lines() == ["red to roll", " > 1) roll the die"]
    assert core.header().startswith("hauntbox console  loopback  firmware 0.1.0  build dev  "
                                    "game roller-ghoster")
    con = Console(record=True, width=140, height=40)
    con.print(core.render(typed="1"))
    screen = con.export_text()
    for part in ("board", "events", "prompt", "red to roll", "1) roll the die", "> 1_",
                 "staircase 1:"):
        assert part in screen, part


def test_choosing_by_number_plays_the_turn(setup):
    b, core, pump = setup
    assert core.command("1") == "chose roll the die"
    pump(300)
    assert any(line.startswith("red rolls") for line in core.log)
    assert core.state["state"]["turn"] in (0, 1)
    # a number that is not on offer
    while core.prompt is None:
        pump(50)
    n = len(core.prompt["options"])
    assert core.command(str(n + 1)) == f"choose 1..{n}"


def test_commands(setup):
    b, core, pump = setup
    assert core.command("help") == HELP
    assert core.command("") == ""
    assert core.command("dance") == "unknown command 'dance' (type help)"
    assert core.command("config settle_ms 300") == "settle_ms = 300 (applies now)"
    assert "settle_ms=300" in core.command("config")
    assert core.command("config settle_ms") == "settle_ms = 300"
    assert core.command("config nope 1") == "board says: unknown setting 'nope'"
    assert core.command("config settle_ms 5").startswith("board says: settle_ms must be")
    assert json.loads(core.command("calibrate")[len("servo: "):])["stop_ns"] == 1500000
    assert '"stop_ns": 1490000' in core.command("calibrate stop 1490000")
    assert core.command("calibrate up 1").endswith("(type help)")
    assert core.command("selftest").startswith("self-test started")
    pump(1500)
    assert "self-test: ok" in core.log
    assert core.command("jog forward 100") == "jog forward: 1300000 ns for 100 ms"
    pump(400)
    assert any(line.startswith("servo jog forward") for line in core.log)
    assert core.command("jog 1600000 50") == "jog pulse: 1600000 ns for 50 ms"
    pump(200)
    # the jogs left the tower between two notches: the self-test says so
    core.command("selftest")
    pump(1500)
    assert core.log[-1] == "self-test: notch switch open at rest"
    assert core.command("events off") == "events off"
    assert core.command("events on") == "events on"
    assert core.command("new 3 1") == "new game: 3 players, blue starts"
    pump(200)
    assert core.state["state"]["players"] == 3 and core.prompt["player"] == 1
    assert core.command("new 7").startswith("board says: players must be 2..4")
    assert core.command("q") == "bye" and core.quit


def test_a_whole_game_from_the_console(setup):
    b, core, pump = setup
    n = 0
    while not (core.state or {}).get("over"):
        if core.prompt is not None:
            core.command(str(1 + n % len(core.prompt["options"])))
            n += 1
        pump(100)
        assert n < 500
    text = core.board_text()
    assert "has won" in text and "top [" in text
    assert any("wins!" in line for line in core.log)
    assert core.prompt_lines()[0] == "game over: another game with the same players?"


def test_a_late_state_reply_does_not_hide_a_newer_prompt():
    core = ConsoleCore()
    core.on_event({"ev": "prompt", "data": ["roll", 1, [["roll"]], 0], "seq": 10})
    core.apply_state({"ok": True, "game": "roller-ghoster", "seq": 9, "prompt": None,
                      "state": None})
    assert core.prompt["player"] == 1
    core.apply_state({"ok": True, "seq": 11, "prompt": None, "state": None})
    assert core.prompt is None
    core.on_event({"ev": "prompt", "data": ["move", 0, [["move", "wall"]], 0], "seq": 12})
    core.on_event({"ev": "move", "data": [0, "start", "1*"], "seq": 13})
    assert core.prompt is None  # answered


def test_plain_mode(setup):
    b, core, pump = setup
    out: list[str] = []
    lines = iter(["help\n", "1\n", "state\n", "quit\n", "never read\n"])

    def feed():
        for ln in lines:
            pump(300)
            yield ln
    run_plain(core, feed(), out.append)
    text = "\n".join(out)
    assert text.startswith("hauntbox console")
    assert "red to roll" in text and "chose roll the die" in text and "bye" in text
    assert "commands:" in text and "staircase 4" in text
    assert "never read" not in text


def test_board_picture_falls_back_to_a_short_summary():
    assert board_picture("roller-ghoster", None, COLOURS) == "(no game)"
    assert board_picture("other-game", {"a": 1}, COLOURS) == "a: 1"
    assert board_picture("roller-ghoster", {"bad": True}, COLOURS) == "bad: true"
    # nested parts one level down; long lists (a deck of card ids) left out
    st = {"mode": "dice", "game": {"round": 2, "dice": [3, 5], "deck": list(range(40))}}
    assert board_picture("superskill", st, COLOURS) == "mode: \"dice\"\ngame.round: 2\ngame.dice: [3, 5]"


@pytest.mark.parametrize("msg, text", [
    ({"ev": "game", "data": ["roller-ghoster", 3, 1]}, "new game of roller-ghoster: 3 players, blue starts"),
    ({"ev": "roll", "data": [0, "2a"]}, "red rolls 2 + arrow"),
    ({"ev": "move", "data": [1, "start", "1*"]},
     "  blue moves from the start to the star of staircase 1"),
    ({"ev": "hit", "data": [2, "2o1", "2T"]},
     "  green is knocked off staircase 2, outer step 1 into trench 2"),
    ({"ev": "slide", "data": [0, "3w3", "3o2"]},
     "  red lands on a broken step (staircase 3, wall step 3) and slides to "
     "staircase 3, outer step 2"),
    ({"ev": "rotated", "data": [[0, 1, 0, 2]]}, "  balls down: staircase 2 x1, staircase 4 x2"),
    ({"ev": "rotated", "data": [[0, 0, 0, 0]]}, "  balls down: none"),
    ({"ev": "win", "data": [3]}, "YELLOW reaches the top and wins!"),
    ({"ev": "over", "data": [3]}, "game over: yellow won"),
    ({"ev": "fault", "data": ["jam", "turn it by hand"]}, "FAULT jam: turn it by hand"),
    ({"ev": "prompt", "data": ["move", 0, [["move", "wall"], ["move", "outer"]], 0]},
     "? red: which path?   1) move along the wall  2) move along the outer path"),
    ({"ev": "prompt", "data": ["move", 0, [["move", "wall"]], 1]}, None),
    ({"ev": "prompt", "data": ["ball_on_2", 0, [["no"], ["yes"]], 0]},
     "? beam 2 is stuck: did a ball come down staircase 2?   1) no  2) yes"),
    ({"ev": "selftest", "data": [{"result": "problems", "problems": ["beam 2 stuck"]}]},
     "self-test: beam 2 stuck"),
    ({"ev": "rotating", "data": []}, None),
    ({"ev": "mystery", "data": [1, "x"]}, 'mystery [1, "x"]'),
    ({"ev": "roll", "data": "junk"}, "? rolls ?"),
])
def test_event_lines(msg, text):
    assert format_event(msg, COLOURS) == text


def test_option_words():
    assert describe_option(["ghost", 2, "outer"], COLOURS) == \
        "push green's ghost one step along the outer path"
    assert describe_option(["ghost", 1, None], COLOURS) == "push blue's ghost one step"
    assert describe_option(["pass"], COLOURS) == "pass (no ghost can be pushed)"
    assert describe_option(["confirm"], COLOURS) == "confirm"
    assert describe_option(["weird", 1], COLOURS) == "weird 1"
    assert describe_option(["new"], COLOURS) == "start a new game"
    assert format_event({"ev": "prompt", "data": ["resume", -1, [["resume"], ["new"]], 0]},
                        COLOURS) == ("? a saved game was found: resume it or start a new one?"
                                     "   1) resume the saved game  2) start a new game")


def test_monitor_prints_events_and_stops_after_count():
    fake = FakeBoard()
    out: list[str] = []
    stop = threading.Event()

    def emitter():
        while fake.port is None or not fake.requests:
            time.sleep(0.01)
        time.sleep(0.05)
        fake.emit("roll", 0, "3")
        fake.emit("move", 0, "start", "2*")
        fake.emit("turn", 1)

    threading.Thread(target=emitter, daemon=True).start()
    rc = run_monitor("fake", count=3, out=out.append, open_serial=fake.open, stop=stop)
    assert rc == 0
    assert out[0] == "-- fake: hauntbox firmware None, build b1, protocol 1, game roller-ghoster --"
    assert out[1:] == ["red rolls 3", "  red moves from the start to the star of staircase 2",
                       "blue's turn"]


def test_monitor_json_mode_prints_raw_lines():
    fake = FakeBoard()
    out: list[str] = []

    def emitter():
        while fake.port is None or len(fake.requests) < 2:
            time.sleep(0.01)
        fake.emit("turn", 1)
        fake.emit("over", 1)

    threading.Thread(target=emitter, daemon=True).start()
    rc = run_monitor("fake", json_mode=True, until_over=True, out=out.append,
                     open_serial=fake.open)
    assert rc == 0
    assert [json.loads(x) for x in out] == [{"ev": "turn", "data": [1], "seq": 1},
                                            {"ev": "over", "data": [1], "seq": 2}]


def test_the_full_screen_help_shows_every_line(setup):
    # Issue 20, item 5: the message panel grows with its message.
    from hauntbox.console import HELP
    b, core, pump = setup
    core.message = core.command("help")
    con = Console(record=True, width=140, height=50)
    con.print(core.render())
    screen = con.export_text()
    for line in HELP.splitlines():
        assert line.strip()[:40] in screen, line


def test_service_command_drives_the_boards_service_mode(setup):
    # The service mode for those with a laptop (docs/service-mode.md): the
    # console's `service` goes through the protocol's `service` request.
    b, core, pump = setup
    assert core.command("service").startswith("service mode off: beam1 beam2 beam3 beam4 buttons")
    assert core.command("service leave") == "board says: the service mode is off " \
        "(op enter, or hold MENU at power-up)"
    assert core.command("service enter").startswith("service mode: LEFT/RIGHT")
    pump(100)
    assert core.log[-1].startswith("service mode on: steps beam1, beam2")
    assert core.command("service beam7").startswith("board says: no step 'beam7' on this build")
    assert core.command("service beam1").startswith("step beam1 running: act on the board")
    pump(50)
    b.sim.tower._beam(0, True)
    pump(50)
    b.sim.tower._beam(0, False)
    pump(1000)
    assert "service beam1: ok" in core.log
    assert "beam1=ok beam2" in core.command("service")
    assert core.command("service a b") == "service [enter|leave|STEP] (type help)"
    assert core.command("service leave") == "service mode left: the game goes on"
    pump(200)
    assert "service mode off: 1 ok, 0 failed" in core.log
    assert core.prompt is not None and core.prompt["kind"] == "roll"


def test_service_and_physical_die_event_lines():
    assert format_event({"ev": "service", "data": ["beam2", "never broken within 20 s"]},
                        COLOURS) == "service beam2: never broken within 20 s"
    assert format_event({"ev": "service", "data": ["leave", {"ok": ["beam1"], "failed":
                        {"notch": "the switch never opened within 20 s"}, "untested": []}]},
                        COLOURS) == ("service mode off: 1 ok, 1 failed "
                                     "(notch: the switch never opened within 20 s)")
    assert format_event({"ev": "prompt", "data": ["die", 1, [["roll", "1"], ["roll", "2a"]], 0]},
                        COLOURS) == ("? blue: roll the real die, then enter its face"
                                     "   1) the die shows 1  2) the die shows 2 + arrow")
