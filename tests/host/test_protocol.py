"""The serial protocol (firmware/protocol.py) against a simulated board, no I/O.

Every command of docs/protocol.md with its good and bad forms; a bad request
must change nothing. A whole game is played through `act` alone.
"""
from __future__ import annotations

import asyncio
import json

import pytest
from test_protocol_support import ProtoBoard, bare_app

import protocol
from protocol import MAX_LINE, Protocol, encode_event
from protocol_commands import PROTOCOL
from protocol_commands import read_build_id


@pytest.fixture
def board():
    b = ProtoBoard(players=2, seed=5)
    b.start()
    yield b
    b.close()


def test_hello_reports_protocol_firmware_build_and_game(board):
    import app

    r = board.ask({"cmd": "hello", "id": 7})
    assert r["ok"] is True and r["id"] == 7
    assert r["proto"] == PROTOCOL == 1
    assert r["firmware"] == app.VERSION
    assert r["build"] == "dev"  # no data/build.json in the source tree
    assert r["game"] == "roller-ghoster" and "roller-ghoster" in r["games"]
    assert r["max_line"] == MAX_LINE and r["dropped"] == 0 and r["events"] is True
    assert board.ask({"cmd": "hello", "id": "abc"})["id"] == "abc"
    assert board.ask({"cmd": "hello"})["id"] is None


def test_build_id_comes_from_data_build_json(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "build.json").write_text(json.dumps({"build": "b-1234", "version": "0.1.0"}))
    assert read_build_id(str(tmp_path) + "/") == "b-1234"
    (tmp_path / "data" / "build.json").write_text("{not json")
    assert read_build_id(str(tmp_path) + "/") == "dev"
    assert read_build_id(str(tmp_path / "nowhere") + "/") == "dev"


def test_state_and_legal_show_the_pending_prompt(board):
    st = board.ask({"cmd": "state", "id": 1})
    assert st["ok"] and st["game"] == "roller-ghoster"
    assert st["state"] == board.app.controller.game.to_dict()
    assert st["prompt"] == {"kind": "roll", "player": 0, "options": [["roll"]]}
    assert st["over"] is False and st["rotating"] is False and st["busy"] is None
    lg = board.ask({"cmd": "legal", "id": 2})
    assert (lg["kind"], lg["player"], lg["options"]) == ("roll", 0, [["roll"]])


def test_act_by_index_and_by_action(board):
    r = board.ask({"cmd": "act", "id": 3, "index": 0})
    assert r["ok"] and r["action"] == ["roll"] and r["player"] == 0
    board.wait_for(lambda: board.app.controller.game.phase != "roll" or board.prompt() is not None
                   and board.prompt()[0] != "roll")
    evs = [e["ev"] for e in board.drain()]
    assert "roll" in evs
    # a later roll prompt answered with the action itself
    board.wait_for(lambda: board.prompt() is not None and board.prompt()[0] == "roll"
                   and board.app.controller.game.turn == 1)
    r = board.ask({"cmd": "act", "action": ["roll"], "player": 1})
    assert r["ok"], r


def test_bad_act_is_refused_and_changes_nothing(board):
    before = board.snapshot()
    cases = [
        ({"cmd": "act"}, "give either action or index"),
        ({"cmd": "act", "index": 0, "action": ["roll"]}, "give either action or index"),
        ({"cmd": "act", "index": 1}, "index must be 0..0"),
        ({"cmd": "act", "index": -1}, "index must be 0..0"),
        ({"cmd": "act", "action": ["move", "wall"]}, "not one of the offered options"),
        ({"cmd": "act", "action": []}, "action must not be empty"),
        ({"cmd": "act", "action": [["roll", ["x"]]]}, "action items"),
        ({"cmd": "act", "action": [{"a": 1}]}, "action items"),
        ({"cmd": "act", "index": "0"}, "index must be a whole number"),
        ({"cmd": "act", "index": True}, "index must be a whole number"),
        ({"cmd": "act", "index": 0, "player": 1}, "player 0's, not player 1's"),
        ({"cmd": "act", "action": "roll"}, "action must be a list"),
    ]
    for msg, err in cases:
        r = board.ask(dict(msg, id=9))
        assert r["ok"] is False and r["id"] == 9, msg
        assert err in r["error"], (msg, r)
        assert board.snapshot() == before, msg


def test_second_act_before_the_first_is_applied_is_refused(board):
    assert board.ask({"cmd": "act", "index": 0})["ok"]
    r = board.ask({"cmd": "act", "index": 0})
    assert not r["ok"] and "still being applied" in r["error"]


def test_act_with_nothing_pending(board):
    board.ask({"cmd": "act", "index": 0})
    # during the die display nobody is asked anything
    board.wait_for(lambda: board.prompt() is None)
    r = board.ask({"cmd": "act", "index": 0})
    assert not r["ok"] and r["error"] == "no decision is pending"
    assert board.ask({"cmd": "legal"})["options"] == []


def test_a_whole_game_played_through_act_only():
    """Roller Ghoster, 2 players, every decision (the roll included) sent as `act`."""
    b = ProtoBoard(players=2, seed=11)
    try:
        b.start()
        events: list[dict] = []
        n = 0
        while not any(e["ev"] == "over" for e in events):
            b.wait_for(lambda: b.prompt() is not None and getattr(b.app.controller.decider,
                                                                  "_remote", None) is None
                       or b.app.controller.game.is_over())
            events += b.drain()
            if b.app.controller.game.is_over():
                b.run_ms(50)
                events += b.drain()
                continue
            opts = b.prompt()[2]
            r = b.ask({"cmd": "act", "index": n % len(opts), "id": n})
            assert r["ok"], r
            n += 1
            assert n < 2000
        kinds = [e["ev"] for e in events]
        for k in ("game", "turn", "prompt", "roll", "move", "rotate", "rotating", "rotated",
                  "win", "over"):
            assert k in kinds, k
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # nothing dropped
        win = [e for e in events if e["ev"] == "win"]
        assert len(win) == 1
        winner = win[0]["data"][0]
        assert [e["data"] for e in events if e["ev"] == "over"] == [[winner]]
        st = b.ask({"cmd": "state"})
        assert st["over"] is True and st["prompt"]["kind"] == "play_again"   # another game on ROLL
        assert st["state"]["phase"] == "over" and st["state"]["winner"] == winner
        assert st["state"]["pos"][winner] == "top"
        # every roll event follows an accepted roll prompt of the same player
        rolls = [e["data"][0] for e in events if e["ev"] == "roll"]
        turns = [e["data"][0] for e in events if e["ev"] == "turn"]
        assert rolls[0] == 0 and set(rolls) <= {0, 1} and len(turns) >= len(rolls) - 1
        # after the game the board waits for a new one
        assert b.ask({"cmd": "new", "players": 3})["ok"]
        b.wait_for(lambda: b.prompt() is not None)
        assert b.app.controller.game.players == 3
        assert b.app.controller.game.to_dict()["phase"] == "roll"
    finally:
        b.close()


def test_new_game_validation_and_restart(board):
    before = board.snapshot()
    for msg, err in [
        ({"cmd": "new", "players": 5}, "players must be 2..4"),
        ({"cmd": "new", "players": 1}, "players must be 2..4"),
        ({"cmd": "new", "players": "3"}, "players must be a whole number"),
        ({"cmd": "new", "players": 2, "start": 2}, "start must be 0..1"),
        ({"cmd": "new", "game": "chess"}, "unknown game"),
        ({"cmd": "new", "game": 3}, "game must be a string"),
        ({"cmd": "new", "options": [1]}, "options must be an object"),
    ]:
        r = board.ask(msg)
        assert not r["ok"] and err in r["error"], (msg, r)
        assert board.snapshot() == before
    board.drain()
    r = board.ask({"cmd": "new", "players": 3, "start": 2, "id": 4})
    assert r == {"ok": True, "id": 4, "game": "roller-ghoster", "players": 3, "start": 2}
    board.wait_for(lambda: board.prompt() is not None and board.app.controller.game.players == 3)
    evs = board.drain()
    assert ["roller-ghoster", 3, 2] in [e["data"] for e in evs if e["ev"] == "game"]
    assert board.prompt()[1] == 2


def test_config_get_and_set(board):
    vals = board.ask({"cmd": "config", "op": "get"})["values"]
    assert vals["settle_ms"] == 1500 and vals["game"] == "roller-ghoster"
    assert board.ask({"cmd": "config", "key": "players"})["value"] == 4
    r = board.ask({"cmd": "config", "op": "set", "key": "settle_ms", "value": 300})
    assert r["ok"] and r["value"] == 300 and r["applies"] == "now"
    assert board.app.controller.tower.settle_ms == 300
    saved = json.loads(open(board.app.store.path("config")).read())
    assert saved["settle_ms"] == 300
    r = board.ask({"cmd": "config", "op": "set", "key": "brightness", "value": 0.1})
    assert r["applies"] == "now" and board.app.controller.build.strip.brightness == 0.1
    assert board.ask({"cmd": "config", "op": "set", "key": "resume", "value": False})["applies"] \
        == "restart"
    before = board.snapshot()
    for msg, err in [
        ({"key": "settle_ms", "value": 5}, "settle_ms must be between"),
        ({"key": "settle_ms", "value": "fast"}, "must be a number"),
        ({"key": "settle_ms", "value": 300.5}, "whole number"),
        ({"key": "nope", "value": 1}, "unknown setting"),
        ({"key": "resume", "value": 1}, "true or false"),
        ({"key": "game", "value": "chess"}, "game must be one of"),
        ({"key": "settle_ms", "value": [300]}, "value must be a number, a string or true/false"),
        ({"key": "settle_ms"}, "missing value"),
        ({"key": 3, "value": 1}, "key must be a string"),
        ({"value": 1}, "missing key"),
        ({"key": "servo.stop_ns", "value": 2600000}, "between"),
    ]:
        r = board.ask(dict(msg, cmd="config", op="set"))
        assert not r["ok"] and err in r["error"], (msg, r)
        assert board.snapshot() == before, msg
    assert "op must be" in board.ask({"cmd": "config", "op": "delete"})["error"]
    assert "unknown setting" in board.ask({"cmd": "config", "key": "x"})["error"]


def test_selftest_reports_every_sensor_servo_and_leds(board):
    r = board.ask({"cmd": "selftest", "id": 21})
    assert r["ok"] and r["started"] == "selftest"
    again = board.ask({"cmd": "selftest"})
    assert not again["ok"] and "already running" in again["error"]
    board.wait_for(lambda: board.proto.busy is None)
    res = [e["data"][0] for e in board.drain() if e["ev"] == "selftest"]
    assert len(res) == 1
    res = res[0]
    assert res["id"] == 21 and res["problems"] == [] and res["result"] == "ok"
    s = res["sensors"]
    assert s["beams"] == ["clear"] * 4 and s["notch"] == "closed"
    assert s["reservoir"] == "absent"
    assert s["buttons"] == {"roll": "released", "left": "released", "right": "released",
                            "menu": "released"}
    assert res["servo"]["result"] == "ok" and res["servo"]["pulse_ns"] == 1500000
    assert res["leds"] == {"result": "ok", "leds": 51, "failures": 0}
    c = board.app.controller
    assert c.tower.servo.pulse_ns == 0  # relaxed again
    # the LEDs show the game again
    assert c.build.strip[c.display.players_from] == c.display.colours[0]
    assert board.prompt() is not None and board.app.controller.game.phase == "roll"


def test_selftest_sees_a_stuck_beam_and_a_held_button(board):
    from hauntbox_sim.fakes import machine

    pins = board.sim.pinmap["pins"]
    machine.pin(pins["beam2"]["gpio"]).sim_drive(0)
    board.run_ms(2500)  # longer than the stuck time
    machine.pin(pins["btn_menu"]["gpio"]).sim_drive(0)
    board.run_ms(50)
    board.drain()
    board.ask({"cmd": "selftest", "servo": False, "leds": False})
    board.wait_for(lambda: board.proto.busy is None)
    (res,) = [e["data"][0] for e in board.drain() if e["ev"] == "selftest"]
    assert res["sensors"]["beams"] == ["clear", "stuck", "clear", "clear"]
    assert res["sensors"]["buttons"]["menu"] == "pressed"
    assert res["result"] == "problems"
    assert "beam 2 stuck" in res["problems"] and "button menu held" in res["problems"]
    assert res["servo"] == {"result": "skipped"} and res["leds"] == {"result": "skipped"}


def test_service_commands_refused_while_the_tower_turns(board):
    tower = board.app.controller.tower
    tower.turning = True
    try:
        before = board.snapshot()
        for msg in ({"cmd": "selftest"}, {"cmd": "calibrate", "jog": "forward"},
                    {"cmd": "calibrate", "stop_ns": 1490000},
                    {"cmd": "config", "op": "set", "key": "servo.stop_ns", "value": 1490000}):
            r = board.ask(msg)
            assert not r["ok"] and "turning" in r["error"], msg
            assert board.snapshot() == before
        assert board.ask({"cmd": "calibrate"})["ok"]  # reading is fine
        assert board.ask({"cmd": "state"})["rotating"] is True
    finally:
        tower.turning = False


def test_calibrate_sets_pulse_widths_within_hard_limits(board):
    info = board.ask({"cmd": "calibrate"})["servo"]
    assert info == {"type": "continuous", "stop_ns": 1500000, "forward_ns": 1300000,
                    "min_ns": 1000000, "max_ns": 2000000, "pulse_ns": 0}
    r = board.ask({"cmd": "calibrate", "stop_ns": 1490000, "forward_ns": 1250000})
    assert r["ok"] and r["servo"]["stop_ns"] == 1490000 and r["servo"]["forward_ns"] == 1250000
    st = board.app.settings
    assert st.get("servo.stop_ns") == 1490000 and st.get("servo.forward_ns") == 1250000
    before = board.snapshot()
    for msg, err in [
        ({"stop_ns": 2600000}, "stop_ns must be within 1000000..2000000"),
        ({"forward_ns": 900000}, "forward_ns must be within"),
        ({"forward_ns": 1490000}, "must differ"),
        ({"stop_ns": "1500000"}, "stop_ns must be a whole number"),
        ({"jog": "sideways"}, "jog must be one of"),
        ({"jog": "pulse"}, "ns goes with jog pulse"),
        ({"ns": 1400000}, "ns goes with jog pulse"),
        ({"jog": "pulse", "ns": 3000000}, "ns must be within"),
        ({"jog": "forward", "ms": 5}, "ms must be 20..3000"),
        ({"jog": "forward", "ms": 10000}, "ms must be 20..3000"),
        ({"jog": "forward", "stop_ns": 2600000}, "stop_ns must be within"),
    ]:
        r = board.ask(dict(msg, cmd="calibrate"))
        assert not r["ok"] and err in r["error"], (msg, r)
        assert board.snapshot() == before, msg


def test_jog_turns_the_servo_then_relaxes_it(board):
    model = board.sim.tower
    servo = board.app.controller.tower.servo
    a0 = model._now_angle()
    r = board.ask({"cmd": "calibrate", "jog": "forward", "ms": 100})
    assert r["ok"] and r["jog"] == "forward" and r["ns"] == 1300000 and r["ms"] == 100
    board.run_ms(20)
    assert servo.pulse_ns == 1300000
    board.wait_for(lambda: board.proto.busy is None)
    assert servo.pulse_ns == 0
    moved = model._now_angle() - a0
    assert 8 < moved < 20  # 120 degrees/s for 0.1 s (plus the stop)
    (ev,) = [e for e in board.drain() if e["ev"] == "jogged"]
    assert ev["data"] == ["forward", 1300000, 100, "ok"]
    r = board.ask({"cmd": "calibrate", "jog": "pulse", "ns": 1600000, "ms": 50})
    assert r["ok"] and r["ns"] == 1600000
    board.wait_for(lambda: board.proto.busy is None)
    assert model._now_angle() < a0 + moved  # turned back


def test_events_can_be_switched_off_and_on(board):
    board.drain()
    r = board.ask({"cmd": "events", "on": False})
    assert r["ok"] and r["events"] is False
    seq0 = board.proto.seq
    board.ask({"cmd": "act", "index": 0})
    board.run_ms(300)
    assert board.drain() == [] and board.proto.seq > seq0
    assert board.ask({"cmd": "events", "on": True})["events"] is True
    board.wait_for(lambda: board.prompt() is not None)
    board.app.bus.publish(("test", 1))
    evs = board.drain()
    assert evs and evs[-1]["ev"] == "test" and evs[-1]["seq"] == board.proto.seq
    assert "on must be true or false" in board.ask({"cmd": "events", "on": 1})["error"]


def test_outgoing_queue_is_bounded_and_drops_the_oldest():
    class Bus:
        def subscribe(self, s):
            self.s = s

        def unsubscribe(self, s):
            pass

    class App:
        bus = Bus()
        root = "/nonexistent/"
        game_name = "roller-ghoster"
        controller = None

    woke = []
    p = Protocol(App(), queue_len=4)
    p.wake = lambda: woke.append(1)
    for i in range(10):
        App.bus.s(("tick", i))
    assert p.dropped == 6 and len(woke) == 10
    lines = [json.loads(p.take_event()) for _ in range(4)]
    assert [x["seq"] for x in lines] == [7, 8, 9, 10]
    assert [x["data"] for x in lines] == [[6], [7], [8], [9]]
    assert p.take_event() is None
    h = json.loads(p.handle_line(b'{"cmd":"hello"}')[0])
    assert h["dropped"] == 6 and h["seq"] == 10


def test_line_framing(board):
    # split across chunks, CRLF, several lines in one chunk, empty lines
    out = board.feed(b'{"cmd":"hel')
    assert out == []
    out = board.feed(b'lo","id":1}\r\n\n  \n{"cmd":"legal","id":2}\n{"cmd":')
    assert [json.loads(x)["id"] for x in out] == [1, 2]
    out = board.feed(b'"state","id":3}\n')
    assert json.loads(out[0])["id"] == 3
    # a line of exactly MAX_LINE bytes is accepted
    msg = b'{"cmd":"hello","id":4,"pad":"' + b"x" * 100 + b'"}'
    msg = msg[:-2] + b"x" * (MAX_LINE - len(msg)) + b'"}'
    assert len(msg) == MAX_LINE
    assert json.loads(board.feed(msg + b"\n")[0])["ok"] is True


def test_long_line_in_small_chunks_grows_the_buffer_and_gives_it_back(board):
    # The line buffer starts small (most requests are short), grows while a
    # long line arrives piece by piece and shrinks again after it.
    from protocol import LINE_START
    proto = board.proto
    assert len(proto._buf) == LINE_START
    msg = b'{"cmd":"hello","id":"' + b"k" * 40 + b'","pad":"' + b"p" * 600 + b'"}\n'
    out = []
    for i in range(0, len(msg), 7):
        out += board.feed(msg[i:i + 7])
        assert len(proto._buf) <= MAX_LINE
    r = json.loads(out[0])
    assert len(out) == 1 and r["ok"] is True and r["id"] == "k" * 40
    assert len(proto._buf) == LINE_START


def test_long_line_is_discarded_up_to_its_newline(board):
    before = board.snapshot()
    out = board.feed(b'{"cmd":"new","players":3,"pad":"' + b"y" * 700)
    out += board.feed(b"z" * 700)  # over the limit now, still no newline
    out += board.feed(b'"}\n{"cmd":"hello","id":5}\n')
    replies = [json.loads(x) for x in out]
    assert replies[0] == {"ok": False, "id": None, "error": "line too long (max 1024 bytes)"}
    assert replies[1]["ok"] and replies[1]["id"] == 5
    assert len(replies) == 2
    assert board.snapshot() == before
    assert json.loads(board.proto.handle_line(b"x" * 2000)[0])["error"].startswith("line too long")


def test_version_ids_and_garbage(board):
    assert board.ask({"cmd": "hello", "v": 1})["ok"]
    r = board.ask({"cmd": "hello", "v": 2, "id": 1})
    assert not r["ok"] and "protocol version 2 not supported" in r["error"] and r["id"] == 1
    assert board.ask({"cmd": "hello", "id": [1]}) == {
        "ok": False, "id": None, "error": "id must be a number or a string of up to 64 characters"}
    assert board.ask({"cmd": "hello", "id": "x" * 65})["id"] is None
    assert board.send(b"[1,2]")[0]["error"] == "a request must be a JSON object"
    assert board.send(b"{nope")[0]["error"] == "not valid JSON"
    assert board.send(b"\xff\xfe")[0]["error"] == "not valid JSON"
    assert board.send(b"[" * 1000)[0]["error"] == "not valid JSON"
    assert board.ask({"id": 3})["error"] == "cmd must be a string"
    assert board.ask({"cmd": "reboot", "id": 3})["error"] == 'unknown command "reboot"'
    assert board.ask({"cmd": "__init__"})["error"] == 'unknown command "__init__"'
    assert board.send(b"   ") == []


def test_an_unexpected_exception_becomes_an_error_reply(board, monkeypatch):
    def boom():
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(board.app.controller, "public_state", boom)
    r = board.ask({"cmd": "state", "id": 8})
    assert r == {"ok": False, "id": 8, "error": "internal error: RuntimeError"}
    assert board.ask({"cmd": "hello"})["ok"]


def test_event_encoding():
    line = encode_event(("prompt", "move", 1, [("move", "wall"), ("move", "outer")], 0), 12)
    assert json.loads(line) == {"ev": "prompt", "data": ["move", 1, [["move", "wall"],
                                                                   ["move", "outer"]], 0],
                                "seq": 12}
    assert line.endswith(b"\n") and b" " not in line
    odd = json.loads(encode_event(("odd", {1, 2}, object), 1))
    assert odd["ev"] == "odd" and all(isinstance(x, str) for x in odd["data"])


def test_link_writes_replies_and_pumps_events():
    from hauntbox_sim.fakes import install as sim_install
    sim_install.install()           # MicroPython's time module (link_core reads ticks)
    from games.link_core import Link

    App = bare_app()

    written: list[bytes] = []
    fail = [False]

    def write(b: bytes) -> None:
        if fail[0]:
            raise OSError("gone")
        written.append(b)

    async def scenario():
        link = Link(Protocol(App()), write)
        task = asyncio.create_task(link.pump())
        link.receive(b'{"cmd":"hello","id":1}\n{"cmd":"x"')
        assert json.loads(written[0])["id"] == 1
        for i in range(20):
            App.bus.publish(("tick", i))
        await asyncio.sleep(0.01)
        fail[0] = True
        link.receive(b"}\n")
        App.bus.publish(("tick", 99))
        await asyncio.sleep(0.01)
        task.cancel()
        return link

    link = asyncio.run(scenario())
    evs = [json.loads(x) for x in written[1:]]
    assert [e["data"][0] for e in evs] == list(range(20))
    assert link.write_errors == 2 and link.sent == 21


def test_protocol_modules_have_no_cpython_only_imports():
    import protocol_commands
    for mod in (protocol, protocol_commands):
        src = open(mod.__file__).read()
        for bad in ("typing", "dataclasses", "enum", "functools", "abc"):
            assert f"import {bad}" not in src


def test_pico_transport_reads_stdin_one_byte_at_a_time(monkeypatch):
    # serve_stdio with fakes for MicroPython's sys.stdin, asyncio.StreamReader and
    # select.poll: stdin.read(n) blocks for n bytes on the Pico, so only read(1)
    # may be used, and only while poll says more is there.
    import io
    import select
    import sys

    from hauntbox_sim.fakes import install as sim_install
    sim_install.install()           # MicroPython's time and asyncio extras (link_core uses them)
    from games import link as link_mod

    class In:
        def __init__(self):
            self.data = bytearray()
            self.sizes = []

        def read(self, n):
            assert len(self.data) >= n, "a read that would block on the Pico"
            self.sizes.append(n)
            b = bytes(self.data[:n])
            del self.data[:n]
            return b

        def readinto(self, buf):
            # serve_stdio reads into a 1-byte buffer (no bytes object a byte).
            n = len(buf)
            assert len(self.data) >= n, "a read that would block on the Pico"
            self.sizes.append(n)
            buf[:n] = self.data[:n]
            del self.data[:n]
            return n

    class Stdin:
        buffer = In()

    class Stdout:
        buffer = io.BytesIO()

    class Reader:
        def __init__(self, s):
            self.s = s

        async def read(self, n):
            while not self.s.data:
                await asyncio.sleep(0.001)
            return self.s.read(n)

    POLLOUT = 4                 # select.POLLOUT on Linux and MicroPython

    class Poll:
        def register(self, s, mask):
            self.s = s
            self.mask = mask

        def poll(self, timeout):
            assert timeout == 0
            if self.mask & POLLOUT:
                return [(self.s, POLLOUT)]      # the host reads: always room
            return [(self.s, 1)] if self.s.data else []

        def ipoll(self, timeout):
            # MicroPython's allocation-free poll (the firmware uses it).
            return iter(self.poll(timeout))

    App = bare_app()

    monkeypatch.setattr(sys, "stdin", Stdin)
    monkeypatch.setattr(sys, "stdout", Stdout)
    monkeypatch.setattr(asyncio, "StreamReader", Reader, raising=False)
    monkeypatch.setattr(select, "poll", Poll)
    monkeypatch.setattr(select, "POLLOUT", POLLOUT, raising=False)

    async def scenario():
        task = asyncio.create_task(link_mod.serve_stdio(App()))
        await asyncio.sleep(0.01)
        assert App.bus.sinks == []      # no host yet: no protocol, no event encoded
        src = Stdin.buffer
        src.data += b'{"cmd":"hello","id":1}\n' + b'{"cmd":"legal","id":2}\n' * 5
        await asyncio.sleep(0.05)
        App.bus.publish(("turn", 1))
        await asyncio.sleep(0.02)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass

    asyncio.run(scenario())
    lines = [json.loads(x) for x in Stdout.buffer.getvalue().splitlines()]
    assert [x.get("id") for x in lines[:6]] == [1, 2, 2, 2, 2, 2]
    assert lines[-1] == {"ev": "turn", "data": [1], "seq": 1}
    assert set(Stdin.buffer.sizes) == {1}
    assert App.bus.sinks == []  # unsubscribed when the task ends


def test_service_request_enters_runs_a_step_and_leaves(board):
    # docs/protocol.md, `service`: the same steps as the board's buttons.
    st = board.ask({"cmd": "service"})
    assert st["ok"] and st["active"] is False and st["steps"][:2] == ["beam1", "beam2"]
    for msg, err in (({"op": "dance"}, "op must be one of status, enter, run, leave"),
                     ({"op": "run"}, "step goes with op run"),
                     ({"op": "leave"}, "the service mode is off"),
                     ({"op": "enter", "step": "beam1"}, "step goes with op run")):
        before = board.snapshot()
        r = board.ask(dict(msg, cmd="service"))
        assert not r["ok"] and err in r["error"], (msg, r)
        assert board.snapshot() == before, msg
    game = board.app.controller.game.to_dict()
    assert board.ask({"cmd": "service", "op": "enter"})["started"] == "service"
    board.wait_for(lambda: board.app.service is not None)
    assert board.ask({"cmd": "service", "op": "enter"})["error"] == "the service mode is already on"
    r = board.ask({"cmd": "service", "op": "run", "step": "nope"})
    assert not r["ok"] and r["error"].startswith("no step 'nope' on this build")
    assert board.ask({"cmd": "service", "op": "run", "step": "beam3"})["step"] == "beam3"
    board.wait_for(lambda: board.app.service.running == "beam3")
    board.sim.tower._beam(2, True)
    board.run_ms(50)
    board.sim.tower._beam(2, False)
    board.wait_for(lambda: board.app.service.running is None)
    st = board.ask({"cmd": "service"})
    assert st["active"] is True and st["results"] == {"beam3": "ok"}
    assert board.ask({"cmd": "service", "op": "leave"})["left"] == "service"
    board.wait_for(lambda: board.app.service is None)
    evs = [e["data"] for e in board.drain() if e["ev"] == "service"]
    assert evs[0][0] == "enter" and ["beam3", "ok"] in evs and evs[-1][0] == "leave"
    assert board.app.controller.game.to_dict() == game      # the game waited, unchanged
    board.wait_for(lambda: board.prompt() is not None)
    assert board.ask({"cmd": "state"})["prompt"]["kind"] == "roll"
