# Assembles a build from its pin map and runs its game loop under asyncio.
# main.py calls run() on the Pico; the simulator calls main_async() on its
# virtual-time loop with the same arguments, so both run this same code.

import asyncio
import json

from board import Board, load_pinmap
from drivers.beam import Beam
from drivers.debounce import DebouncedInput
from drivers.edges import EdgeRecorder
from drivers.pixels import PixelStrip
from drivers.servo import ContinuousServo, PositionalServo
from devices.beams import BeamBank
from devices.panel import Panel
from devices.tower import Tower
from games.decide import Decider
from games.events import EventBus
from games.store import Store
from rules.rng import Rng

VERSION = "0.1.0"
BUTTONS = (("roll", "btn_roll"), ("left", "btn_left"), ("right", "btn_right"), ("menu", "btn_menu"))


def read_json(path):
    with open(path) as f:
        return json.load(f)


def make_panel(board, debounce_ms):
    flag = asyncio.ThreadSafeFlag()
    buttons = {}
    for name, pin_name in BUTTONS:
        if board.has(pin_name):
            rec = EdgeRecorder(board.input(pin_name), 8, flag)
            buttons[name] = DebouncedInput(rec, board.active_level(pin_name), debounce_ms)
    return Panel(buttons, flag)


class RollerBuild:
    # Every hardware object of the motorized tower build, wired from the pin map.
    def __init__(self, board, layout_cfg, bus, settings):
        from rules.roller_layout import Layout
        from devices.roller_display import RollerDisplay
        pm = board.map
        self.layout = Layout(layout_cfg)
        bcfg = pm.get("beams", {})
        self.beam_flag = asyncio.ThreadSafeFlag()
        beams = []
        for k in range(1, self.layout.n_stairs + 1):
            name = "beam%d" % k
            rec = EdgeRecorder(board.input(name), 32, self.beam_flag)
            beams.append(Beam(rec, board.active_level(name), bcfg.get("min_pulse_us", 3000),
                              bcfg.get("gap_us", 4000), bcfg.get("stuck_ms", 2000)))
        self.beams = BeamBank(beams, self.beam_flag,
                              on_ball=lambda k, n: bus.publish(("ball", k, n)),
                              on_stuck=lambda k, s: bus.publish(("fault", "beam_stuck" if s else "beam_ok", k)))
        ncfg = pm.get("notch", {})
        self.notch_flag = asyncio.ThreadSafeFlag()
        notch = DebouncedInput(EdgeRecorder(board.input("notch"), 16, self.notch_flag),
                               board.active_level("notch"), ncfg.get("debounce_ms", 5))
        scfg = dict(pm.get("servo", {}))
        scfg.update(settings.get("servo", {}))
        servo = ratchet = None
        if scfg.get("type") == "ratchet":
            rc = scfg.get("ratchet", {})
            ratchet = PositionalServo(board.pwm("servo"), scfg.get("min_ns", 1000000),
                                      scfg.get("max_ns", 2000000), rc.get("rest_deg", 0),
                                      rc.get("push_deg", 60))
        else:
            servo = ContinuousServo(board.pwm("servo"), scfg.get("stop_ns", 1500000),
                                    scfg.get("forward_ns", 1300000), scfg.get("min_ns", 1000000),
                                    scfg.get("max_ns", 2000000))
        reservoir = None
        if board.has("reservoir") and settings.get("reservoir", False):
            reservoir = DebouncedInput(EdgeRecorder(board.input("reservoir"), 8, None),
                                       board.active_level("reservoir"), 50)
        self.tower = Tower(servo, notch, self.notch_flag, self.beams, scfg, ratchet, reservoir)
        self.tower.settle_ms = settings.get("settle_ms", layout_cfg.get("settle_ms", 1500))
        self.panel = make_panel(board, pm.get("buttons", {}).get("debounce_ms", 20))
        px = pm["pixels"]
        self.strip = PixelStrip(board.neopixel("pixels", px["count"]),
                                settings.get("brightness", 0.15), max_brightness(px))
        colours = layout_cfg["players"]["colours"]
        self.display = RollerDisplay(self.strip, self.layout, px, colours)
        self.colours = colours


def max_brightness(px):
    # Cap so that every LED at full white stays within the current budget.
    full = px["count"] * px.get("max_ma_per_led", 60)
    cap = px.get("budget_ma", 500) / full
    return cap if cap < 1 else 1.0


def default_seed():
    try:
        import os
        b = os.urandom(4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | ((b[3] & 0x7F) << 24)
    except (ImportError, AttributeError, OSError):
        from time import ticks_us
        return ticks_us()


class App:
    def __init__(self, root="", state_root="/", settings=None, seed=None):
        self.root = root
        self.settings = settings or {}
        self.bus = EventBus()
        self.store = Store(state_root)
        self.board = Board(load_pinmap("roller_ghoster", root))
        layout_cfg = read_json(root + "data/roller_ghoster.json")
        self.build = RollerBuild(self.board, layout_cfg, self.bus, self.settings)
        self.decider = Decider(self.build.panel, self.bus)
        from games.roller import RollerController
        self.controller = RollerController(layout_cfg, self.build.tower, self.build.display,
                                           self.decider, self.bus, self.store,
                                           Rng(seed if seed is not None else default_seed()),
                                           self.build.colours)
        self.tasks = []

    def safe_boot_requested(self):
        return self.build.panel.held("menu")

    def start_game(self, players, start=0, resume=True):
        saved = None
        if resume:
            try:
                saved = self.store.load("roller_ghoster")
            except ValueError as e:
                self.bus.publish(("fault", "state_bad", str(e)))
                self.store.set_aside("roller_ghoster")
        if saved is not None:
            try:
                self.controller.resume(saved)
                if not self.controller.game.is_over():
                    return True
            except Exception as e:  # noqa: BLE001 - any invalid save: set aside, start fresh
                self.bus.publish(("fault", "state_bad", str(e)))
                self.store.set_aside("roller_ghoster")
        self.controller.new_game(players, start)
        return False

    async def main_async(self, players=4, start=0, resume=True):
        self.tasks.append(asyncio.create_task(self.build.beams.run()))
        self.start_game(players, start, resume)
        try:
            winner = await self.controller.play()
        finally:
            await self.stop_tasks()
        self.bus.publish(("over", winner))
        self.store.remove("roller_ghoster")
        return winner


    async def stop_tasks(self):
        for t in self.tasks:
            t.cancel()
        for t in self.tasks:
            try:
                await t
            except BaseException:  # noqa: BLE001 - CancelledError differs between ports
                pass
        self.tasks = []


def run(players=4):
    app = App()
    if app.safe_boot_requested():
        print("hauntbox: safe boot (MENU held): game skipped, REPL free")
        return None
    return asyncio.run(app.main_async(players))
