# The host link: the Protocol over a byte transport.
#
# games/link_core.py has the transport-independent part, Link: receive(data)
# feeds bytes to the protocol and writes the replies at once; pump() is a task
# that writes queued bus events (the queue is bounded and drops the oldest, so
# a slow or absent host never holds up the game). A transport only supplies
# bytes in and a write(bytes) function out, plus, if its writes can wait for
# the host, a flush() that sends what it can without waiting:
#   - on the Pico, serve_stdio(): sys.stdin through asyncio.StreamReader, the
#     replies to sys.stdout (USB serial) through a PollingWriter (link_core's
#     stdio_link, loaded with the rest of the link when a host first speaks);
#   - in the simulator, sim/boards/pty.py: a pseudo-terminal's master fd;
#     sim/models/host_link.py: a model of the Pico's USB serial with a PollingWriter.
# Ctrl-C stays a KeyboardInterrupt (kbd_intr is never touched), so mpremote
# can always stop the game; it never reaches this code as a byte.

import asyncio

CHUNK = 64          # bytes taken from stdin per wake-up
READY_MS = 5        # how often a link held back by waiting replies looks again


async def serve_stdio(app):
    # The Pico's transport: USB serial via sys.stdin / sys.stdout. The protocol
    # and the link core are loaded when a host first sends a byte: at a table
    # with no host they cost no heap (about 4.5 KB once loaded, docs/performance.md)
    # and no event is encoded.
    import sys
    import select
    src = getattr(sys.stdin, "buffer", sys.stdin)
    reader = asyncio.StreamReader(src)
    poll = select.poll()
    poll.register(src, select.POLLIN)

    one = bytearray(1)

    def more():
        # One more byte if one has arrived, without waiting (stdin.read(n)
        # would block for n). Allocates nothing: poll.poll(0) would build a
        # list and a tuple, src.read(1) a bytes object, for every byte a host
        # sends (~100 B a byte on the port); ipoll reuses its one tuple and
        # the byte is read into `one`, which serve() copies out at once.
        for _ in poll.ipoll(0):
            if src.readinto(one) == 1:
                return one
        return None

    def make_link(app):
        from games.link_core import stdio_link
        return stdio_link(app)
    await serve(app, reader.read, more, make_link)


async def serve(app, read, more, make_link):
    # The reading loop (the simulator's model of the USB serial runs it too,
    # sim/models/host_link.py): read(1) waits for a byte without blocking the loop,
    # more() returns one more byte that is already there (or None/b""). The
    # link is made by make_link(app) when the first byte comes. While replies
    # wait for the host (link.ready() is False), nothing more is read: the
    # input stays in the USB buffers and the host's writes wait, so a flood
    # of requests slows the host down instead of losing replies.
    link = None
    pump = None
    buf = bytearray(CHUNK + 4)
    try:
        while True:
            if link is not None and not link.ready():
                await asyncio.sleep_ms(READY_MS)
                continue
            b = await read(1)
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
                if n > CHUNK - 4:
                    break
                b = more()
                if not b:
                    break
            if link is None:
                link = make_link(app)
                pump = asyncio.create_task(link.pump())
            link.receive(bytes(buf[:n]))
    finally:
        if pump is not None:
            pump.cancel()
        if link is not None:
            link.proto.close()
