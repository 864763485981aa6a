"""Issue 17, defects 6, 7 and 14: the serial link's framing and back-pressure.

- A host that went away mid-line must not poison the next host's first request:
  the unfinished line is dropped after a second of silence, or when a new host's
  hello shows up in it (defect 6).
- Every request line gets exactly one reply, also when a host writes 1,000
  requests at once: the board stops reading while its replies wait for the host
  instead of dropping them (defect 7), on the model of the Pico's USB serial
  (sim/models/host_link.py, the firmware's own reading loop games/link.serve) and on the
  pseudo-terminal board (sim/boards/pty.py).
- A request of 1,024 bytes ending in CRLF is a valid request: the \\r is not
  counted (defect 14)."""
import json
import os
import threading
import time

from hauntbox_sim.fakes import install as sim_install
from test_protocol_support import bare_app

sim_install.install()       # the firmware's time module on a virtual clock
import protocol  # noqa: E402
from protocol import MAX_LINE, Protocol  # noqa: E402
from hauntbox_sim.core import runtime  # noqa: E402


SILENCE_MS = getattr(protocol, "SILENCE_MS", 1000)


def replies(lines):
    return [json.loads(x) for x in lines]


def proto():
    sim_install.install()
    App = bare_app()
    return Protocol(App())


def padded_hello(size, rid=1):
    # A hello request of exactly `size` bytes (padding in an ignored field).
    base = b'{"cmd":"hello","id":%d,"pad":""}' % rid
    line = base[:-2] + b"x" * (size - len(base)) + b'"}'
    assert len(line) == size
    return line


# ---- CRLF (defect 14) ------------------------------------------------------

def test_a_request_of_max_line_bytes_ending_in_crlf_is_answered():
    p = proto()
    (r,) = replies(p.feed(padded_hello(MAX_LINE) + b"\r\n"))
    assert r["ok"] is True and r["id"] == 1
    # Split just between the \r and the \n: the same.
    assert p.feed(padded_hello(MAX_LINE, 2) + b"\r") == []
    (r,) = replies(p.feed(b"\n"))
    assert r["ok"] is True and r["id"] == 2


def test_one_byte_more_is_still_too_long_with_or_without_cr():
    p = proto()
    for end in (b"\n", b"\r\n", b"x\r\n"):
        (r,) = replies(p.feed(padded_hello(MAX_LINE + 1) + end))
        assert r == {"ok": False, "id": None, "error": "line too long (max 1024 bytes)"}
    (r,) = replies(p.feed(b'{"cmd":"hello","id":9}\r\n'))      # and the link is fine after
    assert r["ok"] and r["id"] == 9


# ---- a host that went away mid-line (defect 6) -------------------------------

def test_an_unfinished_line_is_dropped_after_a_second_of_silence():
    p = proto()
    assert p.feed(b'{"cmd":"sta') == []             # printf '{"cmd":"sta' > PORT
    runtime.clock().advance_ms(SILENCE_MS + 10)
    (r,) = replies(p.feed(b'{"cmd":"hello","id":4}\n'))
    assert r["ok"] is True and r["id"] == 4 and p.stale == 1


def test_a_line_that_keeps_coming_is_not_cut_by_the_silence_rule():
    p = proto()
    line = b'{"cmd":"hello","id":5}\n'
    for b in line[:-1]:
        assert p.feed(bytes([b])) == []
        runtime.clock().advance_ms(SILENCE_MS // 2)          # slow typing: each byte within 1 s
    (r,) = replies(p.feed(b"\n"))
    assert r["ok"] is True and r["id"] == 5 and p.stale == 0


def test_a_new_hosts_hello_right_after_a_fragment_is_answered():
    p = proto()
    p.feed(b'{"cmd":"sta')
    (r,) = replies(p.feed(b'{"cmd":"hello","id":1}\n'))       # hauntbox monitor starts at once
    assert r["ok"] is True and r["id"] == 1 and r["proto"] == 1 and p.stale == 1
    # An overlong fragment is different: the board discards it to its newline
    # whatever it holds (a hello included) and answers it once, "line too
    # long" (a line over 1024 bytes always gets that one reply); the host's
    # next hello is answered.
    p.feed(b'{"cmd":"x","pad":"' + b"A" * 3000)
    (r,) = replies(p.feed(b'{"cmd":"hello","id":2}\n'))
    assert r == {"ok": False, "id": None, "error": "line too long (max 1024 bytes)"}
    (r,) = replies(p.feed(b'{"cmd":"hello","id":3}\n'))
    assert r["ok"] is True and r["id"] == 3


def test_a_valid_request_holding_hello_bytes_is_left_alone():
    # Only a line that is not a request as a whole is cut at a hello.
    p = proto()
    (r,) = replies(p.feed(b'{"cmd":"events","x":{"cmd":"hello"},"id":3}\n'))
    assert r["ok"] is True and r["id"] == 3 and "events" in r


# ---- a flood of requests in one write (defect 7) ---------------------------------

def test_a_thousand_requests_in_one_write_get_a_thousand_replies_on_the_usb_model():
    """The host writes 1,000 `state` requests at once in the middle of a game, on
    the model of the Pico's USB serial (MicroPython's write waits when its
    256-byte buffer is full; the host reads 256 bytes per ms). Each gets exactly
    one reply, in order, and the game plays on: every ball counted."""
    import asyncio

    from hauntbox_sim.models.host_link import SimUsbSerial
    from hauntbox_sim.boards.roller import RollerSim

    serial = SimUsbSerial(log=[])
    s = RollerSim(players=2, seed=3)
    events = []
    s.app.bus.subscribe(events.append)
    n = 1000

    async def host():
        board = asyncio.create_task(serial.serve(s.app))
        await asyncio.sleep(5)
        serial.host_write(b"".join(b'{"cmd":"state","id":%d}\n' % i for i in range(1, n + 1)))
        try:
            await asyncio.sleep(3600)
        finally:
            board.cancel()

    winner = sim_install.run(s.app.main_async(2, 0, False, extra_tasks=[host()]))
    assert winner is not None
    got = [m for m in serial.log if "ev" not in m]
    assert [m["id"] for m in got] == list(range(1, n + 1))
    assert all(m["ok"] and m["game"] == "roller-ghoster" for m in got)
    assert serial.bad_lines == 0 and serial.lost_pieces == 0
    assert serial.rx_peak >= n * 20          # the host's bytes waited for the board
    assert len([e for e in events if e[0] == "ball"]) == len(s.tower.released)


def test_a_thousand_requests_in_one_write_get_a_thousand_replies_on_the_pty_board(tmp_path):
    from hauntbox_sim.boards.pty import BoardOptions, PtyBoard

    board = PtyBoard(BoardOptions(players=2, seed=1, state_dir=str(tmp_path), quiet=True),
                     out=open(os.devnull, "w"))
    path = board.open()
    t = threading.Thread(target=board.run, daemon=True)
    t.start()
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        import tty
        tty.setraw(fd)
        assert board.ready.wait(10)
        n = 1000
        flood = b"".join(b'{"cmd":"state","id":%d}\n' % i for i in range(1, n + 1))
        got: list[dict] = []
        buf = bytearray()

        def reader():
            deadline = time.monotonic() + 60
            while len(got) < n and time.monotonic() < deadline:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return
                buf.extend(data)
                while b"\n" in buf:
                    i = buf.index(b"\n")
                    line = bytes(buf[:i])
                    del buf[:i + 1]
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    if "ev" not in msg:
                        got.append(msg)
        r = threading.Thread(target=reader, daemon=True)
        r.start()
        os.write(fd, flood)          # blocks while the board holds back: the back-pressure
        r.join(70)
        assert [m.get("id") for m in got] == list(range(1, n + 1))
        assert all(m["ok"] for m in got)
        assert board.transport is not None and board.transport.dropped_lines == 0
    finally:
        board.stop()
        t.join(10)
        os.close(fd)
        board.close()
