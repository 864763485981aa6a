"""Client for the hauntbox serial protocol (see docs/protocol.md).

``Client(port)`` talks line-delimited JSON to a board over pyserial (a Pico's
USB serial port, or the pseudo-terminal of ``hauntbox sim --pty``):

* every request carries an id and waits at most ``timeout`` seconds for the
  reply with the same id (``RequestTimeout`` otherwise);
* events (``{"ev": ...}``) go to the ``on_event`` callback, from the reader
  thread; a gap in their ``seq`` numbers is counted in ``missed``;
* when the port disappears (unplugged, board reset: ``SerialException`` /
  ``OSError``) the pending requests fail with ``Disconnected`` and the client
  reopens the port with a bounded exponential backoff; once it is back it
  resynchronises (``hello`` + ``state``) and calls ``on_resync(hello, state)``.

Lines that are not JSON (a traceback, the REPL banner) go to ``on_text``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from hauntbox.sanitize import clean

PROTOCOL = 1
DEFAULT_TIMEOUT = 2.0
MAX_LINE = 1024


class ClientError(Exception):
    """Base class of everything the client raises."""


class RequestError(ClientError):
    """The board answered ``ok: false``."""

    def __init__(self, cmd: str, reply: dict) -> None:
        self.cmd = cmd
        self.reply = reply
        self.error = str(reply.get("error", "error"))
        # The board's words: printed by many tools, so safe to print.
        super().__init__(clean(f"{cmd}: {self.error}"))


class RequestTimeout(ClientError):
    """No reply within the timeout."""


class Disconnected(ClientError):
    """The port is gone (and, if reconnecting, has not come back yet)."""


class NotSimulated(ClientError):
    """A ``sim`` request (sensor injection) sent to a board that is not simulated."""


NOT_SIMULATED = "sensor injection works only on a simulated or emulated board"


IN_USE = "is in use by another program (a console, monitor, mpremote, Thonny?): close it first"


def open_serial_port(port: str) -> Any:
    import serial

    # exclusive: an advisory lock (flock) that mpremote and the other hauntbox
    # tools take too, so two programs on one port are refused, not interleaved.
    return serial.serial_for_url(port, baudrate=115200, timeout=0.05, write_timeout=2.0,
                                 exclusive=True)


def human_reason(exc: BaseException) -> str:
    """Why a port failed, in words (pyserial's own text is for programmers)."""
    import errno

    text = str(exc)
    low = text.lower()
    num = getattr(exc, "errno", None)
    if "exclusively lock" in low or num in (errno.EAGAIN, errno.EBUSY) or "busy" in low:
        return IN_USE
    if "readiness to read but returned no data" in low or num == errno.EIO \
            or "input/output error" in low:
        return "the board went away (unplugged, reset, or its program stopped)"
    if num == errno.ENOENT or "no such file" in low:
        return "the port is not there (unplugged? reset in progress?)"
    if num == errno.EACCES or "permission denied" in low:
        return "permission denied (on Linux: add yourself to the dialout group)"
    if "write timeout" in low:
        return "the board does not take what is sent (busy, or stuck)"
    return clean(text)


def away(seconds: float) -> str:
    """A duration as people say it: 8 s, 2 min 05 s."""
    s = int(seconds)
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"


class _Slot:
    __slots__ = ("event", "reply", "error")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.reply: dict | None = None
        self.error: Exception | None = None


class Client:
    def __init__(
        self,
        port: str | Callable[[], str],
        on_event: Callable[[dict], None] | None = None,
        *,
        on_status: Callable[[str, str], None] | None = None,
        on_resync: Callable[[dict, dict], None] | None = None,
        on_text: Callable[[str], None] | None = None,
        on_line: Callable[[str], None] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        reconnect: bool = True,
        reconnect_for: float | None = 30.0,
        backoff: tuple[float, float] = (0.05, 2.0),
        open_serial: Callable[[str], Any] = open_serial_port,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port_spec = port
        self.on_event = on_event
        self.on_status = on_status
        self.on_resync = on_resync
        self.on_text = on_text
        self.on_line = on_line
        self.timeout = timeout
        self.reconnect = reconnect
        self.reconnect_for = reconnect_for
        self.backoff = backoff
        self.open_serial = open_serial
        self.port = ""
        self.hello_info: dict | None = None
        self.last_seq: int | None = None
        self.missed = 0           # events lost (gaps in seq)
        self.reconnects = 0
        self.status = "closed"
        self._ser: Any = None
        self._ids = itertools.count(1)
        self._pending: dict[int, _Slot] = {}
        self._lock = threading.Lock()
        self._wlock = threading.Lock()
        self._up = threading.Event()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._buf = bytearray()
        self._sleep = sleep
        self._clock = clock          # the retry timing is injectable (tests: minutes in no time)
        self.away_since: float | None = None

    # ---- connection ----------------------------------------------------------
    def _resolve(self) -> str:
        return self.port_spec() if callable(self.port_spec) else self.port_spec

    def connect(self, hello: bool = True) -> dict | None:
        """Open the port and start reading; with ``hello`` return the hello answer."""
        self._closed.clear()
        try:
            self.port = self._resolve()
            ser = self.open_serial(self.port)
        except Exception as exc:  # noqa: BLE001 - PortError, SerialException, OSError
            from hauntbox.ports import missing_port
            port = self.port or self.port_spec
            why = missing_port(port) if isinstance(port, str) else None
            reason = human_reason(exc)
            if reason == IN_USE:
                why = f"{port} {IN_USE}"
            raise Disconnected(why or f"cannot open {port}: {reason}") from None
        self._attach(ser)
        self._set_status("connected", self.port)
        self._thread = threading.Thread(target=self._io, name="hauntbox-client", daemon=True)
        self._thread.start()
        if hello:
            return self.hello()
        return None

    def _attach(self, ser: Any) -> None:
        self._buf = bytearray()
        self._ser = ser
        self._up.set()

    def close(self) -> None:
        self._closed.set()
        self._up.clear()
        ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except Exception:  # noqa: BLE001
                pass
        self._fail_pending(Disconnected("client closed"))
        t, self._thread = self._thread, None
        if t is not None and t is not threading.current_thread():
            t.join(2.0)
        self._set_status("closed", "")

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._up.is_set()

    def _set_status(self, status: str, detail: str) -> None:
        self.status = status
        if self.on_status is not None:
            try:
                self.on_status(status, detail)
            except Exception:  # noqa: BLE001 - a UI callback must not kill the client
                pass

    def _fail_pending(self, exc: Exception) -> None:
        with self._lock:
            slots = list(self._pending.values())
            self._pending.clear()
        for s in slots:
            s.error = exc
            s.event.set()

    # ---- the reader thread ----------------------------------------------------
    def _io(self) -> None:
        while not self._closed.is_set():
            ser = self._ser
            if ser is None:
                if not self.reconnect or not self._reconnect():
                    break
                continue
            try:
                n = ser.in_waiting
                data = ser.read(n if n > 0 else 1)
            except Exception as exc:  # noqa: BLE001 - SerialException, OSError, ValueError on close
                if self._closed.is_set():
                    break
                self._lost(exc)
                continue
            if data:
                self._take(data)

    def _lost(self, exc: Exception) -> None:
        self._up.clear()
        ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except Exception:  # noqa: BLE001
                pass
        reason = human_reason(exc)
        self.away_since = self._clock()
        self._fail_pending(Disconnected(f"lost {self.port}: {reason}"))
        self._set_status("lost", reason)
        if not self.reconnect:
            self._set_status("gone", reason)

    def _wait(self, seconds: float) -> bool:
        # Sleep unless closed; True if closed meanwhile.
        if self._sleep is not None:
            self._sleep(seconds)
            return self._closed.is_set()
        return self._closed.wait(seconds)

    def _reconnect(self) -> bool:
        """Reopen the port with a growing pause (up to backoff[1]); for
        ``reconnect_for`` seconds, or for ever when it is None. Every attempt
        says how long the board has been away (status "reconnecting")."""
        delay, cap = self.backoff
        start = self._clock() if self.away_since is None else self.away_since
        deadline = None if self.reconnect_for is None else start + self.reconnect_for
        last: Exception | None = None
        while not self._closed.is_set():
            why = human_reason(last) if last is not None else "not back yet"
            self._set_status("reconnecting", f"{self.port}: {why}; away "
                             f"{away(self._clock() - start)}, trying again every "
                             f"{min(cap, delay):g} s")
            try:
                port = self._resolve()
                ser = self.open_serial(port)
            except Exception as exc:  # noqa: BLE001
                last = exc
            else:
                self.port = port
                self._attach(ser)
                self.away_since = None
                self.reconnects += 1
                self._set_status("connected", port)
                threading.Thread(target=self._resync, name="hauntbox-resync", daemon=True).start()
                return True
            if deadline is not None and self._clock() >= deadline:
                self._set_status("gone", f"{self.port} did not come back within "
                                 f"{away(self._clock() - start)}: "
                                 f"{human_reason(last) if last else 'gone'}")
                return False
            if self._wait(delay):
                return False
            delay = min(cap, delay * 2)
        return False

    def _resync(self) -> None:
        try:
            h = self.hello()
            st = self.state()
        except ClientError as exc:
            self._set_status("resync failed", str(exc))
            return
        if self.on_resync is not None:
            try:
                self.on_resync(h, st)
            except Exception:  # noqa: BLE001
                pass

    def _take(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        while True:
            i = buf.find(b"\n")
            if i < 0:
                if len(buf) > 64 * MAX_LINE:
                    del buf[:]  # garbage without newlines: never grow without bound
                return
            raw = bytes(buf[:i]).strip()
            del buf[: i + 1]
            if raw:
                self._line(raw.decode("utf-8", "replace"))

    def _line(self, line: str) -> None:
        if self.on_line is not None:
            try:
                self.on_line(line)
            except Exception:  # noqa: BLE001
                pass
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            if self.on_text is not None:
                try:
                    self.on_text(line)
                except Exception:  # noqa: BLE001
                    pass
            return
        if "ev" in msg:
            seq = msg.get("seq")
            if isinstance(seq, int):
                if self.last_seq is not None and seq > self.last_seq + 1:
                    self.missed += seq - self.last_seq - 1
                self.last_seq = seq
            if self.on_event is not None:
                try:
                    self.on_event(msg)
                except Exception:  # noqa: BLE001 - a UI callback must not kill the reader
                    pass
            return
        rid = msg.get("id")
        slot = None
        if isinstance(rid, int):
            with self._lock:
                slot = self._pending.pop(rid, None)
        if slot is None:
            if self.on_text is not None:
                try:
                    self.on_text(line)
                except Exception:  # noqa: BLE001
                    pass
            return
        slot.reply = msg
        slot.event.set()

    # ---- requests ----------------------------------------------------------------
    def request(self, cmd: str, timeout: float | None = None, check: bool = True,
                **args: Any) -> dict:
        """Send one request and wait for its reply (``RequestError`` on ``ok: false``)."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        if self._thread is None or self.status == "gone":
            raise Disconnected(f"not connected ({self.status})")
        if not self._up.wait(timeout):
            raise Disconnected(f"{self.port or self.port_spec} is not connected ({self.status})")
        rid = next(self._ids)
        msg = {"cmd": cmd, "id": rid}
        msg.update({k: v for k, v in args.items() if v is not None})
        line = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
        if len(line) > MAX_LINE + 1:
            raise ClientError(f"{cmd}: request longer than {MAX_LINE} bytes")
        slot = _Slot()
        with self._lock:
            self._pending[rid] = slot
        try:
            ser = self._ser
            if ser is None:
                raise Disconnected(f"{self.port} is not connected")
            with self._wlock:
                ser.write(line)
        except Disconnected:
            with self._lock:
                self._pending.pop(rid, None)
            raise
        except Exception as exc:  # noqa: BLE001 - SerialException/OSError: the reader reconnects
            with self._lock:
                self._pending.pop(rid, None)
            raise Disconnected(f"cannot write to {self.port}: {exc}") from None
        if not slot.event.wait(max(0.0, deadline - time.monotonic())):
            with self._lock:
                self._pending.pop(rid, None)
            raise RequestTimeout(f"no answer to {cmd!r} from {self.port} within {timeout:g} s")
        if slot.error is not None:
            raise slot.error
        reply = slot.reply or {}
        if check and not reply.get("ok"):
            raise RequestError(cmd, reply)
        return reply

    # ---- the commands ----------------------------------------------------------------
    def hello(self) -> dict:
        h = self.request("hello")
        self.hello_info = h
        if isinstance(h.get("seq"), int):
            self.last_seq = h["seq"]
        return h

    def state(self) -> dict:
        st = self.request("state")
        if isinstance(st.get("seq"), int):
            # Events up to seq are reflected in this state.
            if self.last_seq is None or st["seq"] > self.last_seq:
                self.last_seq = st["seq"]
        return st

    def legal(self) -> dict:
        return self.request("legal")

    def act(self, action: list | tuple | None = None, index: int | None = None,
            player: int | None = None) -> dict:
        if (action is None) == (index is None):
            raise ValueError("give either action or index")
        return self.request("act", action=_jsonable(action), index=index, player=player)

    def new(self, players: int | None = None, game: str | None = None, start: int | None = None,
            options: dict | None = None) -> dict:
        return self.request("new", players=players, game=game, start=start, options=options)

    def faults(self) -> dict:
        """The board's fault log: boot, crashes, safe_mode, total and the kept faults."""
        return self.request("faults")

    def config_get(self, key: str | None = None) -> Any:
        r = self.request("config", op="get", key=key)
        return r["values"] if key is None else r["value"]

    def config_set(self, key: str, value: Any) -> dict:
        return self.request("config", op="set", key=key, value=value)

    def selftest(self, servo: bool = True, leds: bool = True, wait: float | None = 5.0) -> dict:
        """Start the self-test; with ``wait`` return its result (the selftest event)."""
        if not wait:
            return self.request("selftest", servo=servo, leds=leds)
        results: list[dict] = []
        cond = threading.Condition()
        prev = self.on_event

        def grab(msg: dict) -> None:
            data = msg.get("data") or [None]
            if msg.get("ev") == "selftest" and isinstance(data[0], dict):
                with cond:
                    results.append(data[0])
                    cond.notify_all()
            if prev is not None:
                prev(msg)

        self.on_event = grab
        try:
            rid = self.request("selftest", servo=servo, leds=leds).get("id")
            deadline = time.monotonic() + wait
            with cond:
                while True:
                    for r in results:
                        if r.get("id") == rid:
                            return r
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise RequestTimeout(f"no self-test result within {wait:g} s")
                    cond.wait(left)
        finally:
            self.on_event = prev

    def calibrate(self, **args: Any) -> dict:
        return self.request("calibrate", **args)

    def events(self, on: bool | None = None) -> dict:
        return self.request("events", on=on)

    def inject(self, verb: str, **args: Any) -> dict:
        """Make something happen on a simulated or emulated board's table.

        ``inject("ball", stair=2)``, ``inject("hit", target="bob")``,
        ``inject("press", button="roll")``, ``inject("list")`` (the verbs and
        their arguments for this build). The board's link layer answers it by
        driving its physical models (docs/protocol.md, "Simulator-only
        requests"); the firmware never sees it, so a real board refuses it as
        an unknown command: ``NotSimulated`` then says so in one line.
        """
        try:
            return self.request("sim", do=verb, **args)
        except RequestError as exc:
            if exc.error.startswith("unknown command"):
                raise NotSimulated(NOT_SIMULATED) from None
            raise


def describe_fault(f: Any) -> str:
    """One fault log entry ({"kind", "detail", "boot", "ms", "n"}) as a line."""
    if not isinstance(f, dict):
        return repr(f)
    n = f.get("n")
    times = f" (x{n})" if isinstance(n, int) and n > 1 else ""
    ms = f.get("ms")
    at = f"{ms / 1000:.1f} s" if isinstance(ms, (int, float)) else "?"
    return f"{f.get('kind')}: {f.get('detail')}{times}  [boot {f.get('boot')}, {at} in]"


def health_summary(reply: dict) -> str | None:
    """What a hello or state reply says about the board's health, or None if all is
    well: safe mode (the game is off, and why), resets in a row, the latest fault."""
    parts = []
    if reply.get("safe_mode"):
        parts.append(f"SAFE MODE: {reply['safe_mode']}")
    elif isinstance(reply.get("crashes"), int) and reply["crashes"] > 0:
        parts.append(f"{reply['crashes']} reset(s) in a row without a completed turn")
    count = reply.get("fault_count")
    last = reply.get("last_fault")
    if isinstance(count, int) and count > 0 and isinstance(last, dict):
        parts.append(f"{count} fault(s) logged, last {describe_fault(last)} (see: faults)")
    return "; ".join(parts) if parts else None


def _jsonable(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    return v
