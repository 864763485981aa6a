# Every hardware object of the instrumented Haunted House table, wired from the
# pin map (boards/haunted-house.json): the I2C bus, the MCP23017 expanders with
# their INT lines on EdgeRecorders, one Line decoder per sensor, the Table task,
# the two NeoPixel chains (score panel, spots) and the button panel.
# Runs once per game load; games/haunted.py then drops this module (ram.py).

import asyncio

from drivers.edges import EdgeRecorder
from drivers.mcp23017 import Mcp23017, pin_index
from drivers.pixels import PixelStrip, max_brightness
from devices import Parts
from devices.panel import panel_from_board
from devices.scoreboard import Scoreboard
from devices.table import Expander, Line, Table


def open_i2c(board, bus):
    # machine.I2C for one bus of the pin map's "i2c" block.
    from machine import I2C, Pin
    for b in board.map["i2c"]["buses"]:
        if b["bus"] == bus:
            return I2C(bus, scl=Pin(board.gpio(b["scl"])), sda=Pin(board.gpio(b["sda"])),
                       freq=b.get("freq", 400000))
    from board import PinmapError
    raise PinmapError("i2c.buses: no entry for bus %r" % (bus,))


def build_expanders(board, flag):
    # One Expander per MCP23017 device: chip driver, INT recorder, Lines.
    pm = board.map
    tcfg = pm["table"]
    kinds = tcfg["kinds"]
    kind_of = tcfg["lines"]
    buses = {}
    out = []
    for dev in pm["i2c"]["devices"]:
        if dev.get("kind") != "mcp23017":
            continue
        bus = dev.get("bus", 0)
        i2c = buses.get(bus)
        if i2c is None:
            i2c = open_i2c(board, bus)
            buses[bus] = i2c
        lines = [None] * 16  # type: list
        mask = 0
        invert = 0
        for name in dev["inputs"]:
            i = pin_index(dev["inputs"][name])
            kind = kind_of[name]
            k = kinds[kind]
            lines[i] = Line(name, kind, k.get("min_us", 3000), k.get("gap_us", 4000))
            mask |= 1 << i
            if k.get("active", 1) == 0:
                invert |= 1 << i       # IPOL: the chip reports 1 while active
        chip = Mcp23017(i2c, dev["addr"], inputs=0xFFFF, pullups=0xFFFF, invert=invert,
                        interrupts=mask)
        from machine import Pin
        pin_name = dev["int_pin"]
        rec = EdgeRecorder(board.input(pin_name), 16, flag, trigger=Pin.IRQ_FALLING)
        out.append(Expander(dev["name"], chip, rec, lines, board.active_level(pin_name)))
    return out


_TEXT = ("part", "comment", "note")


def _drop_text(x):
    # The descriptions for people in the nested parts of the pin map (board.py
    # drops them at the top level and in "pins"): ~1 KB of RAM otherwise.
    if isinstance(x, dict):
        for k in _TEXT:
            if k in x:
                del x[k]
        for k in x:
            _drop_text(x[k])
    elif isinstance(x, list):
        for v in x:
            _drop_text(v)


def build_haunted(board, data, bus, settings):
    # Returns Parts: flag, expanders, table (started), place_ms, window_max_ms,
    # has_launch_beam, panel, score_strip, spot_strip, strip, colours, scoreboard.
    pm = board.map
    _drop_text(pm)
    tcfg = pm["table"]
    p = Parts()
    p.flag = asyncio.ThreadSafeFlag()
    p.expanders = build_expanders(board, p.flag)
    p.table = Table(p.expanders, p.flag, bus, tcfg.get("retry_ms", 1000),
                    tcfg.get("check_ms", 2000))
    p.table.start()
    p.table.doubt_glitches = tcfg.get("doubt_glitches", 20)
    p.place_ms = tcfg.get("place_ms", 300)
    p.window_max_ms = tcfg.get("window_max_ms", 30000)
    p.has_launch_beam = "launch" in p.table.lines
    p.panel = panel_from_board(board, pm.get("buttons", {}).get("debounce_ms", 20))
    px = pm["pixels"]
    sc = px["score"]
    sp = px["spots"]
    # Both chains share one supply: the cap counts every LED of both
    # (pinmap_check makes pixels.count cover them).
    cap = max_brightness(px)
    level = settings.get("brightness", 0.15)
    p.score_strip = PixelStrip(board.neopixel(sc["pin"], sc["count"]), level, cap)
    p.spot_strip = PixelStrip(board.neopixel(sp["pin"], sp["count"]), level, cap)
    p.strip = p.score_strip         # what the service LED test drives
    p.colours = list(data["colours"])
    monsters = [m["id"] for m in data["monsters"]]
    clues = [c["id"] for c in data["clue_spots"]]
    p.scoreboard = Scoreboard(p.score_strip, p.spot_strip, px, p.colours, monsters, clues)
    return p
