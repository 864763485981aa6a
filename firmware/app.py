# The application: loads a game (controller + its hardware build), restores the
# saved game, and runs the play loop and the device tasks under asyncio.
# main.py calls run() on the Pico; the simulator constructs App with its own
# paths and awaits main_async() on its virtual-time loop: the same code.

import asyncio
import json
import sys
from time import ticks_ms

from games.events import EventBus
from games.settings import Settings
from games.store import Store
from rules.rng import Rng
from ram import collect, interned, unload

VERSION = "0.1.0"
# Keys of the data files whose values are text for people (docs, host tools).
TEXT_KEYS = ("name", "comment", "note")
# LED brightness once the game has stopped (Ctrl-C, a crash): a glow that
# shows the board is alive, far below any supply's limit.
SAFE_BRIGHTNESS = 0.02
# Bytes allocated between two collections during play (gc.threshold): small
# enough that the heap's top stays close to the live heap, so what play keeps
# (tasks, the host link, a new game's state) lands in the holes the loaders
# left rather than scattered up the heap; a turn allocates ~9 KB, so this
# collects every few turns (docs/performance.md, "largest free block").
GC_THRESHOLD = 24 * 1024


class App:
    # The firmware version, for the host's `hello` (protocol_commands reads it
    # from the app it answers for, so it never imports this module).
    VERSION = VERSION

    def __init__(self, root="", state_root="/", settings=None, seed=None, game=None):
        self.root = root
        self.bus = EventBus()
        self.store = Store(state_root)
        # Crash accounting and the fault log (startup.boot_check, faultlog.py):
        # the boot number, resets in a row without a completed turn, why the
        # game is off (or None), and this run's faults not yet on flash.
        self.boot = 0
        self.crashes = 0
        self.safe_mode = None
        self.fault_new = []
        self.fault_total = 0
        self.fault_last = None
        self._progress_seen = False
        self.controller = None
        self.bus.subscribe(self._on_event)
        self.store.on_saved = self._on_saved
        self.settings = Settings(self.store, settings)
        from startup import boot_check, default_seed
        try:
            if seed is None:
                seed = default_seed()
            boot_check(self)        # faults of the boot (config, crashes) are logged
        finally:
            unload("startup")
        self.rng = Rng(seed)
        self.tasks = []
        self._play = None
        self._request = None
        # The service mode (games/service_mode.py): asked for (MENU held at
        # power-up, the host's `service enter`), and the running one.
        self.service_requested = False
        self.service = None
        collect()       # the settings' checks and the boot check are garbage now
        self.load_game(game or self.settings.get("game"))

    def _on_event(self, ev):
        # Every fault goes into the fault log's RAM part, the last 8 of this
        # run (faultlog.py writes them to flash at the moments it lists, and
        # merges repeats there). Never raises: the bus would drop this sink.
        if ev[0] == "fault":
            d = ev[2] if len(ev) > 2 else None
            new = self.fault_new
            e = new[-1] if new else None
            if e is not None and e[0] == ev[1] and e[1] == d:
                e[3] = ticks_ms()       # the same again: counted in one entry
                e[4] += 1
            else:
                e = [ev[1], d, self.boot, ticks_ms(), 1]
                new.append(e)
                if len(new) > 8:        # faultlog.KEPT
                    new.pop(0)
            self.fault_total += 1
            self.fault_last = e
            if e[0] == "unhealthy":
                self.write_health()     # the watchdog resets the board next

    def _on_saved(self, name):
        # A save is complete. The first one of a completed turn after a boot
        # proves the game sound: the crash count is cleared. After that (and
        # before it, if faults came) the fault log is written with such a
        # save, so at most once per completed turn and only for new faults.
        c = self.controller
        if c is None or name != c.save_name or not getattr(c, "turns", 0):
            return
        if not self._progress_seen:
            self._progress_seen = True
            if self.crashes:
                self.crashes = 0
                self.write_health()
                return
        if self.fault_new:
            self.write_health()

    def write_health(self, armed=True):
        # The fault log and crash record to flash (faultlog.py); never raises.
        import faultlog
        try:
            faultlog.write(self, armed)
        finally:
            unload("faultlog")

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
        collect()       # the game's data files are parsed: their garbage goes first
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

    def boot_buttons(self):
        # The buttons held while the board starts (startup.boot_buttons):
        # "service" (MENU: the service mode before the game), "safe" (MENU and
        # ROLL: skip the game, keep the REPL free) or None.
        from startup import boot_buttons
        try:
            held = boot_buttons(self.controller)
        finally:
            unload("startup")
        if held == "safe":
            self.write_health(False)    # not a game that could crash: disarmed
        return held

    def safe_boot_requested(self):
        return self.boot_buttons() == "safe"

    def request_service(self):
        # From the host: leave the game (it stays as it is, saved) for the
        # service mode. An error string, or None.
        if self.service is not None:
            return "the service mode is already on"
        if self.safe_mode is not None:
            return "the board is in safe mode: start a new game first"
        self.service_requested = True
        if self._play is not None:
            self._play.cancel()
        elif getattr(self.controller, "decider", None) is not None:
            self.controller.decider.abort()     # e.g. the "play again" question
        return None

    async def run_service(self):
        # The service mode, with the game's device tasks stopped (the mode
        # reads the inputs itself) and started again after; loaded only now
        # and dropped after (ram.py). The servo is off on every way out.
        self.service_requested = False
        await self.stop_tasks()
        from games.service_mode import ServiceMode
        try:
            self.service = ServiceMode(self)
            await self.service.run()
        finally:
            self.service = None
            unload("games.service_mode")
            unload("games.service")     # its helpers: loaded again when the host asks
            self.servo_off()
            if self.fault_new:
                self.write_health()     # the failed steps into the fault log on flash

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

    def servo_off(self):
        # Servo off (its PWM stops within one period); never raises.
        b = getattr(self.controller, "build", None)
        tower = getattr(b, "tower", None)
        if tower is not None:
            tower.off()

    def make_safe(self):
        # Servo off and LEDs dimmed; never raises, since it runs on the way
        # out of errors.
        b = getattr(self.controller, "build", None)
        if b is None:
            return
        self.servo_off()
        for name in ("strip", "spot_strip"):
            strip = getattr(b, name, None)
            if strip is not None:
                try:
                    if strip.brightness > SAFE_BRIGHTNESS:
                        strip.brightness = SAFE_BRIGHTNESS
                        strip.show()
                except Exception:  # noqa: BLE001
                    pass

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

    async def _begin(self, players, start, resume, safe):
        # Up to play: the service mode if asked for at power-up (before the
        # game's tasks start), then safe mode, or the saved game or a new one.
        # Safe mode (startup.safe_mode): neither the game's device tasks nor
        # the watchdog run until a person or the host starts a new game, so
        # what made the board reset cannot make it reset again by itself.
        if self.service_requested:
            await self.run_service()
        if not safe:
            await self._start_tasks()
        if safe:
            from startup import safe_mode
            unload("startup")       # the running coroutine keeps what it needs
            await safe_mode(self, players, start)
        elif self.start_game(players, start, resume):
            await self.offer_resume(players, start)

    async def _service_in_game(self):
        # The host asked for the service mode during a game (or its "play
        # again" question): the game waits, unchanged, and goes on after.
        await self.run_service()
        await self._start_tasks()
        if getattr(self.controller, "game", None) is not None:
            self.controller.render()

    async def main_async(self, players=None, start=0, resume=None, exit_when_over=True,
                         extra_tasks=None):
        if players is None:
            players = self.settings.get("players")
        if resume is None:
            resume = self.settings.get("resume")
        safe = self.safe_mode is not None
        side = [asyncio.create_task(t) for t in (extra_tasks or [])]
        if self.settings.get("watchdog") and not safe:
            side.append(asyncio.create_task(self.watchdog_task()))
        winner = None
        try:
            await self._begin(players, start, resume, safe)
            while True:
                if self.service_requested:
                    await self._service_in_game()
                # A host's `new` that came before play began (during the resume
                # prompt, which it answers) is carried out now, not after the
                # saved game.
                if self._request is not None:
                    await self._apply_request()
                self._play = asyncio.create_task(self.controller.play())
                ended = False
                try:
                    winner = await self._play
                    ended = True
                except asyncio.CancelledError:
                    if self._request is None and not self.service_requested:
                        raise
                    winner = None
                self._play = None
                if ended:
                    # Every finished game is announced, even when a request for
                    # the next one is already waiting.
                    self.bus.publish(("over", winner))
                    self.store.remove(self.controller.save_name)
                if self._request is not None or self.service_requested:
                    continue
                if exit_when_over:
                    break
                # The players press ROLL for another game with the same seats,
                # or the host asks for a new one (which aborts this question).
                while True:
                    again = await self.controller.decider.ask("play_again", -1, [("new",)])
                    if not self.service_requested:
                        break
                    await self._service_in_game()
                if self._request is None and again == ("new",):
                    # (Every engine keeps its player count as `n`: play-again read
                    # `players`, which Beetlejuice and Haunted House lack, and
                    # the board crashed at every ROLL for another game.)
                    self._request = (self.game_name, self.controller.game.n, 0, None)
        except BaseException:
            # Leaving on an exception (a Ctrl-C lands in this task as often as
            # in another; a crash): the servo goes off before anything below
            # awaits, and the game task is cancelled. The `finally` awaits the
            # device tasks' ends and the loop runs on meanwhile: on the
            # emulated Pico the tower's servo still began a pulse 30 ms after
            # a Ctrl-C (docs/reliability.md, 2026-12-02).
            self.servo_off()
            if self._play is not None:
                self._play.cancel()
            raise
        finally:
            for t in side:
                t.cancel()
            await self.stop_tasks()
        return winner


def run():
    app = App()
    held = app.boot_buttons()
    if held == "safe":
        print("hauntbox: safe boot (MENU and ROLL held): game skipped, REPL free")
        return None
    if held == "service":
        print("hauntbox: service mode (MENU held): LEFT/RIGHT step, ROLL runs, MENU leaves")
        app.service_requested = True
    # The host link (games/link.py) runs beside the game; after a game ends the
    # board stays up and waits for the next one (a "new" request from the host).
    from games.link import serve_stdio
    return play(app, asyncio.run, [serve_stdio(app)])


def compact_heap():
    # App() loaded and dropped its loaders (the settings checks, the pin map,
    # the build), but their blocks are free only after a collection: collect
    # now, before the tasks and the host link are made, so they fill those
    # holes; then keep collecting every GC_THRESHOLD bytes. No-op on CPython.
    collect()
    if sys.implementation.name == "micropython":
        import gc
        gc.threshold(GC_THRESHOLD)


def play(app, runner, extra_tasks):
    # The game loop under `runner` (asyncio.run on the Pico; the simulator's
    # virtual-time loop in tests), with every way out of it covered.
    compact_heap()
    try:
        return runner(app.main_async(exit_when_over=False, extra_tasks=extra_tasks))
    except KeyboardInterrupt:
        app.make_safe()             # first: the flash write below takes a while
        app.write_health(False)     # stopped on purpose (mpremote): not a crash
        raise
    except Exception as e:  # noqa: BLE001 - last line of defence: reset, resume, never loop
        app.make_safe()
        from crash import handle_crash
        handle_crash(app, e)
        import machine
        machine.reset()
    finally:
        # On MicroPython a KeyboardInterrupt that escapes asyncio.run does not
        # cancel the other tasks, so no `finally` of theirs runs (a turning
        # tower's servo.off() included): the hardware is made safe here, on
        # every way out. Then keep feeding the watchdog from a timer so the
        # REPL (mpremote taking over) stays usable.
        app.make_safe()
        from games import watchdog
        watchdog.guard_if_running()
