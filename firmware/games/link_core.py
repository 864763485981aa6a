# The host link's core, loaded when a host first speaks (games/link.py):
# Link (the Protocol over a byte transport: receive(data) feeds bytes and
# writes the replies; pump() writes the queued bus events) and PollingWriter
# (output that never waits for the host). board_link() wires them as the
# board runs them, stdio_link() over the Pico's USB serial; the simulator
# (sim/models/host_link.py, sim/boards/pty.py) and `make bench` use the same pieces.

import asyncio
from time import ticks_diff, ticks_us

OUT_CHUNK = 16      # bytes per USB write (see PollingWriter)
BACKLOG = 4096      # bytes that may wait for a slow host (not preallocated)
FLUSH_MS = 10       # how often a waiting backlog is offered again
STALL_US = 5000     # a write that took this long waited for a full buffer
CAREFUL = 256       # bytes sent one at a time after such a wait
READY_BELOW = 512   # the link takes more input only while fewer reply bytes wait


class PollingWriter:
    # Output that does not wait for the host. MicroPython's USB serial write
    # waits for room in a small transmit buffer, up to 500 ms per call, while
    # a host has the port open but does not read (a paused terminal, a tool
    # that hung): a game that wrote every event that way would freeze, and a
    # turning tower would run past its notch. So bytes go out in small pieces,
    # each only when the port reports room (writable(): POLLOUT, room for at
    # least one byte), and the rest waits in a bounded backlog; a line that does
    # not fit is dropped whole and counted. A piece can still meet a buffer with
    # less room than itself just as the host stops reading: that one write waits
    # (and MicroPython drops the piece after its timeout). The writer notices
    # the wait and sends one byte at a time, which always fits, until CAREFUL
    # bytes have gone out without the buffer filling up: one wait per time the
    # host stops, not one per piece.
    #
    # Replies are never dropped (write(line, True)): every request line gets
    # its one reply. Their backlog is bounded from the other side instead: the
    # link reads no more input while replies wait (Link.ready()), so a host
    # that floods the board with requests is held back by the USB serial's
    # own flow control (MicroPython leaves what does not fit its stdin buffer
    # in the USB endpoint, and the host's write waits) rather than losing
    # answers. Events are dropped when the backlog is full (the protocol's
    # seq shows the gap).
    def __init__(self, out, writable, cap=BACKLOG):
        self.out = out
        self.writable = writable
        self.cap = cap
        self.lines = []         # lines waiting to go out, oldest first (no fixed buffer:
        self.off = 0            # the heap pays only while the host is behind)
        self.waiting = 0        # bytes waiting in all
        self.dropped = 0
        self.stalls = 0         # writes that waited for a full buffer
        self.careful = 0        # bytes still to send one at a time
        # A memoryview of lines[0]: each piece is a slice of it (one 16-byte
        # object on the port) rather than a slice of the bytes (a new bytes
        # object and a copy of the piece: three times that, for every piece).
        self.view = None

    def write(self, line, keep=False):
        n = len(line)
        if not keep and self.waiting + n > self.cap:
            self.dropped += 1
            return
        self.lines.append(line)
        self.waiting += n
        self.flush()

    def keep(self, line):
        # A reply: queued whatever the backlog (see above).
        self.write(line, True)

    def flush(self):
        # Sends what the port takes now; True when nothing is left waiting.
        lines = self.lines
        while lines:
            if not self.writable():
                if self.careful:
                    self.careful = CAREFUL      # the host is still behind
                return False
            line = lines[0]
            n = len(line) - self.off
            lim = 1 if self.careful else OUT_CHUNK
            if n > lim:
                n = lim
            v = self.view
            if v is None:
                v = self.view = memoryview(line)
            t0 = ticks_us()
            self.out(v[self.off:self.off + n])
            if ticks_diff(ticks_us(), t0) > STALL_US:
                self.stalls += 1
                self.careful = CAREFUL
            elif self.careful:
                self.careful -= 1
            self.off += n
            self.waiting -= n
            if self.off >= len(line):
                lines.pop(0)
                self.off = 0
                self.view = None
        return True


class Link:
    def __init__(self, proto, write, flush=None, write_reply=None):
        self.proto = proto
        self.write = write          # write(bytes): an event; may raise OSError
        # write_reply(bytes): a reply, which must not be dropped (default: write)
        self.write_reply = write if write_reply is None else write_reply
        self.flush = flush          # flush() -> True when nothing waits; None: writes never wait
        self.writer = None          # the PollingWriter behind write/flush, if any
        self.flag = asyncio.Event()
        self.sent = 0
        self.write_errors = 0
        proto.wake = self.flag.set

    def ready(self):
        # May the transport hand over more input? Not while replies wait for
        # the host: that is the back-pressure (PollingWriter).
        w = self.writer
        return w is None or w.waiting < READY_BELOW

    def receive(self, data):
        for line in self.proto.feed(data):
            self.send(line, True)
        if self.flush is not None:
            self.flag.set()         # the pump sees to a reply that had to wait

    def send(self, line, reply=False):
        try:
            if reply:
                self.write_reply(line)
            else:
                self.write(line)
            self.sent += 1
        except OSError:
            self.write_errors += 1

    async def pump(self):
        proto = self.proto
        n = 0
        while True:
            if self.flush is not None and not self.flush():
                # The host is slow or not reading: the game goes on, events wait
                # in the protocol's bounded queue, the backlog is offered again.
                await asyncio.sleep_ms(FLUSH_MS)
                continue
            line = proto.take_event()
            if line is None:
                self.flag.clear()
                await self.flag.wait()
                continue
            self.send(line)
            n += 1
            if n >= 8:
                # Let the game run between bursts of events.
                n = 0
                await asyncio.sleep(0)


def board_link(app, out, writable):
    # The Link as the board runs it: Protocol, PollingWriter over out(bytes)
    # and writable() (also what `make bench` measures beside each game).
    from protocol import Protocol
    writer = PollingWriter(out, writable)
    link = Link(Protocol(app), writer.write, writer.flush, writer.keep)
    link.writer = writer
    return link


def stdio_link(app):
    # The Pico's link, made when a host first speaks (games/link.py,
    # serve_stdio): replies and events go to sys.stdout (USB serial), written
    # only while select.poll reports room for them.
    import sys
    import select
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:
        write = out.write
    else:
        out = sys.stdout

        def write(b):
            sys.stdout.write(bytes(b).decode())
    room = select.poll()
    room.register(out, select.POLLOUT)

    def writable():
        # ipoll, not poll: poll(0) builds a list and a tuple on every call,
        # and PollingWriter asks before every 16-byte piece it sends.
        for _ in room.ipoll(0):
            return True
        return False
    return board_link(app, write, writable)
