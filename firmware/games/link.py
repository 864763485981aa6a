# The host link: the Protocol over a byte transport.
#
# Link(proto, write) is the transport-independent part: receive(data) feeds
# bytes to the protocol and writes the replies at once; pump() is a task that
# writes queued bus events (the queue is bounded and drops the oldest, so a
# slow or absent host never holds up the game). A transport only supplies
# bytes in and a write(bytes) function out, plus, if its writes can wait for
# the host, a flush() that sends what it can without waiting:
#   - on the Pico, serve_stdio(): sys.stdin through asyncio.StreamReader, the
#     replies to sys.stdout (USB serial) through a PollingWriter;
#   - in the simulator, sim/pty_board.py: a pseudo-terminal's master fd;
#     sim/host_link.py: a model of the Pico's USB serial with a PollingWriter.
# Ctrl-C stays a KeyboardInterrupt (kbd_intr is never touched), so mpremote
# can always stop the game; it never reaches this code as a byte.

import asyncio
from time import ticks_diff, ticks_us

from protocol import Protocol

CHUNK = 64          # bytes taken from stdin per wake-up
OUT_CHUNK = 16      # bytes per USB write (see PollingWriter)
BACKLOG = 4096      # bytes that may wait for a slow host
FLUSH_MS = 10       # how often a waiting backlog is offered again
STALL_US = 5000     # a write that took this long waited for a full buffer
CAREFUL = 256       # bytes sent one at a time after such a wait


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
    def __init__(self, out, writable, cap=BACKLOG):
        self.out = out
        self.writable = writable
        self.buf = bytearray(cap)       # bytes head..tail wait to go out
        self.mv = memoryview(self.buf)
        self.head = 0
        self.tail = 0
        self.dropped = 0
        self.stalls = 0         # writes that waited for a full buffer
        self.careful = 0        # bytes still to send one at a time

    def write(self, line):
        n = len(line)
        if self.tail - self.head + n > len(self.buf):
            self.dropped += 1
            return
        if self.tail + n > len(self.buf):
            # Move what waits to the front (MicroPython's bytearray cannot
            # delete a slice, so the buffer is fixed and reused).
            k = self.tail - self.head
            self.buf[0:k] = self.mv[self.head:self.tail]
            self.head = 0
            self.tail = k
        self.buf[self.tail:self.tail + n] = line
        self.tail += n
        self.flush()

    def flush(self):
        # Sends what the port takes now; True when nothing is left waiting.
        while self.head < self.tail:
            if not self.writable():
                if self.careful:
                    self.careful = CAREFUL      # the host is still behind
                return False
            n = self.tail - self.head
            lim = 1 if self.careful else OUT_CHUNK
            if n > lim:
                n = lim
            t0 = ticks_us()
            self.out(self.mv[self.head:self.head + n])
            if ticks_diff(ticks_us(), t0) > STALL_US:
                self.stalls += 1
                self.careful = CAREFUL
            elif self.careful:
                self.careful -= 1
            self.head += n
        self.head = 0
        self.tail = 0
        return True


class Link:
    def __init__(self, proto, write, flush=None):
        self.proto = proto
        self.write = write          # write(bytes); may raise OSError
        self.flush = flush          # flush() -> True when nothing waits; None: writes never wait
        self.flag = asyncio.Event()
        self.sent = 0
        self.write_errors = 0
        proto.wake = self.flag.set

    def receive(self, data):
        for line in self.proto.feed(data):
            self.send(line)
        if self.flush is not None:
            self.flag.set()         # the pump sees to a reply that had to wait

    def send(self, line):
        try:
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


def _stdout_write():
    import sys
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:
        return out.write

    def write(b):
        sys.stdout.write(b.decode())
    return write


async def serve_stdio(app):
    # The Pico's transport: USB serial via sys.stdin / sys.stdout.
    import sys
    import select
    out = getattr(sys.stdout, "buffer", sys.stdout)
    room = select.poll()
    room.register(out, select.POLLOUT)
    writer = PollingWriter(_stdout_write(), lambda: bool(room.poll(0)))
    link = Link(Protocol(app), writer.write, writer.flush)
    pump = asyncio.create_task(link.pump())
    src = getattr(sys.stdin, "buffer", sys.stdin)
    reader = asyncio.StreamReader(src)
    poll = select.poll()
    poll.register(src, select.POLLIN)
    buf = bytearray(CHUNK + 4)
    try:
        while True:
            # read(1) waits without blocking the loop; the rest of what has
            # arrived is taken without waiting (stdin.read(n) would block for n).
            b = await reader.read(1)
            if not b:
                await asyncio.sleep(0.02)
                continue
            n = 0
            while True:
                if isinstance(b, str):
                    b = b.encode()
                for x in b:
                    buf[n] = x
                    n += 1
                if n > CHUNK - 4 or not poll.poll(0):
                    break
                b = src.read(1)
                if not b:
                    break
            link.receive(bytes(buf[:n]))
    finally:
        pump.cancel()
        link.proto.close()
