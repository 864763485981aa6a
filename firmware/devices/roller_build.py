# Every hardware object of the motorized Roller Ghoster tower, wired from the
# pin map: beams (IRQ edge capture + decoders), the notch switch, the servo (or
# ratchet), the optional reservoir sensor, the LED chain and the button panel.
# Runs once per game load; games/roller.py then drops this module (ram.py).

import asyncio

from drivers.beam import Beam
from drivers.debounce import DebouncedInput
from drivers.edges import EdgeRecorder
from drivers.pixels import PixelStrip, max_brightness
from drivers.servo import ContinuousServo
from devices import Parts
from devices.beams import BeamBank
from devices.panel import panel_from_board
from devices.roller_display import RollerDisplay
from devices.tower import Tower
from rules.roller_layout import Layout
from board import PinmapError


def _fits(px, key, n):
    # The LEDs of one segment of the chain, from the layout (the pin map check
    # cannot know how many steps the layout has): inside the chain, or a fault.
    first = px.get(key, 0)
    if first + n > px["count"]:
        raise PinmapError("pixels.%s: %d LEDs from %d do not fit in the chain of %d"
                          % (key, n, first, px["count"]))


def build_roller(board, layout_cfg, settings):
    # Returns Parts: layout, beam_flag, beams, notch_flag, tower, panel, strip,
    # colours, display. The controller sets beams.on_ball and beams.on_stuck.
    pm = board.map
    p = Parts()
    p.layout = Layout(layout_cfg)
    px = pm["pixels"]
    _fits(px, "steps_from", len(p.layout.order))
    _fits(px, "trenches_from", p.layout.n_stairs)
    bcfg = pm.get("beams", {})
    p.beam_flag = asyncio.ThreadSafeFlag()
    beams = []
    for k in range(1, p.layout.n_stairs + 1):
        name = "beam%d" % k
        rec = EdgeRecorder(board.input(name), 32, p.beam_flag)
        beams.append(Beam(rec, board.active_level(name), bcfg.get("min_pulse_us", 4000),
                          bcfg.get("gap_us", 2000), bcfg.get("stuck_ms", 2000),
                          bcfg.get("long_us", 250000), bcfg.get("odd_us", 0)))
    emitters = None
    if board.has("emitters"):
        from machine import Pin
        emitters = Pin(board.gpio("emitters"), Pin.OUT, value=1)
    p.beams = BeamBank(beams, p.beam_flag, emitters=emitters)
    p.beams.doubt_glitches = bcfg.get("doubt_glitches", 60)
    ncfg = pm.get("notch", {})
    p.notch_flag = asyncio.ThreadSafeFlag()
    notch = DebouncedInput(EdgeRecorder(board.input("notch"), 16, p.notch_flag),
                           board.active_level("notch"), ncfg.get("debounce_ms", 5))
    scfg = dict(pm.get("servo", {}))
    for k in settings.values:       # the calibration the host set ("servo.stop_ns", ...)
        if k.startswith("servo."):
            scfg[k[6:]] = settings.values[k]
    servo = ratchet = None
    if scfg.get("type") == "ratchet":
        from drivers.ratchet_servo import PositionalServo
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
    p.tower = Tower(servo, notch, p.notch_flag, p.beams, scfg, ratchet, reservoir)
    p.tower.settle_ms = settings.get("settle_ms", layout_cfg.get("settle_ms", 1500))
    p.panel = panel_from_board(board, pm.get("buttons", {}).get("debounce_ms", 20))
    p.strip = PixelStrip(board.neopixel("pixels", px["count"]),
                         settings.get("brightness", 0.15), max_brightness(px))
    p.colours = layout_cfg["players"]["colours"]
    p.display = RollerDisplay(p.strip, p.layout, px, p.colours)
    return p
