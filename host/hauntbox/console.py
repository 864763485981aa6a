"""``hauntbox console``: play and watch a hauntbox board from a terminal.

    hauntbox console                         # the Pico found by USB id
    hauntbox console --port /dev/pts/5       # a board from `hauntbox sim --pty`
    hauntbox console --port sim              # start a simulated board and connect to it

The screen shows the game (for Roller Ghoster the staircases with the ghosts),
the event stream and the pending prompt with numbered options. Type a number
and Enter to choose, or a command (``help`` lists them): ``new 3``,
``selftest``, ``config settle_ms 800``, ``jog forward 300``, ``quit``.

The logic is in ``ConsoleCore`` (no terminal needed: tests drive it with a
client and call ``command()`` / ``render()``); ``run_interactive`` is the rich
full-screen front end and ``run_plain`` a line-by-line one for pipes and
dumb terminals. Both show only what ``ConsoleCore`` hands out, and that has
every control character that came from the board escaped
(``hauntbox_fw.sanitize``): the log lines, the reply messages, the header, the
prompt and the board picture.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from hauntbox_fw.sanitize import clean, clean_lines
from hauntbox.monitor import (
    DEFAULT_COLOURS,
    describe_option,
    describe_prompt,
    format_event,
    game_colours,
    player_name,
)

# Events after which the state on screen is out of date.
STATE_EVENTS = {"game", "resumed", "roll", "move", "skip", "slide", "climb", "stay", "rotate",
                "balls", "hit", "win", "turn", "over", "rotated"}
# Events that show the pending prompt has been answered.
ANSWERED = STATE_EVENTS | {"rotating"}

HELP = """commands:
  N                 choose option N of the prompt
  new [P] [S]       new game with P players, player S starts (default: same players, 0)
  state             fetch the state again
  selftest          sensors, servo stop pulse, LED pattern (result in the events)
  config [KEY [V]]  show all settings, one setting, or set one (V as JSON, else text)
  calibrate [stop|forward NS]   show or set the servo pulse widths
  jog forward|reverse|stop [MS] / jog NS [MS]   try the servo
  events on|off     event stream on or off
  faults            the board's fault log (safe mode, resets in a row, last faults)
  service [enter|STEP|leave]   the board's service mode: steps, enter, run, leave
  ball K            simulated board: a ball rolls down staircase K (Roller Ghoster)
  hit TARGET        simulated board: the die knocks TARGET (Haunted House: bob, a clue
                    spot, a hole, circle, launch; `sim` lists them)
  press BUTTON      simulated board: press roll, left, right or menu
  sim               what this simulated board can inject
  quit              leave (the game goes on on the board)"""


def _repo_paths() -> None:
    # The board picture reuses the firmware rules and the simulator's renderer.
    from hauntbox_fw.paths import prepend_firmware

    prepend_firmware()   # first, never after site-packages: Blinka's `board` would win


def board_picture(game: str | None, state: Any, colours: list[str]) -> str:
    """The board as text: Roller Ghoster through hauntbox_sim.views.roller, else the state as JSON."""
    if state is None:
        return "(no game)"
    if game == "roller-ghoster":
        try:
            _repo_paths()
            from rules.roller_ghoster import RollerGhoster
            from hauntbox_sim.views.roller import render_board

            from hauntbox_fw.build import FIRMWARE_DIR

            with open(os.path.join(FIRMWARE_DIR, "data", "roller-ghoster.json")) as f:
                layout = json.load(f)
            g = RollerGhoster.from_dict(layout, state)
            from hauntbox_sim.views.names import ROLLER_LEGEND

            text = render_board(g, colours)
            if g.is_over() and g.winner is not None:
                text += f"\n  {player_name(g.winner, colours).upper()} has won."
            return text + "\n" + legend_lines(ROLLER_LEGEND)
        except Exception:  # noqa: BLE001 - fall back to the raw state
            pass
    if game == "beetlejuice" and isinstance(state, dict) and isinstance(state.get("game"), dict):
        try:
            _repo_paths()
            from rules.beetlejuice import BeetlejuiceGame

            from hauntbox_sim.players.beetlejuice_bots import load_config
            from hauntbox.play_beetlejuice import render

            return render(BeetlejuiceGame.from_dict(load_config(), state["game"]))
        except Exception:  # noqa: BLE001 - fall back to the summary
            pass
    return summary(state)


def summary(state: Any, width: int = 70) -> str:
    """A game's state in a few short lines: its simple fields (the whole of it is in
    `state` replies' JSON); nested parts one level down, long lists left out."""
    lines: list[str] = []

    def simple(v: Any) -> bool:
        return v is None or isinstance(v, (int, float, str, bool)) or (
            isinstance(v, list) and len(v) <= 8 and all(
                x is None or isinstance(x, (int, float, str, bool)) for x in v))

    def walk(d: dict, prefix: str) -> None:
        for k, v in d.items():
            if simple(v):
                lines.append(f"{prefix}{k}: {json.dumps(v)}")
            elif isinstance(v, dict) and not prefix:
                walk(v, f"{k}.")
    if not isinstance(state, dict):
        return json.dumps(state)
    walk(state, "")
    return "\n".join(x[:width] for x in lines[:24]) or "(no game)"


def legend_lines(text: str, width: int = 60) -> str:
    """A legend wrapped to sit under the board picture."""
    import textwrap

    return "\n".join("  " + x for x in textwrap.wrap(text, width))


class ConsoleCore:
    """Everything the console knows and does, without a terminal."""

    def __init__(self, client: Any = None, max_log: int = 300) -> None:
        self.client = client
        self.hello: dict | None = None
        self.game: str | None = None
        self.state: dict | None = None          # the last "state" reply
        self.prompt: dict | None = None         # kind, player, options, highlight
        self.prompt_seq = -1
        self.last_ev_seq = -1                   # seq of the latest event (a drop: a new boot)
        self.log: deque[str] = deque(maxlen=max_log)
        self.log_total = 0                      # lines ever logged
        self.status = "connecting"
        self.status_detail = ""
        self.message = ""
        self.quit = False
        self.colours = list(DEFAULT_COLOURS)
        self.changed = threading.Event()
        self._need_state = True
        self._game_log: Any = None              # the game's own log wording (sim/*_log.py)
        self._game_log_for: str | None = None
        self._lock = threading.RLock()

    # ---- client callbacks (reader thread) -------------------------------------
    def on_event(self, msg: dict) -> None:
        with self._lock:
            ev = msg.get("ev")
            d = msg.get("data") if isinstance(msg.get("data"), list) else []
            seq = msg.get("seq") if isinstance(msg.get("seq"), int) else -1
            if 0 <= seq < self.last_ev_seq:
                # The board's counter started again: it restarted without the
                # port going away (a simulated reset). Its prompt replaces ours.
                self.prompt = None
                self.prompt_seq = -1
                self._need_state = True
                self._log("-- the board restarted --")
            if seq >= 0:
                self.last_ev_seq = seq
            if ev == "prompt" and len(d) >= 3:
                self.prompt = {"kind": d[0], "player": d[1], "options": d[2],
                               "highlight": d[3] if len(d) > 3 else 0}
                self.prompt_seq = seq
            else:
                if ev in ANSWERED:
                    self.prompt = None
                    self.prompt_seq = seq
                if ev in STATE_EVENTS:
                    self._need_state = True
                if ev == "game" and d:
                    self.game = d[0]
                    self.colours = game_colours(self.game)
                text = self._game_text(ev, d) if ev != "prompt" else None
                if text is None:
                    text = format_event(msg, self.colours)
                if text:
                    self._log(text)
        self.changed.set()

    def _game_text(self, ev: Any, d: list) -> str | None:
        """An event of Haunted House or a companion in its game's words (the same log
        as `make sim` prints), or None for the common wording (monitor.format_event)."""
        if self.game not in ("haunted-house", "beetlejuice", "superskill"):
            return None
        if self._game_log_for != self.game:
            self._game_log_for = self.game
            self._game_log = None
            try:
                _repo_paths()
                out: list[str] = []
                if self.game == "haunted-house":
                    from hauntbox_sim.views.haunted_log import HauntedLog
                    log: Any = HauntedLog(self.colours, out=out.append)
                elif self.game == "beetlejuice":
                    from hauntbox_sim.views.companion_log import BeetlejuiceLog

                    from rules.beetlejuice_cards import Config

                    from hauntbox_sim.players.beetlejuice_bots import load_config
                    log = BeetlejuiceLog(self.colours, Config(load_config()), out=out.append)
                else:
                    from hauntbox_sim.views.companion_log import SuperSkillLog
                    log = SuperSkillLog(self.colours, out=out.append)
                self._game_log = (log, out)
            except Exception:  # noqa: BLE001 - not installed: the common wording
                return None
        if self._game_log is None:
            return None
        log, out = self._game_log
        del out[:]
        try:
            log(tuple([ev] + [tuple(x) if isinstance(x, list) else x for x in d]))
        except Exception:  # noqa: BLE001 - an event the log does not know
            return None
        return "\n".join(out) if out else None

    def on_status(self, status: str, detail: str) -> None:
        with self._lock:
            again = status == "reconnecting" and self.status.startswith("reconnecting")
            # The header says what is going on now: "reconnecting... (away 2 min 05 s)".
            self.status = "reconnecting..." if status == "reconnecting" else status
            self.status_detail = detail
            if status in ("lost", "gone", "resync failed") or (status == "reconnecting"
                                                               and not again):
                self._log(f"-- {self.status}: {detail} --")
        self.changed.set()

    def on_resync(self, hello: dict, state: dict) -> None:
        with self._lock:
            self.set_hello(hello)
            # A new board (or the same one rebooted): its event counter started
            # again, so its prompt replaces ours whatever our sequence number.
            self.prompt = None
            self.prompt_seq = -1
            self.last_ev_seq = -1
            self.apply_state(state)
            self._log(f"-- reconnected: build {hello.get('build')} --")
        self.events_on(hello)
        self.changed.set()

    def events_on(self, hello: dict) -> None:
        """A console follows the events: if another host turned them off, on again, and say so."""
        if hello.get("events", True) or self.client is None:
            return
        from hauntbox.client import ClientError
        try:
            self.client.events(True)
        except ClientError as exc:
            self._log(f"-- the board's events are off and could not be turned on: {exc} --")
            return
        self._log("-- the board's events were off (another console turned them off): "
                  "turned on --")
        self.changed.set()

    def on_text(self, line: str) -> None:
        with self._lock:
            self._log("board: " + line[:200])
        self.changed.set()

    def _log(self, text: str) -> None:
        with self._lock:
            self.log.append(clean(text))
            self.log_total += 1

    # ---- state ------------------------------------------------------------------
    def set_hello(self, hello: dict) -> None:
        with self._lock:
            self.hello = hello
            self.game = hello.get("game")
            self.colours = game_colours(self.game)
            self.status = "connected"

    def apply_state(self, st: dict) -> None:
        with self._lock:
            self.state = st
            if st.get("game"):
                self.game = st["game"]
            seq = st.get("seq") if isinstance(st.get("seq"), int) else -1
            if seq >= self.prompt_seq:
                p = st.get("prompt")
                self.prompt = dict(p, highlight=0) if isinstance(p, dict) else None
                self.prompt_seq = seq
            self._need_state = False
        self.changed.set()

    def refresh(self, force: bool = False) -> None:
        """Fetch the state if events made it stale (UI thread)."""
        if self.client is None or not (force or self._need_state):
            return
        from hauntbox.client import ClientError

        self._need_state = False
        try:
            self.apply_state(self.client.state())
        except ClientError as exc:
            self._need_state = True
            self.message = f"state: {exc}"

    # ---- commands (UI thread) -------------------------------------------------------
    def command(self, text: str) -> str:
        from hauntbox.client import ClientError, NotSimulated, RequestError

        text = text.strip()
        if not text:
            return ""
        try:
            msg = self._command(text)
        except NotSimulated as exc:
            msg = str(exc)
        except RequestError as exc:
            msg = f"board says: {exc.error}"
        except ClientError as exc:
            msg = f"no answer: {exc}"
        except (ValueError, IndexError) as exc:
            msg = f"{exc} (type help)"
        msg = clean_lines(msg)
        self.message = msg
        self.changed.set()
        return msg

    def _need_client(self) -> Any:
        if self.client is None:
            raise ValueError("not connected")
        return self.client

    def _command(self, text: str) -> str:
        words = text.split()
        cmd = words[0].lower()
        if cmd.isdigit():
            p = self.prompt
            if p is None:
                return "nothing to choose right now"
            i = int(cmd) - 1
            if not 0 <= i < len(p["options"]):
                return f"choose 1..{len(p['options'])}"
            c = self._need_client()
            c.act(index=i, player=p["player"])
            return "chose " + describe_option(p["options"][i], self.colours)
        if cmd in ("q", "quit", "exit"):
            self.quit = True
            return "bye"
        if cmd in ("h", "help", "?"):
            return HELP
        if cmd in ("state", "r", "refresh"):
            self.refresh(force=True)
            return "state fetched"
        c = self._need_client()
        if cmd == "new":
            players = int(words[1]) if len(words) > 1 else None
            start = int(words[2]) if len(words) > 2 else None
            r = c.new(players=players, start=start)
            return f"new game: {r.get('players')} players, {player_name(r.get('start'), self.colours)} starts"
        if cmd == "selftest":
            c.selftest(wait=None)
            return "self-test started: the result appears in the events"
        if cmd == "config":
            if len(words) == 1:
                vals = c.config_get()
                return "  ".join(f"{k}={json.dumps(v)}" for k, v in vals.items())
            if len(words) == 2:
                return f"{words[1]} = {json.dumps(c.config_get(words[1]))}"
            raw = " ".join(words[2:])
            try:
                value = json.loads(raw)
            except ValueError:
                value = raw
            r = c.config_set(words[1], value)
            return f"{words[1]} = {json.dumps(r.get('value'))} (applies {r.get('applies')})"
        if cmd == "calibrate":
            if len(words) == 1:
                return "servo: " + json.dumps(c.calibrate().get("servo"))
            if len(words) != 3 or words[1] not in ("stop", "forward"):
                raise ValueError("calibrate stop NS | calibrate forward NS")
            r = c.calibrate(**{words[1] + "_ns": int(words[2])})
            return "servo: " + json.dumps(r.get("servo"))
        if cmd == "jog":
            if len(words) < 2:
                raise ValueError("jog forward|reverse|stop [MS] or jog NS [MS]")
            ms = int(words[2]) if len(words) > 2 else None
            if words[1].isdigit():
                r = c.calibrate(jog="pulse", ns=int(words[1]), ms=ms)
            else:
                r = c.calibrate(jog=words[1], ms=ms)
            return f"jog {r.get('jog')}: {r.get('ns')} ns for {r.get('ms')} ms"
        if cmd == "faults":
            from hauntbox.client import describe_fault
            r = c.faults()
            head = f"boot {r.get('boot')}, {r.get('crashes')} reset(s) in a row, " \
                f"{r.get('total')} fault(s) logged"
            if r.get("safe_mode"):
                head = f"SAFE MODE: {r['safe_mode']}; " + head
            for f in r.get("faults") or []:
                self._log("  " + describe_fault(f))
            return head + (" (the last ones are in the log)" if r.get("faults") else "")
        if cmd == "service":
            return self._service(c, words[1:])
        if cmd in ("ball", "hit", "press"):
            key = {"ball": "stair", "hit": "target", "press": "button"}[cmd]
            if len(words) != 2:
                raise ValueError(f"{cmd} {key.upper()}")
            value: Any = int(words[1]) if cmd == "ball" and words[1].isdigit() else words[1].lower()
            r = c.inject(cmd, **{key: value})
            what = {"ball": f"a ball rolls down staircase {r.get('stair')}",
                    "hit": f"the die knocks {r.get('target')}",
                    "press": f"{r.get('button')} pressed"}[cmd]
            return f"simulated: {what}"
        if cmd == "sim":
            verbs = c.inject("list").get("verbs") or {}
            return "simulated board: " + "; ".join(
                f"{v} {' | '.join(str(x) for x in vals)}"
                for v, args in verbs.items() for vals in args.values())
        if cmd == "events":
            on = None if len(words) == 1 else words[1].lower() in ("on", "1", "true", "yes")
            r = c.events(on)
            return "events " + ("on" if r.get("events") else "off")
        raise ValueError(f"unknown command {cmd!r}")

    def _service(self, c: Any, args: list[str]) -> str:
        # The board's service mode (docs/service-mode.md) through the protocol's
        # `service` request; each step's result arrives as a `service` event.
        if len(args) > 1:
            raise ValueError("service [enter|leave|STEP]")
        if not args:
            r = c.request("service")
            res = r.get("results") or {}
            steps = " ".join(f"{s}={res[s]}" if s in res else s for s in r.get("steps") or [])
            return ("service mode on" if r.get("active") else "service mode off") + ": " + steps
        if args[0] in ("enter", "leave"):
            c.request("service", op=args[0])
            return ("service mode: LEFT/RIGHT on the board or `service STEP` here"
                    if args[0] == "enter" else "service mode left: the game goes on")
        c.request("service", op="run", step=args[0])
        return f"step {args[0]} running: act on the board (the result appears in the events)"

    # ---- views ------------------------------------------------------------------------
    def board_text(self) -> str:
        with self._lock:
            st = self.state.get("state") if self.state else None
            return clean_lines(board_picture(self.game, st, self.colours))

    def prompt_lines(self) -> list[str]:
        with self._lock:
            p = self.prompt
            if p is None:
                return ["(waiting for the board)"]
            lines = [describe_prompt(p["kind"], p["player"], self.colours)]
            for i, o in enumerate(p["options"]):
                mark = ">" if i == p.get("highlight") else " "
                lines.append(f" {mark} {i + 1}) {describe_option(o, self.colours)}")
            return [clean(x) for x in lines]

    def header(self) -> str:
        with self._lock:
            h = self.hello or {}
            port = getattr(self.client, "port", "") or "?"
            status = self.status
            if status.startswith("reconnecting") and "away" in self.status_detail:
                status += " (away" + self.status_detail.split("away", 1)[1].split(",")[0] + ")"
            line = clean(f"hauntbox console  {port}  firmware {h.get('firmware', '?')}  "
                         f"build {h.get('build', '?')}  game {self.game or '?'}  [{status}]")
            from hauntbox.client import health_summary
            health = health_summary(self.state or h)
            return line + (f"  !! {clean(health)}" if health else "")

    def render(self, typed: str = "", log_lines: int = 14) -> Any:
        """The whole screen as a rich renderable."""
        from rich.console import Group
        from rich.layout import Layout
        from rich.panel import Panel
        from rich.text import Text

        with self._lock:
            events = list(self.log)[-log_lines:]
            message = self.message
        lay = Layout()
        lay.split_column(
            Layout(Text(self.header(), style="bold"), name="head", size=1),
            Layout(name="body"),
            Layout(Panel(Text("\n".join(self.prompt_lines())), title="prompt"), name="prompt",
                   size=8),
            # As tall as its message (help is 10 lines): borders, the message, the typing line.
            Layout(Panel(Group(Text(message[-1200:], style="dim"), Text("> " + typed + "_")),
                         title="type a number or a command (help)"), name="input",
                   size=3 + min(16, message[-1200:].count("\n") + 1)),
        )
        board = self.board_text()
        width = max((len(x) for x in board.splitlines()), default=20) + 4
        lay["body"].split_row(
            Layout(Panel(Text(board, no_wrap=True, overflow="crop"), title="board"), name="board",
                   size=width),
            Layout(Panel(Text("\n".join(events)), title="events"), name="events"),
        )
        return lay


# ---- front ends ----------------------------------------------------------------------------

def connect(core: ConsoleCore, port: str | Callable[[], str], timeout: float = 2.0,
            open_serial: Any = None, boot_wait: float = 0.0, **client_kw: Any) -> Any:
    """Connect the console; it keeps trying for ever when the board goes away
    (``reconnect_for=None``), with the Client's retry timing (``backoff``,
    ``sleep``, ``clock``) overridable through ``client_kw``."""
    from hauntbox.client import Client, RequestTimeout

    kw: dict = {"reconnect_for": None}
    kw.update(client_kw)
    if open_serial is not None:
        kw["open_serial"] = open_serial
    c = Client(port, on_event=core.on_event, on_status=core.on_status,
               on_resync=core.on_resync, on_text=core.on_text, timeout=timeout, **kw)
    core.client = c
    c.connect(hello=False)
    # A board that was just plugged in (or reset) answers once it has booted:
    # ask again for a while before saying it does not answer.
    import time
    deadline = time.monotonic() + boot_wait
    while True:
        try:
            h = c.hello()
            break
        except RequestTimeout:
            if time.monotonic() < deadline:
                continue
            c.close()
            raise RequestTimeout(f"no answer to hello from {c.port} within {boot_wait:g} s: "
                                 "not a hauntbox board, or another program (a monitor, "
                                 "mpremote, Thonny?) is reading the port") from None
    core.set_hello(h)
    core.events_on(h)
    core.refresh(force=True)
    return c


def run_plain(core: ConsoleCore, lines: Any = None, out: Callable[[str], None] = print) -> int:
    """Line mode: events and prompts printed as they come, one command per input line."""
    lock = threading.Lock()
    seen: list[Any] = [core.log_total, None]

    def flush() -> None:
        with lock:
            with core._lock:
                n = core.log_total - seen[0]
                items = list(core.log)[-n:] if n > 0 else []
                seen[0] = core.log_total
                key = (core.prompt_seq, core.prompt is None)
                prompt = core.prompt_lines() if core.prompt is not None else None
            for t in items:
                out(t)
            if prompt is not None and key != seen[1]:
                seen[1] = key
                for t in prompt:
                    out(t)

    stop = threading.Event()

    def follow() -> None:
        while not stop.is_set():
            if core.changed.wait(0.1):
                core.changed.clear()
                flush()

    out(core.header())
    out(core.board_text())
    flush()
    t = threading.Thread(target=follow, name="console-follow", daemon=True)
    t.start()
    try:
        for raw in (lines if lines is not None else sys.stdin):
            reply = core.command(raw)
            if reply:
                with lock:
                    out(reply)
            if raw.strip().lower() in ("state", "r", "refresh"):
                with lock:
                    out(core.board_text())
            if core.quit:
                break
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        t.join(1.0)
        flush()
    return 0


def run_interactive(core: ConsoleCore) -> int:  # pragma: no cover - needs a terminal
    """Full-screen rich UI; keys are read in cbreak mode."""
    import select
    import termios
    import tty

    from rich.console import Console
    from rich.live import Live

    console = Console()
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    typed = ""
    try:
        tty.setcbreak(fd)
        with Live(core.render(), console=console, screen=True, auto_refresh=False) as live:
            dirty = True
            while not core.quit:
                r, _, _ = select.select([fd], [], [], 0.1)
                if r:
                    data = os.read(fd, 64).decode("utf-8", "ignore")
                    for ch in data:
                        if ch in ("\r", "\n"):
                            core.command(typed)
                            typed = ""
                        elif ch in ("\x7f", "\b"):
                            typed = typed[:-1]
                        elif ch == "\x04":
                            core.quit = True
                        elif ch == "\x1b":
                            typed = ""
                        elif ch.isprintable():
                            typed += ch
                    dirty = True
                if core.changed.is_set():
                    core.changed.clear()
                    core.refresh()
                    dirty = True
                if dirty:
                    live.update(core.render(typed, log_lines=max(5, console.size.height - 20)),
                                refresh=True)
                    dirty = False
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hauntbox console",
        description="Play and watch a hauntbox board: the game, the events, the prompt. "
                    "Type a number to choose an option, or a command (help).")
    p.add_argument("--port", default="auto",
                   help="serial port; 'auto' finds the Pico by USB id (default); 'sim' starts "
                        "a simulated board on a pseudo-terminal and connects to it")
    p.add_argument("--sim", default="--players 2", metavar="ARGS",
                   help="options for the simulated board with --port sim "
                        "(default: '--players 2'; e.g. '--players 3 --bots 1 --fast')")
    p.add_argument("--plain", action="store_true",
                   help="line mode: print events, read one command per line (also used when "
                        "stdin or stdout is not a terminal)")
    p.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for a reply")
    p.add_argument("--boot-wait", type=float, default=15.0, metavar="S",
                   help="keep asking a board that does not answer yet (still booting) for "
                        "S seconds (default 15)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from hauntbox import ports
    from hauntbox.client import ClientError

    board = None
    if args.port == "sim":
        from hauntbox.simboard import SimBoardProcess

        board = SimBoardProcess(shlex.split(args.sim) + ["--quiet"])
        try:
            path = board.start()
        except RuntimeError as exc:
            print(f"hauntbox console: {exc}", file=sys.stderr)
            return 1
        port_spec: Any = path
    else:
        spec = args.port
        try:
            ports.resolve_port(spec)
        except ports.PortError as exc:
            print(f"hauntbox console: {exc}", file=sys.stderr)
            return 1

        def port_spec() -> str:
            return ports.resolve_port(spec)

    core = ConsoleCore()
    try:
        connect(core, port_spec, timeout=args.timeout, boot_wait=args.boot_wait)
    except ClientError as exc:
        print(clean(f"hauntbox console: {exc}"), file=sys.stderr)
        if board is not None:
            board.stop()
        return 1
    try:
        plain = args.plain or not (sys.stdin.isatty() and sys.stdout.isatty())
        if plain or os.name != "posix":
            return run_plain(core)
        return run_interactive(core)
    finally:
        core.client.close()
        if board is not None:
            board.stop()
