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

from ram import unload

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

PROTOCOL = const(1)          # bumped on incompatible changes
MAX_LINE = const(1024)       # bytes per request line, newline excluded
LINE_START = const(128)      # line buffer kept between requests (grows up to MAX_LINE)
_QUEUE_LEN = const(64)       # outgoing events kept while the host is slow
_MAX_ID = const(64)          # longest string id echoed back

COMMANDS = ("hello", "state", "legal", "act", "new", "config", "selftest", "calibrate",
            "events")
# "state" (which a host polls) is answered here; the others, each asked for now
# and then, are in protocol_commands.py, loaded for one request and dropped
# again, so their code is not in RAM while a game runs (docs/performance.md).

_NL = b"\n"


class BadRequest(Exception):
    pass


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Protocol:
    def __init__(self, app, subscribe=True, queue_len=_QUEUE_LEN):
        self.app = app
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
        self._buf = bytearray(LINE_START)
        self._mv = memoryview(self._buf)
        self._n = 0
        self._discard = False
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
                    if self._n + k > len(self._buf):
                        self._grow(self._n + k)
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
            if len(self._buf) > LINE_START:
                self._grow(0)           # a long line was rare: give its buffer back
            for r in self.handle_line(line):
                out.append(r)
        return out

    def _grow(self, need):
        # A line buffer of LINE_START bytes doubled until `need` fits (at most
        # MAX_LINE), keeping the first _n bytes: most requests are short, so
        # the full MAX_LINE is held only while a long one arrives.
        size = LINE_START
        while size < need:
            size *= 2
        if size > MAX_LINE:
            size = MAX_LINE
        buf = bytearray(size)
        mv = memoryview(buf)
        mv[:self._n] = self._mv[:self._n]
        self._buf = buf
        self._mv = mv

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
        if not (rid is None or _is_int(rid) or (isinstance(rid, str) and len(rid) <= _MAX_ID)):
            self.errors += 1
            return [reply_error(None, "id must be a number or a string of up to %d characters"
                                % _MAX_ID)]
        try:
            v = msg.get("v")
            if v is not None and (not _is_int(v) or v != PROTOCOL):
                raise BadRequest("protocol version %s not supported: this board speaks %d"
                                 % (dumps(v)[:16], PROTOCOL))
            cmd = msg.get("cmd")
            if not isinstance(cmd, str):
                raise BadRequest("cmd must be a string")
            if cmd == "state":
                body = self._state()
            elif cmd in COMMANDS:
                body = self._command(cmd, msg)
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

    def _command(self, cmd, msg):
        # Every command but state: its code is loaded for this request only.
        import protocol_commands
        try:
            return getattr(protocol_commands, cmd)(self, msg)
        finally:
            unload("protocol_commands")

    def _state(self):
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


def _rotating(app):
    t = getattr(app.controller, "tower", None)
    return bool(t is not None and t.turning)


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
