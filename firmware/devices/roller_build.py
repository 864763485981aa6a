# Every hardware object of the motorized Roller Ghoster tower, wired from the
# pin map: beams (IRQ edge capture + decoders), the notch switch, the servo (or
# ratchet), the optional reservoir sensor, the LED chain and the button panel.

import asyncio

from drivers.beam import Beam
from drivers.debounce import DebouncedInput
from drivers.edges import EdgeRecorder
from drivers.pixels import PixelStrip
from drivers.servo import ContinuousServo, PositionalServo
from devices.beams import BeamBank
from devices.panel import panel_from_board
from devices.roller_display import RollerDisplay
from devices.tower import Tower
from rules.roller_layout import Layout


def max_brightness(px):
    # Cap so that every LED at full white stays within the current budget.
    full = px["count"] * px.get("max_ma_per_led", 60)
    cap = px.get("budget_ma", 500) / full
    return cap if cap < 1 else 1.0


class RollerBuild:
    def __init__(self, board, layout_cfg, bus, settings):
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
        emitters = None
        if board.has("emitters"):
            from machine import Pin
            emitters = Pin(board.gpio("emitters"), Pin.OUT, value=1)
        self.beams = BeamBank(beams, self.beam_flag, on_ball=None,
                              on_stuck=lambda k, s: bus.publish(("fault", "beam_stuck" if s else "beam_ok", k)),
                              emitters=emitters)
        ncfg = pm.get("notch", {})
        self.notch_flag = asyncio.ThreadSafeFlag()
        notch = DebouncedInput(EdgeRecorder(board.input("notch"), 16, self.notch_flag),
                               board.active_level("notch"), ncfg.get("debounce_ms", 5))
        scfg = dict(pm.get("servo", {}))
        scfg.update(settings.servo())
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
        if board.has("reservoir") and settings.get("reservoir"):
            reservoir = DebouncedInput(EdgeRecorder(board.input("reservoir"), 8, None),
                                       board.active_level("reservoir"), 50)
        self.tower = Tower(servo, notch, self.notch_flag, self.beams, scfg, ratchet, reservoir)
        self.tower.settle_ms = settings.get("settle_ms", layout_cfg.get("settle_ms", 1500))
        self.panel = panel_from_board(board, pm.get("buttons", {}).get("debounce_ms", 20))
        px = pm["pixels"]
        self.strip = PixelStrip(board.neopixel("pixels", px["count"]),
                                settings.get("brightness", 0.15), max_brightness(px))
        self.colours = layout_cfg["players"]["colours"]
        self.display = RollerDisplay(self.strip, self.layout, px, self.colours)
