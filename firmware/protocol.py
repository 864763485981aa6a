# The host protocol: line-delimited JSON over the Pico's USB serial port (and,
# in the simulator, over a pseudo-terminal). The same code runs on both; only
# the byte transport differs (games/link.py, sim/pty_board.py).
#
#   request  {"cmd":"hello","id":7}                 one JSON object per line
#   reply    {"ok":true,"id":7,...}  or  {"ok":false,"id":7,"error":"..."}
#   event    {"ev":"roll","data":[0,"2a"],"seq":12} pushed from the event bus
#
# Protocol(app) is I/O-free: feed(bytes) and handle_line(bytes) return the reply
# lines; bus events wait in a bounded queue (drop-oldest, counted) that the link
# drains with take_event(). Nothing a host sends can run code, read files or
# stop the game: every request is checked before anything changes, and any
# unexpected exception becomes an error reply. See docs/protocol.md.

import json

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

PROTOCOL = const(1)          # bumped on incompatible changes
MAX_LINE = const(1024)       # bytes per request line, newline excluded
QUEUE_LEN = const(64)        # outgoing events kept while the host is slow
MAX_ID = const(64)           # longest string id echoed back

COMMANDS = ("hello", "state", "legal", "act", "new", "config", "selftest", "calibrate",
            "events")
# Rarely used: in protocol_admin.py, loaded for one request and dropped again.
ADMIN = ("new", "config", "selftest", "calibrate")

_NL = b"\n"
_NONE = ()                   # marker: optional argument not given


class BadRequest(Exception):
    pass


def dumps(obj):
    try:
        return json.dumps(obj, separators=(",", ":"))
    except TypeError:
        return json.dumps(obj)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _arg(msg, key, kind, default=_NONE):
    # One argument of a request, type-checked. null counts as not given.
    v = msg.get(key)
    if v is None:
        if default is _NONE:
            raise BadRequest("missing %s" % key)
        return default
    if kind == "int":
        ok = _is_int(v)
        what = "a whole number"
    elif kind == "str":
        ok = isinstance(v, str)
        what = "a string"
    elif kind == "bool":
        ok = isinstance(v, bool)
        what = "true or false"
    elif kind == "list":
        ok = isinstance(v, list)
        what = "a list"
    else:
        ok = isinstance(v, dict)
        what = "an object"
    if not ok:
        raise BadRequest("%s must be %s" % (key, what))
    return v


def to_action(v):
    # A JSON action (list of str/int/null, or lists of those) as the engine's tuple.
    out = []
    for x in v:
        if isinstance(x, list):
            inner = []
            for y in x:
                if not (y is None or isinstance(y, str) or _is_int(y)):
                    raise BadRequest("action items must be strings, numbers or null")
                inner.append(y)
            out.append(tuple(inner))
        elif x is None or isinstance(x, str) or _is_int(x):
            out.append(x)
        else:
            raise BadRequest("action items must be strings, numbers or null")
    return tuple(out)


def read_build_id(root):
    try:
        with open(root + "data/build.json") as f:
            info = json.load(f)
        b = info.get("build") if isinstance(info, dict) else None
        return b if isinstance(b, str) else "dev"
    except Exception:  # noqa: BLE001 - missing or broken file: a development build
        return "dev"


class Protocol:
    def __init__(self, app, subscribe=True, queue_len=QUEUE_LEN):
        self.app = app
        self.build = read_build_id(getattr(app, "root", ""))
        self.version = getattr(app, "VERSION", None) or _firmware_version()
        self.events_on = True
        self.seq = 0                 # bus events seen (a gap at the host = dropped events)
        self.dropped = 0             # events dropped because the queue was full
        self.queue = []              # (seq, event) waiting for the link
        self.queue_len = queue_len
        self.wake = None             # called when an event is queued (the link's flag)
        self.spawn = None            # spawn(coro); default asyncio.create_task
        self.busy = None             # name of the running selftest/jog task, or None
        self.lines = 0
        self.errors = 0
        self._buf = bytearray(MAX_LINE)
        self._mv = memoryview(self._buf)
        self._n = 0
        self._discard = False
        self._cmds = {
            "hello": self._hello, "state": self._state, "legal": self._legal,
            "act": self._act, "events": self._events,
        }
        self._sink = self.on_event
        if subscribe:
            app.bus.subscribe(self._sink)

    def close(self):
        self.app.bus.unsubscribe(self._sink)

    # ---- outgoing events -------------------------------------------------

    def on_event(self, ev):
        # Bus sink: O(1), never blocks the game. The oldest event goes when full.
        self.seq += 1
        if not self.events_on:
            return
        q = self.queue
        if len(q) >= self.queue_len:
            q.pop(0)
            self.dropped += 1
        q.append((self.seq, ev))
        w = self.wake
        if w is not None:
            w()

    def take_event(self):
        # The next queued event as a line, or None.
        if not self.queue:
            return None
        seq, ev = self.queue.pop(0)
        return encode_event(ev, seq)

    # ---- incoming bytes --------------------------------------------------

    def feed(self, data):
        # A chunk of the byte stream; returns the reply lines for every complete
        # line in it. A line longer than MAX_LINE is dropped up to its newline
        # and answered with one "line too long" error.
        if not isinstance(data, bytes):
            data = bytes(data)
        out = []
        i = 0
        n = len(data)
        while i < n:
            j = data.find(_NL, i)
            end = n if j < 0 else j
            if not self._discard:
                k = end - i
                if self._n + k > MAX_LINE:
                    self._discard = True
                    self._n = 0
                elif k:
                    self._mv[self._n:self._n + k] = data[i:end]
                    self._n += k
            if j < 0:
                break
            i = j + 1
            if self._discard:
                self._discard = False
                self.lines += 1
                self.errors += 1
                out.append(reply_error(None, "line too long (max %d bytes)" % MAX_LINE))
                continue
            line = bytes(self._mv[:self._n])
            self._n = 0
            for r in self.handle_line(line):
                out.append(r)
        return out

    def handle_line(self, line):
        # One request line (without its newline); returns the reply lines.
        try:
            line = line.strip()
            if not line:
                return []
            self.lines += 1
            if len(line) > MAX_LINE:
                raise BadRequest("line too long (max %d bytes)" % MAX_LINE)
            try:
                msg = json.loads(line.decode())
            except ValueError:
                raise BadRequest("not valid JSON")
            if not isinstance(msg, dict):
                raise BadRequest("a request must be a JSON object")
        except BadRequest as e:
            self.errors += 1
            return [reply_error(None, str(e))]
        except Exception:  # noqa: BLE001 - e.g. RecursionError on deep nesting (CPython)
            self.errors += 1
            return [reply_error(None, "not valid JSON")]
        rid = msg.get("id")
        if not (rid is None or _is_int(rid) or (isinstance(rid, str) and len(rid) <= MAX_ID)):
            self.errors += 1
            return [reply_error(None, "id must be a number or a string of up to %d characters"
                                % MAX_ID)]
        try:
            v = msg.get("v")
            if v is not None and (not _is_int(v) or v != PROTOCOL):
                raise BadRequest("protocol version %s not supported: this board speaks %d"
                                 % (dumps(v)[:16], PROTOCOL))
            cmd = msg.get("cmd")
            if not isinstance(cmd, str):
                raise BadRequest("cmd must be a string")
            fn = self._cmds.get(cmd)
            if fn is not None:
                body = fn(msg)
            elif cmd in ADMIN:
                body = self._admin(cmd, msg)
            else:
                raise BadRequest("unknown command %s" % dumps(cmd[:32]))
        except BadRequest as e:
            self.errors += 1
            return [reply_error(rid, str(e))]
        except Exception as e:  # noqa: BLE001 - a request must never stop the firmware
            self.errors += 1
            return [reply_error(rid, "internal error: %s" % type(e).__name__)]
        return [reply_ok(rid, body)]

    # ---- helpers ---------------------------------------------------------

    def _controller(self):
        c = self.app.controller
        if c is None:
            raise BadRequest("no game loaded")
        return c

    def _prompt(self):
        d = getattr(self.app.controller, "decider", None)
        cur = d.current if d is not None else None
        if cur is None:
            return None
        return {"kind": cur[0], "player": cur[1], "options": cur[2]}

    def _admin(self, cmd, msg):
        # new, config, selftest, calibrate: their code (about a quarter of the
        # protocol) is not kept in RAM between requests.
        import sys
        import protocol_admin
        try:
            return getattr(protocol_admin, cmd)(self, msg)
        finally:
            if sys.implementation.name == "micropython":
                sys.modules.pop("protocol_admin", None)

    # ---- commands --------------------------------------------------------

    def _hello(self, msg):
        from games.registry import GAMES
        return {"proto": PROTOCOL, "firmware": self.version, "build": self.build,
                "game": self.app.game_name, "games": sorted(GAMES), "max_line": MAX_LINE,
                "events": self.events_on, "seq": self.seq, "dropped": self.dropped}

    def _state(self, msg):
        c = self._controller()
        g = getattr(c, "game", None)
        over = None
        if g is not None:
            over = g.is_over()
        return {"game": self.app.game_name, "state": c.public_state(), "prompt": self._prompt(),
                "over": over, "rotating": _rotating(self.app),
                "turns": getattr(c, "turns", 0), "faults": getattr(c, "faults", 0),
                "busy": self.busy, "seq": self.seq, "dropped": self.dropped,
                "events": self.events_on}

    def _legal(self, msg):
        p = self._prompt()
        if p is None:
            return {"kind": None, "player": None, "options": []}
        return p

    def _act(self, msg):
        c = self._controller()
        d = getattr(c, "decider", None)
        if d is None:
            raise BadRequest("this game takes no decisions from the host")
        index = _arg(msg, "index", "int", None)
        action = _arg(msg, "action", "list", None)
        player = _arg(msg, "player", "int", None)
        if (index is None) == (action is None):
            raise BadRequest("give either action or index")
        if action is not None:
            if not action:
                raise BadRequest("action must not be empty")
            action = to_action(action)
        cur = d.current
        if cur is None:
            raise BadRequest("no decision is pending")
        kind, who, options = cur
        if player is not None and player != who:
            raise BadRequest("the pending decision is player %d's, not player %d's"
                             % (who, player))
        if d.pending():
            raise BadRequest("the previous choice is still being applied")
        if index is not None:
            if not 0 <= index < len(options):
                raise BadRequest("index must be 0..%d" % (len(options) - 1))
            action = options[index]
        elif action not in options:
            raise BadRequest("not one of the offered options")
        err = d.offer(action)
        if err is not None:
            raise BadRequest(err)
        return {"kind": kind, "player": who, "action": action}

    def _events(self, msg):
        on = _arg(msg, "on", "bool", None)
        if on is not None:
            self.events_on = on
            if not on:
                self.queue = []
        return {"events": self.events_on, "seq": self.seq, "dropped": self.dropped}


def _rotating(app):
    t = getattr(app.controller, "tower", None)
    return bool(t is not None and t.turning)


def _firmware_version():
    try:
        import app
        return app.VERSION
    except Exception:  # noqa: BLE001
        return "?"


def reply_ok(rid, body):
    d = {"ok": True, "id": rid}
    if body:
        for k in body:
            d[k] = body[k]
    return (dumps(d) + "\n").encode()


def reply_error(rid, text):
    return (dumps({"ok": False, "id": rid, "error": text}) + "\n").encode()


def encode_event(ev, seq):
    try:
        return (dumps({"ev": str(ev[0]), "data": list(ev[1:]), "seq": seq}) + "\n").encode()
    except Exception:  # noqa: BLE001 - something not JSON-able: send it as text
        return (dumps({"ev": str(ev[0]), "data": [str(x) for x in ev[1:]], "seq": seq})
                + "\n").encode()
