"""Parity: firmware/protocol.py gives the same replies and events on MicroPython
(the official WebAssembly VM) as on CPython, for one fixed session: good and
bad requests, split chunks, a too-long line, a roll and a move of Roller
Ghoster through `act`, settings, and the bounded event queue.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest

vm = pytest.importorskip("hauntbox_sim.vm.mpvm")

SESSION = r'''
import json
from protocol import Protocol, MAX_LINE
from games.settings import Settings
from games.decide import Decider
from rules.roller_ghoster import RollerGhoster


class Bus:
    def __init__(self):
        self.sinks = []
    def subscribe(self, s):
        self.sinks.append(s)
    def unsubscribe(self, s):
        if s in self.sinks:
            self.sinks.remove(s)
    def publish(self, ev):
        for s in list(self.sinks):
            s(ev)


class MemStore:
    def __init__(self):
        self.files = {}
    def save(self, name, data, sealed=True):
        self.files[name] = json.dumps(data)
    def load(self, name, sealed=True):
        t = self.files.get(name)
        return None if t is None else json.loads(t)
    def set_aside(self, name):
        self.files.pop(name, None)
    def remove(self, name):
        self.files.pop(name, None)


class Flag:
    def __init__(self):
        self.n = 0
    def set(self):
        self.n += 1


class Panel:
    def __init__(self):
        self.flag = Flag()
    def drain(self):
        pass


class Controller:
    def __init__(self, layout, bus):
        self.game = RollerGhoster(layout, 2, 0)
        self.decider = Decider(Panel(), bus)
        self.turns = 0
        self.faults = 0
    def public_state(self):
        return self.game.to_dict()


class App:
    VERSION = "9.9.9"

    def __init__(self, layout):
        self.root = "/nonexistent/"
        self.bus = Bus()
        self.settings = Settings(MemStore())
        self.controller = Controller(layout, self.bus)
        self.game_name = "roller-ghoster"
        self.requests = []
    def request_new_game(self, game, players, start=0, options=None):
        # Called once protocol_commands.new has checked the request.
        self.requests.append((game, players, start))


def session(layout):
    app = App(layout)
    p = Protocol(app, queue_len=6)
    out = []
    def send(b):
        for r in p.feed(b):
            out.append(json.loads(r))
    def events():
        while True:
            e = p.take_event()
            if e is None:
                return
            out.append(json.loads(e))
    c = app.controller
    send(b'{"cmd":"hello","id":1}\n')
    send(b'{"cmd":"legal","id":2}\n')
    # the controller asks for the roll
    c.decider.current = ("roll", 0, [("roll",)])
    app.bus.publish(("prompt", "roll", 0, [("roll",)], 0))
    send(b'{"cmd":"st')
    send(b'ate","id":3}\r\n{"cmd":"act","index":1,"id":4}\n')
    send(b'{"cmd":"act","action":["roll"],"player":0,"id":5}\n')
    send(b'{"cmd":"act","index":0,"id":6}\n')
    out.append(["remote", list(c.decider._remote)])
    # the controller takes the choice and applies a roll of 2
    c.decider.current = None
    c.decider._remote = None
    for e in c.game.apply(("roll", "2")):
        app.bus.publish(e)
    opts = c.game.legal_actions()
    c.decider.current = ("move", 0, opts)
    send(b'{"cmd":"act","action":["move","sideways"],"id":7}\n')
    send(b'{"cmd":"act","action":' + json.dumps(list(opts[-1])).encode() + b',"id":8}\n')
    out.append(["remote", list(c.decider._remote)])
    events()
    send(b'{"cmd":"config","op":"set","key":"settle_ms","value":5,"id":9}\n')
    send(b'{"cmd":"config","op":"set","key":"settle_ms","value":700,"id":10}\n')
    send(b'{"cmd":"config","key":"settle_ms","id":11}\n{"cmd":"config","id":12}\n')
    send(b'{"cmd":"new","players":7,"id":13}\n{"cmd":"new","players":3,"start":1,"id":14}\n')
    send(b'{"cmd":"calibrate","id":15}\n{"cmd":"selftest","servo":1,"id":16}\n')
    send(b'{"cmd":"events","on":false,"id":17}\n')
    app.bus.publish(("hidden", 1))
    send(b'{"cmd":"events","on":true,"id":18}\n')
    for i in range(10):
        app.bus.publish(("tick", i, (i, [i])))
    events()
    send(b'{"cmd":"hello","id":19}\n')
    send(b'{"cmd":"new","pad":"' + b"x" * (MAX_LINE + 10) + b'"}\n{"cmd":"hello","id":20}\n')
    send(b'[1]\n{bad\n\xff\n{"cmd":"zap","id":21}\n{"cmd":"hello","v":2,"id":22}\n')
    send(b'{"cmd":"hello","id":[1]}\n   \n{"id":23}\n{"cmd":"act","index":"0","id":24}\n')
    out.append(["requests", [list(r) for r in app.requests]])
    out.append(["settings", app.settings.values])
    return out
'''

RUN = SESSION + '''
layout = json.load(open(LAYOUT))
print(json.dumps(session(layout)))
'''


def cpython_transcript() -> list:
    from hauntbox_fw.build import FIRMWARE_DIR

    ns: dict = {}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(RUN.replace("LAYOUT", repr(str(FIRMWARE_DIR / "data/roller_ghoster.json"))),
                     "<session>", "exec"), ns)
    return json.loads(buf.getvalue())


def test_session_transcript_makes_sense_on_cpython():
    t = cpython_transcript()
    by_id = {r.get("id"): r for r in t if isinstance(r, dict) and "ok" in r and r.get("id")}
    assert by_id[1]["proto"] == 1 and by_id[1]["firmware"] == "9.9.9"
    assert by_id[2]["options"] == []
    assert by_id[3]["prompt"]["kind"] == "roll"
    assert by_id[4]["ok"] is False and by_id[5]["ok"] is True
    assert "still being applied" in by_id[6]["error"]
    assert by_id[7]["ok"] is False and by_id[8]["ok"] is True
    assert by_id[9]["ok"] is False and by_id[10]["ok"] is True and by_id[11]["value"] == 700
    assert by_id[13]["ok"] is False and by_id[14]["ok"] is True
    assert by_id[16]["error"] == "servo must be true or false"
    assert by_id[19]["dropped"] == 4
    assert by_id[20]["ok"] is True
    assert ["requests", [["roller-ghoster", 3, 1]]] in t
    assert ["remote", ["roll"]] in t
    ticks = [r for r in t if isinstance(r, dict) and r.get("ev") == "tick"]
    assert [x["data"][0] for x in ticks] == [4, 5, 6, 7, 8, 9]
    assert not any(isinstance(r, dict) and r.get("ev") == "hidden" for r in t)


@pytest.mark.skipif(not vm.vm_available(), reason="MicroPython VM not installed (make deps)")
def test_protocol_session_identical_on_micropython():
    got = json.loads(vm.run_micropython(RUN.replace("LAYOUT", repr("/fw/data/roller_ghoster.json"))))
    assert got == cpython_transcript()


@pytest.mark.skipif(not vm.vm_available(), reason="MicroPython VM not installed (make deps)")
def test_commands_other_than_state_are_not_kept_in_ram_on_micropython():
    """Every command but state lives in protocol_commands.py, loaded for one
    request and dropped again: after the session (which used them all) it is gone."""
    code = (RUN.replace("LAYOUT", repr("/fw/data/roller_ghoster.json"))
            + "\nimport sys\nprint('protocol_commands' in sys.modules, 'protocol' in sys.modules)\n")
    last = vm.run_micropython(code).strip().splitlines()[-1]
    assert last == "False True"
