"""``hauntbox web``: the board, live in a browser.

    hauntbox web --port sim                        # a simulated board, served on :8080
    hauntbox web --port sim --game haunted-house
    hauntbox web --port /dev/pts/5 --no-browser    # a board from `hauntbox sim --pty`
    hauntbox web --port auto                       # the Pico found by its USB id

The server talks to the board only through the host's client
(``hauntbox.client.Client``, with its reconnect and resync) and keeps what it
knows in the console's ``ConsoleCore`` (the state, the pending prompt, the
event log in words). It serves one page (``static/``: plain ES modules, CSS,
SVG drawn in the page; nothing from elsewhere) and one WebSocket, ``/ws``:

* to every page, a ``view`` (connection, hello, state, prompt, log) whenever
  something changed, and each board event as ``ev`` (for the animations);
* from the controlling page only, the whitelisted requests of
  ``hauntbox.web.messages``; every other page is read-only until it sends
  ``take``. Answers come back as ``reply``.

aiohttp serves both: HTTP and WebSocket in one asyncio server, from a wheel
with no native build step that is not already on PyPI.
"""

from __future__ import annotations

from hauntbox_fw.games import game_arg
import argparse
import asyncio
import json
import os
import shlex
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from hauntbox_fw.sanitize import clean
from hauntbox.web import labels
from hauntbox.web.holders import port_holders
from hauntbox.web.messages import CONTROL, BadMessage, check

STATIC = Path(__file__).resolve().parent / "static"
GAMES = ("roller-ghoster", "haunted-house", "beetlejuice", "superskill")
#: Most views per second sent to the pages (a flood of events is merged).
VIEW_HZ = 20
#: Seconds between looks at who else holds the port.
HOLDERS_EVERY = 2.0
#: Headers of every answer: nothing from elsewhere, no framing by other sites.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                               "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Page:
    """One connected page (a WebSocket)."""

    _ids = iter(range(1, 1 << 62))

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.id = next(Page._ids)


class WebBoard:
    """The board as the pages see it: a ConsoleCore fed by a Client, plus the pages."""

    def __init__(self, port_spec: Any, *, sim: bool, timeout: float = 2.0,
                 ignore_pids: Any = None, board: Any = None) -> None:
        from hauntbox.console import ConsoleCore

        self.port_spec = port_spec
        self.sim = sim
        self.timeout = timeout
        self.board = board                  # the SimBoardProcess we started, if any
        # With --port sim: (game, players) -> the simulated board's arguments for that game.
        self.switch_board: Any = None
        self._board_lock = threading.Lock()
        self.ignore_pids = ignore_pids or (lambda: ())
        self.core = ConsoleCore(max_log=400)
        # The console's core keeps the state and prompt; the log here has the
        # words of every game (labels.event_text) and the connection changes.
        self.core_event = self.core.on_event
        self.core_status = self.core.on_status
        self.core.on_event = self._on_event  # type: ignore[method-assign]
        self.core.on_status = self._on_status  # type: ignore[method-assign]
        self.core.on_text = self._on_text  # type: ignore[method-assign]
        self.log: deque[str] = deque(maxlen=200)
        self.status = "connecting"          # the Client's word for the link
        self.status_detail = ""
        self.pages: dict[int, Page] = {}
        self.controller: int | None = None
        self.events: deque[dict] = deque(maxlen=256)
        self.notches = 0                    # turns of the tower seen since the server started
        self.holders: list[tuple[int, str]] = []
        self.error = ""                     # why the first connection failed
        self.loop: asyncio.AbstractEventLoop | None = None
        self._dirty = threading.Event()
        self._tasks: list[asyncio.Task] = []

    # ---- the board side (client reader thread) ---------------------------------
    def _on_event(self, msg: dict) -> None:
        if msg.get("ev") == "rotated":
            self.notches += 1
        self.core_event(msg)
        if msg.get("ev") != "prompt":
            # The console fetches the state after Roller Ghoster's rule events; the
            # page draws every game, so after any effect (merged: VIEW_HZ at most).
            self.core._need_state = True
            # Events can come before the hello answer is taken in: the client's hello then.
            game = self.core.game or ((self.client.hello_info or {}).get("game")
                                      if self.client is not None else None)
            text = labels.event_text(game, msg, self.core.colours)
            if text:
                self.log.append(clean(text))
        self.events.append(msg)
        self._dirty.set()

    def _on_status(self, status: str, detail: str) -> None:
        before = self.status
        self.core_status(status, detail)
        self.status, self.status_detail = status, detail
        # Each retry reports again (with the time away): the log says each change once.
        if status != before and status in ("lost", "gone", "reconnecting", "connected",
                                            "resync failed"):
            self.log.append(clean(f"-- {status}: {detail} --"))
        self._dirty.set()

    def _on_text(self, line: str) -> None:
        self.log.append(clean("board: " + line[:200]))
        self._dirty.set()

    def connect(self) -> None:
        from hauntbox.console import connect

        connect(self.core, self.port_spec, timeout=self.timeout)
        self._dirty.set()

    def _switch(self, game: str, players: int | None) -> dict:
        """A new game of another game on the simulated board we started: a simulated
        board of that game's build (its tower, table or companion) is started in
        its place, as if the players had carried the firmware to the other build.
        The board's own `new` would load the game without its hardware."""
        from hauntbox.console import _repo_paths

        _repo_paths()
        from games.registry import PLAYERS, players_error

        n = players if players is not None else max(PLAYERS[game][0], 2)
        why = players_error(game, n)
        if why:
            return {"ok": False, "text": f"board says: {why}"}
        assert self.board is not None and self.switch_board is not None
        with self._board_lock:
            old = self.board.args
            self.board.stop()
            self.board.args = self.switch_board(game, n)
            try:
                self.board.start()
            except RuntimeError as exc:
                self.board.args = old
                self.board.start()
                return {"ok": False, "text": clean(f"the simulated {game} board did not start: "
                                                   f"{str(exc).splitlines()[-1]}")}
        self.log.append(clean(f"-- a simulated board of {game} started for the new game --"))
        return {"ok": True, "text": clean(f"new game of {game}: {n} players (a simulated "
                                          f"board of {game} started)")}

    def restart_board(self) -> None:
        """The simulated board we started has stopped (killed, crashed): start it
        again on the same port name and saved-game folder; the client reconnects
        to it as to a Pico plugged in again, and its saved game waits to resume."""
        if not self._board_lock.acquire(blocking=False):
            return                          # a switch to another game is under way
        try:
            self._restart_board()
        finally:
            self._board_lock.release()

    def _restart_board(self) -> None:
        assert self.board is not None
        code = self.board.proc.returncode if self.board.proc is not None else None
        try:
            self.board.start()
        except RuntimeError as exc:
            self.log.append(clean(f"-- the simulated board stopped (exit {code}) and did not "
                                  f"start again: {str(exc).splitlines()[0]} --"))
            return
        self.log.append(f"-- the simulated board stopped (exit {code}): started again --")
        self._dirty.set()

    @property
    def client(self) -> Any:
        return self.core.client

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    # ---- what the pages get ------------------------------------------------------
    def view(self) -> dict:
        core = self.core
        with core._lock:
            hello = core.hello or {}
            st = core.state or {}
            prompt = core.prompt
            game = core.game
            colours = list(core.colours)
            log = list(self.log)
        port = getattr(self.client, "port", "") or str(self.port_spec)
        from hauntbox.client import IN_USE

        status, detail = self.status, self.status_detail
        if status in ("reconnecting", "lost") and IN_USE in detail:
            status = "in use"             # the board is there, but another program has the port
        p = None
        if prompt is not None:
            p = {"kind": prompt.get("kind"), "player": prompt.get("player"),
                 "title": clean(labels.prompt_title(game, prompt.get("kind"),
                                                    prompt.get("player"), colours)),
                 "options": [clean(labels.option_label(game, o, colours))
                             for o in prompt.get("options") or []],
                 "highlight": prompt.get("highlight", 0)}
        from hauntbox.client import health_summary

        return {
            "t": "view", "status": status, "detail": clean(detail), "port": clean(port),
            "sim": self.sim,
            "holders": [[pid, clean(name)] for pid, name in self.holders],
            "hello": {k: hello.get(k) for k in ("firmware", "build", "games", "proto")},
            "health": clean(health_summary(st or hello) or ""),
            "game": game, "colours": colours, "state": st.get("state"),
            "over": st.get("over"), "rotating": st.get("rotating"), "turns": st.get("turns"),
            "summary": labels.summary(game, st.get("state")), "layout": layout(game),
            "prompt": p, "log": log, "notches": self.notches, "pages": len(self.pages),
            "controller": self.controller,
        }

    async def _send(self, page: Page, msg: dict) -> None:
        try:
            await page.ws.send_str(json.dumps(msg, separators=(",", ":")))
        except (ConnectionError, RuntimeError):
            pass

    async def broadcast(self) -> None:
        v = self.view()
        evs = []
        while self.events:
            evs.append(self.events.popleft())
        for page in list(self.pages.values()):
            for e in evs:
                await self._send(page, {"t": "ev", "msg": e})
            await self._send(page, dict(v, you=page.id, role=self.role(page)))

    def role(self, page: Page) -> str:
        return "controller" if self.controller == page.id else "viewer"

    async def pump(self) -> None:
        """Send a view when something changed (at most VIEW_HZ a second)."""
        loop = asyncio.get_running_loop()
        last_holders = 0.0
        while True:
            await asyncio.sleep(1 / VIEW_HZ)
            now = time.monotonic()
            if now - last_holders > HOLDERS_EVERY:
                last_holders = now
                if self.board is not None and not self.board.running \
                        and not self._board_lock.locked():
                    await loop.run_in_executor(None, self.restart_board)
                port = getattr(self.client, "port", "") if self.client else ""
                found = (await loop.run_in_executor(None, port_holders, port,
                                                    tuple(self.ignore_pids()))) if port else []
                if found != self.holders:
                    self.holders = found
                    self._dirty.set()
            if self.core.changed.is_set():
                self.core.changed.clear()
                self._dirty.set()
                # The state is fetched again after the events that change it (as the console).
                await loop.run_in_executor(None, self.core.refresh)
            if self._dirty.is_set():
                self._dirty.clear()
                await self.broadcast()

    # ---- what the pages send -------------------------------------------------------
    async def handle(self, page: Page, raw: str) -> dict:
        games = list((self.core.hello or {}).get("games") or GAMES)
        try:
            msg = check(raw, games=games, sim=self.sim)
        except BadMessage as exc:
            return {"ok": False, "text": str(exc)}
        t = msg["t"]
        if t == "take":
            self.controller = page.id
            self._dirty.set()
            return {"ok": True, "text": "you have the controls"}
        if t in CONTROL and self.controller != page.id:
            return {"ok": False, "text": "this page is read-only: take the controls to play"}
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._request, msg)

    def _request(self, msg: dict) -> dict:
        from hauntbox.client import ClientError, RequestError

        c = self.client
        t = msg["t"]
        try:
            if c is None:
                raise ClientError("not connected")
            if t == "state":
                self.core.refresh(force=True)
                text = "state fetched"
            elif t == "act":
                p = self.core.prompt
                if p is None:
                    return {"ok": False, "text": "nothing to choose right now"}
                opts = p.get("options") or []
                i = msg["index"]
                if i >= len(opts):
                    return {"ok": False, "text": f"choose 1..{len(opts)}"}
                if msg.get("player") is not None and msg["player"] != p.get("player"):
                    return {"ok": False, "text": "that prompt has been answered already"}
                c.act(index=i, player=p.get("player"))
                text = "chose " + labels.option_label(self.core.game, opts[i], self.core.colours)
            elif t == "new":
                g = msg.get("game")
                if self.switch_board is not None and g is not None and g != self.core.game:
                    return self._switch(g, msg.get("players"))
                r = c.new(players=msg.get("players"), start=msg.get("start"), game=g)
                text = f"new game of {r.get('game')}: {r.get('players')} players"
            elif t == "inject":
                r = inject(c, msg)
                text = "injected " + (f"a ball on staircase {msg['stair']}" if msg.get("stair")
                                      else f"a hit on {msg['target']}")
            else:  # pragma: no cover - check() lets no other type through
                return {"ok": False, "text": f"unknown {t}"}
        except RequestError as exc:
            return {"ok": False, "text": clean(f"board says: {exc.error}")}
        except ClientError as exc:
            return {"ok": False, "text": clean(f"no answer: {exc}")}
        finally:
            self._dirty.set()
        return {"ok": True, "text": clean(text)}


_LAYOUTS: dict[str, Any] = {}
#: Per game, the parts of its data file the drawing needs (positions, names, counts).
LAYOUT_KEYS = {
    "roller-ghoster": ("staircases", "notches_per_rev", "last_step_exposed"),
    "haunted-house": ("levels", "monsters", "monster_spots", "clue_spots", "holes", "realms",
                      "summoning_circle", "rounds", "monster_scores", "dice_per_player"),
}


def layout(game: str | None) -> Any:
    """What the page draws the board from: the game's own data file (firmware/data)."""
    if game not in LAYOUT_KEYS:
        return None
    if game not in _LAYOUTS:
        from hauntbox_fw.build import FIRMWARE_DIR

        try:
            data = json.loads((Path(FIRMWARE_DIR) / "data" /
                               f"{game}.json").read_text())
            _LAYOUTS[game] = {k: data.get(k) for k in LAYOUT_KEYS[game]}
        except (OSError, ValueError):
            _LAYOUTS[game] = None
    return _LAYOUTS[game]


def inject(client: Any, msg: dict) -> dict:
    """A simulated sensor event, through the client's sensor injection (``sim`` request)."""
    if msg.get("stair") is not None:
        return client.inject("ball", stair=msg["stair"])
    return client.inject("hit", target=msg["target"])


# ---- HTTP ------------------------------------------------------------------------------------

def make_app(wb: WebBoard) -> Any:
    from aiohttp import WSMsgType, web

    @web.middleware
    async def headers(request: Any, handler: Any) -> Any:
        resp = await handler(request)
        resp.headers.update(SECURITY_HEADERS)
        return resp

    async def index(request: Any) -> Any:
        return web.FileResponse(STATIC / "index.html")

    async def ws_handler(request: Any) -> Any:
        # A page of another site must not drive the board (cross-site WebSocket):
        # the browser's Origin must be this server.
        origin = request.headers.get("Origin")
        if origin is not None and origin.split("://", 1)[-1] != request.host:
            return web.Response(status=403, text="another site's page may not connect\n")
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4096)
        await ws.prepare(request)
        page = Page(ws)
        wb.pages[page.id] = page
        if wb.controller is None:
            wb.controller = page.id   # the first page plays; the others watch
        wb._dirty.set()
        try:
            async for m in ws:
                if m.type != WSMsgType.TEXT:
                    if m.type == WSMsgType.BINARY:
                        await wb._send(page, {"t": "reply", "ok": False,
                                              "text": "binary messages are not accepted"})
                    continue
                reply = await wb.handle(page, m.data)
                await wb._send(page, dict(reply, t="reply"))
        finally:
            wb.pages.pop(page.id, None)
            if wb.controller == page.id:
                wb.controller = None
            wb._dirty.set()
        return ws

    app = web.Application(middlewares=[headers], client_max_size=4096)
    app.router.add_get("/", index)
    app.router.add_get("/ws", ws_handler)
    app.router.add_static("/static/", STATIC, show_index=False, follow_symlinks=False)

    async def start_pump(app: Any) -> None:
        wb.loop = asyncio.get_running_loop()
        wb._tasks.append(asyncio.create_task(wb.pump()))

    async def stop_pump(app: Any) -> None:
        for t in wb._tasks:
            t.cancel()
        for page in list(wb.pages.values()):
            await page.ws.close()

    app.on_startup.append(start_pump)
    app.on_shutdown.append(stop_pump)
    return app


# ---- the command -------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hauntbox web",
        description="Serve a page that shows a hauntbox board live and lets the players act.")
    p.add_argument("--port", default="auto",
                   help="serial port; 'auto' finds the Pico by USB id (default); 'sim' starts a "
                        "simulated board on a pseudo-terminal")
    p.add_argument("--game", type=game_arg, default=None,
                   help="with --port sim: the game of the simulated board (default roller-ghoster)")
    p.add_argument("--players", type=int, default=2,
                   help="with --port sim: players of the first game (default 2)")
    p.add_argument("--fast", action="store_true",
                   help="with --port sim: short die display, settle and rolling times (demos, tests)")
    p.add_argument("--sim", default="", metavar="ARGS",
                   help="more options for the simulated board, e.g. --sim='--seed 3 --bots 1'")
    p.add_argument("--http-port", type=int, default=8080, metavar="N",
                   help="the page's TCP port (default 8080; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for a reply")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import aiohttp  # noqa: F401
    except ModuleNotFoundError:
        print("hauntbox web: needs aiohttp (pip install aiohttp)", file=sys.stderr)
        return 2
    if not 0 <= args.http_port <= 65535:
        print("hauntbox web: --http-port must be 0..65535", file=sys.stderr)
        return 2
    if args.port != "sim" and (args.game or args.sim or args.fast):
        print("hauntbox web: --game, --fast and --sim are for --port sim (a real board runs the "
              "game it was flashed with; start another from the page)", file=sys.stderr)
        return 2
    from hauntbox import ports
    from hauntbox.client import ClientError

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt   # stop as on Ctrl-C: the simulated board is stopped too

    if threading.current_thread() is threading.main_thread():
        import signal
        signal.signal(signal.SIGTERM, on_term)
    board = None
    tmp = None
    if args.port == "sim":
        from hauntbox.simboard import SimBoardProcess

        tmp = tempfile.TemporaryDirectory(prefix="hauntbox-web-")
        link = os.path.join(tmp.name, "board")
        folder = tmp.name

        def sim_args(game: str, players: int, extra: list[str]) -> list[str]:
            # One link name for every board (the client reconnects to it); one saved
            # game folder per game.
            return ["--game", game, "--players", str(players), "--link", link,
                    "--state-dir", os.path.join(folder, "state", game), "--quiet",
                    *(["--fast"] if args.fast else []), *extra]

        board = SimBoardProcess(sim_args(args.game or "roller-ghoster", args.players,
                                         shlex.split(args.sim)))
        try:
            board.start()
        except RuntimeError as exc:
            print(f"hauntbox web: {exc}", file=sys.stderr)
            tmp.cleanup()
            return 1
        port_spec: Any = link
    else:
        spec = args.port
        try:
            ports.resolve_port(spec)
        except ports.PortError as exc:
            print(f"hauntbox web: {exc}", file=sys.stderr)
            return 1

        def port_spec() -> str:
            return ports.resolve_port(spec)

    def board_pids() -> tuple[int, ...]:
        p = board.proc if board is not None else None
        return (p.pid,) if p is not None else ()

    wb = WebBoard(port_spec, sim=args.port == "sim" or _is_sim_port(args.port),
                  timeout=args.timeout, ignore_pids=board_pids, board=board)
    if board is not None:
        # Another game from the page: that game's simulated board (without the --sim
        # extras, which may be for the first game's build only).
        wb.switch_board = lambda game, players: sim_args(game, players, [])
    try:
        wb.connect()
    except ClientError as exc:
        print(clean(f"hauntbox web: {exc}"), file=sys.stderr)
        if board is not None:
            board.stop()
        return 1
    try:
        return serve(wb, args.host, args.http_port, open_browser=not args.no_browser)
    finally:
        wb.close()
        if board is not None:
            board.stop()
        if tmp is not None:
            tmp.cleanup()


def _is_sim_port(port: str) -> bool:
    # A pseudo-terminal is a simulated or emulated board: it may take injected sensor events.
    return os.path.realpath(port).startswith("/dev/pts/")


def serve(wb: WebBoard, host: str, port: int, open_browser: bool = True) -> int:
    from aiohttp import web

    app = make_app(wb)

    async def run() -> None:
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            print(f"hauntbox web: cannot listen on {host}:{port}: {exc.strerror or exc}",
                  file=sys.stderr)
            await runner.cleanup()
            raise SystemExit(1) from None
        bound = site._server.sockets[0].getsockname()[1] if site._server else port  # type: ignore[union-attr]
        shown = "localhost" if host in ("127.0.0.1", "::1", "localhost") else host
        url = f"http://{shown}:{bound}/"
        print(f"hauntbox web: serving {url} (board on {clean(wb.client.port)}; Ctrl-C stops)",
              flush=True)
        if open_browser:
            import webbrowser
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        try:
            while True:
                await asyncio.sleep(3600)
        finally:
            await runner.cleanup()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
