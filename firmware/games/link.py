# The host link: the Protocol over a byte transport.
#
# Link(proto, write) is the transport-independent part: receive(data) feeds
# bytes to the protocol and writes the replies at once; pump() is a task that
# writes queued bus events (the queue is bounded and drops the oldest, so a
# slow or absent host never holds up the game). A transport only supplies
# bytes in and a write(bytes) function out:
#   - on the Pico, serve_stdio(): sys.stdin through asyncio.StreamReader, the
#     replies to sys.stdout (USB serial);
#   - in the simulator, sim/pty_board.py: a pseudo-terminal's master fd.
# Ctrl-C stays a KeyboardInterrupt (kbd_intr is never touched), so mpremote
# can always stop the game; it never reaches this code as a byte.

import asyncio

from protocol import Protocol

CHUNK = 64          # bytes taken from stdin per wake-up


class Link:
    def __init__(self, proto, write):
        self.proto = proto
        self.write = write          # write(bytes); may raise OSError
        self.flag = asyncio.Event()
        self.sent = 0
        self.write_errors = 0
        proto.wake = self.flag.set

    def receive(self, data):
        for line in self.proto.feed(data):
            self.send(line)

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
    link = Link(Protocol(app), _stdout_write())
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
