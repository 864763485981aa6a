# Runs INSIDE the MicroPython VM (benchmark): heap and allocation figures of the
# Boxtop Pinball: Haunted House firmware, compiled to .mpy, playing through its
# board controller (games/haunted.py): the MCP23017 driver on a fake I2C bus
# with register-level chip models (/lib/mcp23017_model.py) whose INT lines
# drive the Pico pins the EdgeRecorders watch, the Table task's service and
# line decoding, the turn window, the rules, both NeoPixel chains, the events
# and a save after every turn.
#
# The controller's turn is a chain of awaits (prompts, the turn window,
# placing the pieces); between them it runs plain methods (_turn_start,
# _settled, _launched, _flown, _window_closed, _credit_owner, _place_*,
# _turn_end, _enter_*, _round_scored). This script calls those in the same
# order on a virtual clock (the firmware's ticks_us/ticks_ms are replaced by
# it), with people who launch, knock standees, take clues, land in the circle
# or fall through holes, move the pieces and referee the round end. What is
# not measured: the asyncio tasks of the prompts and the button debouncing
# (no button is pressed: the prompts are answered as a host would).
#
# sim/bench/vm_figures.py puts sim/vm/scripts/bench_common.py (the shared steps and figures) in
# front of this text; the steps:
#   load() / setup(seed) / measured_turn() x N / next_game(i) / sample(n) / finish(n)
import os

from mcp23017_model import Mcp23017Model

# The table, built before the baseline (harness, not firmware): one chip model
# per expander of the pin map, every sensor line as (chip, pin).
with open("/fw/boards/haunted-house.json") as _f:
    _pm = json.load(_f)
CHIPS = []
LINES = {}          # line name -> (chip, pin index)
for _dev in _pm["i2c"]["devices"]:
    _chip = Mcp23017Model(_dev["addr"], _pm["pins"][_dev["int_pin"]]["gpio"])
    machine.I2C.devices[_dev["addr"]] = _chip
    CHIPS.append(_chip)
    for _name in _dev["inputs"]:
        _p = _dev["inputs"][_name]
        LINES[_name] = (_chip, (0 if _p[0] == "A" else 8) + int(_p[1]))
ACTIVE = {}         # line name -> electrical level while active
for _name in LINES:
    ACTIVE[_name] = _pm["table"]["kinds"][_pm["table"]["lines"][_name]].get("active", 1)
_pm = _f = _dev = _chip = _name = _p = None
NOW = [0, 0]        # virtual clock: us, ms (both wrap like the rp2 ticks)
_WRAP = 0x3FFFFFFF

R = results({"irq_handlers": 0, "irq_failures": None, "led_writes": 0,
             "launches": 0, "events": 0, "saves": 0})
BASE = baseline()
S = {}


def ticks_us():
    return NOW[0]


def ticks_ms():
    return NOW[1]


def advance(ms):
    NOW[0] = (NOW[0] + ms * 1000) & _WRAP
    NOW[1] = (NOW[1] + ms) & _WRAP


def load():
    import tsf_shim  # noqa: F401  (asyncio.ThreadSafeFlag for the pyscript VM)
    import app
    import games.link  # noqa: F401  (app.run() starts its serve_stdio on the board)
    import devices.table
    import drivers.debounce
    import drivers.edges
    import drivers.mcp23017
    for m in (devices.table, drivers.debounce, drivers.edges, drivers.mcp23017):
        m.ticks_us = ticks_us
        if hasattr(m, "ticks_ms"):
            m.ticks_ms = ticks_ms
    S["app_mod"] = app
    try:
        os.mkdir("/state")
    except OSError:
        pass


def set_line(name, active):
    chip, i = LINES[name]
    chip.set_pin(i, ACTIVE[name] if active else 1 - ACTIVE[name])


def place_all(g):
    # Before the game: every monster on its spot, a clue on every clue spot
    # that has one, all beams clear.
    for name in LINES:
        set_line(name, 0)
    for m in g.cfg.monsters:
        for lv in g.cfg.levels:
            spot = g.cfg.mspot[m][lv]
            set_line(spot, spot != g.monster_spot(m))
    for s in g.cfg.clue_spots:
        set_line(s, g.spots[s] is None)


def setup(seed):
    R["after_import"] = live()
    from rules.rng import Rng
    # All pieces in place and beams clear before the chips are configured.
    for c in CHIPS:
        for i in range(16):
            c.set_pin(i, 1)
    for name in LINES:
        set_line(name, 0)
    a = S["app_mod"].App(root="/fw/", state_root="/state/", seed=seed, game="haunted-house")
    S["app"] = a
    c = a.controller
    S["c"] = c
    S["r"] = Rng(seed + 1)
    new_game(0)


def new_game(i):
    c = S["c"]
    c.new_game(4, i % 4)
    place_all(c.game)
    place(c, c.game.active if c.game.active >= 0 else 0)


def prompt(c, kind, p, options):
    # What Decider.ask does before it waits: the prompt is current, the first
    # option highlighted (LEDs) and published; the host's answer is options[k].
    d = c.decider
    d.current = (kind, p, options)
    d._show(kind, p, options, 0)
    d.current = None
    c.preview = None


def pulse(name, ms):
    # A line active for ms, the table serviced at each edge as its task is.
    t = S["c"].table
    set_line(name, 1)
    t.step()
    advance(ms)
    set_line(name, 0)
    t.step()


def window(c, on):
    # Run the open window until it closes on its own (quiet), feeding each
    # decided event to the controller (on: its _on_event, bound once per turn
    # as in TurnWindow.run).
    w = c.window
    people(c, on)
    while True:
        if w.poll(on) is not None:
            return
        advance(w.wait_us // 1000 + 1)


def people(c, on):
    # One launch's aftermath, drawn from the harness Rng: about the mix the
    # table model produces (2 monster hits and 1 clue per 3 launches, a die in
    # the circle now and then, a die through a hole one launch in seven).
    g = c.game
    r = S["r"]
    w = c.window
    n = r.below(3)
    for _ in range(n):
        advance(40 + r.below(200))
        k = r.below(9)
        if k < 6:
            m = g.cfg.monsters[r.below(len(g.cfg.monsters))]
            spot = g.monster_spot(m)
            if not c._waiting_for(spot):            # hit already: it is elsewhere
                pulse(spot, 6 + r.below(30))         # a knock: the standee rocks
        elif k < 8:
            for s in g.cfg.clue_spots:
                if g.spots[s] is not None and r.below(3) == 0:
                    set_line(s, 1)                  # the clue is knocked away
                    c.table.step()
                    break
        else:
            line = "summoning_circle"
            chip, i = LINES[line]
            if r.below(2) and not chip.line(i):
                set_line(line, 1)                   # a die lands in the circle
                c.table.step()
            else:
                hole = ("attic_hole", "entry_hole", "graveyard_hole")[r.below(3)]
                pulse(hole, 8 + r.below(18))
        w.poll(on)
    advance(300 + r.below(600))                     # the die comes to rest


def place(c, p):
    # The players put every piece where the spot LEDs ask: a monster on its new
    # spot (its old spot left empty), a clue on an empty clue spot.
    want = c._place_start()
    if want is None:
        return
    prompt(c, "place", p, _CONFIRM)
    g = c.game
    for s in want:
        set_line(s, 0)
    for m in g.cfg.monsters:
        for lv in g.cfg.levels:
            spot = g.cfg.mspot[m][lv]
            if spot != g.monster_spot(m):
                set_line(spot, 1)
    c.table.step()
    while want:
        advance(c._place_poll(want) + 1)
    c._place_end(want)


_LAUNCHED = [("launched",)]
_FLIGHT = [("confirm",), ("add",)]
_CONFIRM = [("confirm",)]


def turn():
    c = S["c"]
    r = S["r"]
    p = c._turn_start()
    try:
        advance(10)                                 # SETTLE_MS
        c._settled()
        prompt(c, "launch", p, _LAUNCHED)
        advance(200 + r.below(800))
        set_line("launch", 1)                       # the die crosses the beam
        c.table.step()
        advance(6 + r.below(10))
        set_line("launch", 0)
        first = None
        relevant = c._relevant                      # bound once, as wait_start does
        while first is None:
            first = c.window.poll_start(relevant)
            if first is None:
                advance(1)
        c._launched(p, first)
        R["launches"] += 1
        prompt(c, "flight", p, _FLIGHT)
        on = c._on_event
        c.window.open(on, first)
        window(c, on)
        c._flown()
    finally:
        c.scoreboard.hold_score = False
        c.render()
    c._window_closed(c.window.reason)
    R["events"] += c.window.count
    for _ in range(c.circles):
        owner(c, "circle", "circle_owner", p, "summoning_circle")
    for h in c.holes:
        owner(c, "hole", "hole_owner", p, h)
    place(c, p)
    c._turn_end()
    R["saves"] += 1


def owner(c, kind, ask, p, where):
    cands = c._owner_candidates(ask, p, where)
    if cands is None:
        return
    if len(cands) > 1:
        c.bus.publish((ask, where))
        prompt(c, ask, p, cands)
    c._credit_owner(kind, cands[0][1])


def round_end():
    c = S["c"]
    g = c.game
    r = S["r"]
    for p in range(g.n):
        if not c._enter_start(p):
            continue
        while g.dice_to_enter(p) > 0:
            prompt(c, "face", p, c.face_opts)
            face = c.face_opts[r.below(len(c.face_opts))]
            realm = None
            if face[0] != "lost":
                prompt(c, "realm", p, c.realm_opts)
                realm = c.realm_opts[r.below(len(c.realm_opts))]
            c._enter(p, face, realm)
    # The dice are collected: the circle is empty again.
    set_line("summoning_circle", 0)
    c.table.step()
    if c._round_scored():
        place(c, g.active)
    R["saves"] += 1


def play_turn():
    g = S["c"].game
    if g.phase == "round_end":
        round_end()
    else:
        turn()


def current():
    return S["c"].game


def extra_figures():
    R["led_writes"] = S["c"].build.score_strip.writes + S["c"].build.spot_strip.writes
