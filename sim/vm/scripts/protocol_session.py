# Runs in the MicroPython VM and on CPython (tests/host/test_protocol_vm.py): a
# scripted host session through the firmware's Protocol on a small stand-in
# app; prints the transcript. LAYOUT (the Roller Ghoster layout file) is the
# VM's /fw copy unless the caller's globals name another.
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


LAYOUT = globals().get("LAYOUT", "/fw/data/roller-ghoster.json")
layout = json.load(open(LAYOUT))
print(json.dumps(session(layout)))
