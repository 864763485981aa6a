# The application: loads a game (controller + its hardware build), restores the
# saved game, and runs the play loop and the device tasks under asyncio.
# main.py calls run() on the Pico; the simulator constructs App with its own
# paths and awaits main_async() on its virtual-time loop: the same code.

import asyncio
import json

from games.events import EventBus
from games.settings import Settings
from games.store import Store
from rules.rng import Rng
from ram import interned, unload

VERSION = "0.1.0"
# Keys of the data files whose values are text for people (docs, host tools).
TEXT_KEYS = ("name", "comment", "note")


class App:
    def __init__(self, root="", state_root="/", settings=None, seed=None, game=None):
        self.root = root
        self.bus = EventBus()
        self.store = Store(state_root)
        self.settings = Settings(self.store, settings)
        if self.settings.problem:
            self.bus.publish(("fault", "config", self.settings.problem))
        if seed is None:
            from startup import default_seed
            seed = default_seed()
            unload("startup")
        self.rng = Rng(seed)
        self.controller = None
        self.tasks = []
        self._play = None
        self._request = None
        self._progress_seen = False
        self.bus.subscribe(self._on_event)
        self.load_game(game or self.settings.get("game"))

    def _on_event(self, ev):
        # The first completed turn after a boot proves the saved game is sound:
        # forget earlier crashes (no flash write unless a crash file exists).
        if not self._progress_seen and ev[0] == "turn":
            self._progress_seen = True
            self.store.remove("crash")

    # ---- helpers for game modules ----------------------------------------

    def read_json(self, rel, intern=False):
        # A game's data file. intern=True: the game keeps most of its strings
        # (ids in its config, its state, its saves) for the whole game, so they
        # are interned (ram.py), names for people excepted.
        with open(self.root + rel) as f:
            d = json.load(f)
        return interned(d, TEXT_KEYS) if intern else d

    def open_board(self, build):
        # Not cached: builds read the pin map while they are constructed, so
        # after that it is garbage rather than a few KB held for the whole game.
        from board import Board, load_pinmap
        return Board(load_pinmap(build, self.root))

    def load_game(self, name):
        # The registry and the board factory are needed only while a game's
        # controller and hardware are built: dropped afterwards (ram.py).
        # A pin map the game's hardware cannot be built from: the game stays
        # off and the fault is reported (games/halted.py), never a crash loop.
        from games.registry import create
        from board import PinmapError
        try:
            self.controller = create(name, self)
        except PinmapError as e:
            from games.halted import create_halted
            self.controller = create_halted(self, name, str(e))
        finally:
            unload("games.registry")
            unload("board")
        self.game_name = name

    # ---- game lifecycle ----------------------------------------------------

    def safe_boot_requested(self):
        # MENU held while the board starts: skip the game, keep the REPL free.
        from startup import menu_held
        try:
            return menu_held(self.controller)
        finally:
            unload("startup")

    def start_game(self, players, start=0, resume=True, options=None):
        # Resume the saved game if there is a valid one; otherwise start fresh.
        # Returns True if a game was resumed. Never raises on a bad save file.
        from startup import start_game
        try:
            return start_game(self, players, start, resume, options)
        finally:
            unload("startup")

    async def offer_resume(self, players, start=0):
        # A saved game was found: the players choose to resume or start anew.
        from startup import offer_resume
        unload("startup")           # the running coroutine keeps what it needs
        return await offer_resume(self, players, start)

    def request_new_game(self, game, players, start=0, options=None):
        # From the host: stop the current game and start another (checked by
        # protocol_commands.new: a game this firmware has, players and start
        # in range).
        self._request = (game, players, start, options)
        if self._play is not None:
            self._play.cancel()
        elif getattr(self.controller, "decider", None) is not None:
            self.controller.decider.abort()     # e.g. the "play again" question

    def healthy(self):
        # Every device task still running, and the controller's own check.
        for t in self.tasks:
            if t.done():
                return False
        check = getattr(self.controller, "healthy", None)
        return check() if check is not None else True

    async def watchdog_task(self, period_ms=1000):
        # Feeds the hardware watchdog only while healthy; otherwise the board
        # resets after the timeout and the saved game resumes.
        from games.watchdog import start
        wd = start()
        unload("games.watchdog")    # the REPL guard (boot, exit) is not needed in play
        reported = False
        while True:
            if self.healthy():
                wd.feed()
                reported = False
            elif not reported:
                self.bus.publish(("fault", "unhealthy", "a task stopped: the watchdog will reset the board"))
                reported = True
            await asyncio.sleep_ms(period_ms)

    async def _start_tasks(self):
        for coro in self.controller.tasks():
            self.tasks.append(asyncio.create_task(coro))

    async def stop_tasks(self):
        for t in self.tasks:
            t.cancel()
        for t in self.tasks:
            try:
                await t
            except BaseException:  # noqa: BLE001 - CancelledError differs between ports
                pass
        self.tasks = []

    async def _apply_request(self):
        game, players, start, options = self._request
        self._request = None
        if game != self.game_name:
            await self.stop_tasks()
            self.load_game(game)
            await self._start_tasks()
        self.store.remove(self.controller.save_name)
        self.controller.new_game(players, start, options)

    async def main_async(self, players=None, start=0, resume=None, exit_when_over=True,
                         extra_tasks=None):
        if players is None:
            players = self.settings.get("players")
        if resume is None:
            resume = self.settings.get("resume")
        await self._start_tasks()
        side = [asyncio.create_task(t) for t in (extra_tasks or [])]
        if self.settings.get("watchdog"):
            side.append(asyncio.create_task(self.watchdog_task()))
        if self.start_game(players, start, resume):
            await self.offer_resume(players, start)
        winner = None
        try:
            while True:
                self._play = asyncio.create_task(self.controller.play())
                try:
                    winner = await self._play
                except asyncio.CancelledError:
                    if self._request is None:
                        raise
                    winner = None
                self._play = None
                if self._request is not None:
                    await self._apply_request()
                    continue
                self.bus.publish(("over", winner))
                self.store.remove(self.controller.save_name)
                if exit_when_over:
                    break
                # The players press ROLL for another game with the same seats,
                # or the host asks for a new one (which aborts this question).
                again = await self.controller.decider.ask("play_again", -1, [("new",)])
                if self._request is None and again == ("new",):
                    g = self.controller.game
                    self._request = (self.game_name, g.players if isinstance(g.players, int)
                                     else len(g.players), 0, None)
                if self._request is not None:
                    await self._apply_request()
        finally:
            for t in side:
                t.cancel()
            await self.stop_tasks()
        return winner


def run():
    app = App()
    if app.safe_boot_requested():
        print("hauntbox: safe boot (MENU held): game skipped, REPL free")
        return None
    # The host link (games/link.py) runs beside the game; after a game ends the
    # board stays up and waits for the next one (a "new" request from the host).
    from games.link import serve_stdio
    try:
        return asyncio.run(app.main_async(exit_when_over=False,
                                          extra_tasks=[serve_stdio(app)]))
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - last line of defence: reset, resume, never loop
        from crash import handle_crash
        handle_crash(app, e)
        import machine
        machine.reset()
    finally:
        # Ctrl-C (mpremote taking over) or the game ending: keep feeding the
        # watchdog from a timer so the REPL stays usable.
        from games import watchdog
        watchdog.guard_if_running()
