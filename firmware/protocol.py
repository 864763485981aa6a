# The host protocol: line-delimited JSON over the Pico's USB serial port (and,
# in the simulator, over a pseudo-terminal). The same code runs on both; only
# the byte transport differs (games/link.py, sim/boards/pty.py).
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
#
# This module is what stays in RAM while a host is connected: the event queue
# (events flow all game) and the line buffer. Requests come now and then, at
# a person's pace, so the code that parses, checks and answers them is in
# protocol_commands.py, loaded for the requests of one chunk of input and
# dropped again (docs/performance.md).

import json
import time     # ticks_ms looked up when used (the host tests import this module bare)

from ram import unload

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

MAX_LINE = const(1024)       # bytes per request line, newline excluded
LINE_START = const(128)      # line buffer kept between requests (grows up to MAX_LINE)
_QUEUE_LEN = const(64)       # outgoing events kept while the host is slow
SILENCE_MS = const(1000)     # a line unfinished this long was left by a host that went away

_NL = b"\n"
_CR = const(13)
# How the reference client (host/hauntbox/client.py) and hauntbox monitor start:
# a new host. Inside a JSON string these bytes would be escaped (\"), so they
# can only start a request object.
_HELLO = b'{"cmd":"hello"'


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


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
        self._last_ms = 0            # ticks_ms of the last byte of an unfinished line
        self.stale = 0               # unfinished lines dropped (silence, or a new host's hello)
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
        # line in it. A line longer than MAX_LINE (a \r before its \n not
        # counted) is dropped up to its newline and answered with one "line
        # too long" error (None stands for it in `lines`). Blank lines are
        # skipped here, so they load nothing.
        #
        # What a host left unfinished when it went away (a cable pulled, a
        # tool killed mid-write) must not be glued to the next host's first
        # request: an unfinished line is dropped after SILENCE_MS without a
        # byte, and when a new host's hello shows up inside a (not overlong) line.
        if not isinstance(data, bytes):
            data = bytes(data)
        if self._n or self._discard:
            d = time.ticks_diff(time.ticks_ms(), self._last_ms)
            if d < 0 or d >= SILENCE_MS:     # < 0: so old that ticks_ms wrapped
                self._drop_partial()
        lines = None
        i = 0
        n = len(data)
        while i < n:
            j = data.find(_NL, i)
            end = n if j < 0 else j
            # (An overlong line is discarded to its newline whatever it holds,
            # a hello included: it gets its one "line too long" reply.)
            if not self._discard:
                k = end - i
                # One byte more than MAX_LINE fits: the \r of a CRLF line.
                if self._n + k > MAX_LINE + 1:
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
                line = None
            else:
                m = self._n
                if m > MAX_LINE and self._buf[m - 1] != _CR:
                    line = None                 # MAX_LINE + 1 bytes and no CRLF
                else:
                    line = bytes(self._mv[:m]).strip()
                self._n = 0
                if len(self._buf) > LINE_START:
                    self._grow(0)       # a long line was rare: give its buffer back
                if line is not None:
                    if not line:
                        continue
                    if line.find(_HELLO, 1) > 0:
                        line = self._fresh_start(line)
            if lines is None:
                lines = []
            lines.append(line)
        if self._n or self._discard:
            self._last_ms = time.ticks_ms()
        if lines is None:
            return []
        return self._answer(lines)

    def _drop_partial(self):
        self._n = 0
        self._discard = False
        self.stale += 1
        if len(self._buf) > LINE_START:
            self._grow(0)

    def _fresh_start(self, line):
        # A line with a hello after its start: if it is not a request as a
        # whole, what comes before the (last) hello is what an earlier host
        # left unfinished. Only then is it parsed twice.
        try:
            json.loads(line.decode())
            return line
        except Exception:  # noqa: BLE001 - ValueError, UnicodeError, RecursionError (CPython)
            self.stale += 1
            return line[line.rfind(_HELLO):]

    def _grow(self, need):
        # A line buffer of LINE_START bytes doubled until `need` fits (at most
        # MAX_LINE), keeping the first _n bytes: most requests are short, so
        # the full MAX_LINE is held only while a long one arrives.
        size = LINE_START
        while size < need:
            size *= 2
        if size > MAX_LINE + 1:
            size = MAX_LINE + 1             # MAX_LINE and the \r of a CRLF
        buf = bytearray(size)
        mv = memoryview(buf)
        mv[:self._n] = self._mv[:self._n]
        self._buf = buf
        self._mv = mv

    def handle_line(self, line):
        # One request line (without its newline); returns the reply lines.
        return self._answer((line,))

    def _answer(self, lines):
        # The replies to these request lines. Their code is loaded once for all
        # of them: a host that floods the link with lines costs one load per
        # chunk it sends, and the game runs between chunks.
        import protocol_commands
        try:
            out = []
            for line in lines:
                for r in protocol_commands.handle_line(self, line):
                    out.append(r)
            return out
        finally:
            unload("protocol_commands")


def encode_event(ev, seq):
    try:
        return (dumps({"ev": str(ev[0]), "data": list(ev[1:]), "seq": seq}) + "\n").encode()
    except Exception:  # noqa: BLE001 - something not JSON-able: send it as text
        return (dumps({"ev": str(ev[0]), "data": [str(x) for x in ev[1:]], "seq": seq})
                + "\n").encode()
