# Boxtop Pinball: Haunted House controller: the parts a turn never runs.
# Building the controller (once per boot), starting or resuming a game (once
# per game). games/haunted.py loads this module for one call and drops it
# again (ram.unload), so its bytecode costs no RAM during play (measured on the
# rp2 port: docs/performance.md, "The heap census"). Nothing here awaits: the
# module is never live while the board waits for anything.

from devices.table import TurnWindow
from rules.haunted_house import HauntedHouse
from rules.haunted_house_cfg import HHConfig


def create(app):
    from devices.haunted_build import build_haunted
    from games.decide import Decider
    from games.haunted import HauntedController
    from ram import unload
    # The ids of monsters, spots, realms and clues are kept all game: interned.
    data = app.read_json("data/haunted-house.json", intern=True)
    try:
        build = build_haunted(app.open_board("haunted-house"), data, app.bus, app.settings)
    finally:
        unload("devices.haunted_build")     # wiring is done once: not kept in RAM
    decider = Decider(build.panel, app.bus)
    c = HauntedController(data, build.table, build.scoreboard, decider, app.bus, app.store,
                          app.rng, app.settings.get("quiet_ms", 1500), build.place_ms,
                          build.window_max_ms)
    c.build = build
    return c


def init(c, data, quiet_ms, window_max_ms):
    # HauntedController.__init__, after it kept its arguments.
    c.build = None
    c.cfg = HHConfig(data)   # `data` (the JSON) is not kept: ~8 KB of RAM
    c.colours = list(data["colours"])
    c.window = TurnWindow(c.table, quiet_ms, window_max_ms)
    c.spot_monster = {}
    for m in c.cfg.monsters:
        for lv in c.cfg.levels:
            c.spot_monster[c.cfg.mspot[m][lv]] = m
    c.realm_opts = [("realm", "none", 1)]
    for r in c.cfg.realm_ids:
        c.realm_opts.append(("realm", r, c.cfg.realms[r]))
    c.face_opts = [("face", f) for f in range(1, c.cfg.faces + 1)] + [("lost",)]
    c.game = None
    c.pending = {}       # monster -> spot it must be put on
    c.refill = []        # clue spots waiting for a new clue
    c.preview = None     # (player, highlighted option) for the displays
    c.entering = -1      # player whose dice are being entered
    c.fault = False
    c.hit_now = []       # monsters hit in this window
    c.taken_now = []     # clue spots taken in this window
    c.circles = 0        # circle entries seen in this window
    c.holes = []         # hole beams seen in this window
    c.hole_lost = []     # per player: dice reported through holes this round
    c.turns = 0
    c.answer = None      # the last prompt's answer
    c._blind = False     # an expander was down during the last window
    c._downs = 0         # the table's outage count when the window opened
    c._saved = {"game": None, "rng": None, "hole_lost": None}
    c.windows = {"quiet": 0, "confirm": 0, "timeout": 0}
    c.sensing = False    # a turn's sensor window is open (sensors_live)
    c.decider.on_highlight = c._highlight
    c.bus.subscribe(c._watch)


def new_game(c, players, start, options):
    c.game = HauntedHouse(c.cfg, players, rng=c.rng, start=start)
    c.hole_lost = [0] * c.game.n
    c.bus.publish(("game", "haunted-house", c.game.n, start))
    for e in c.game.setup_effects():
        c.bus.publish(e)
    _expect_all(c)
    c.save()
    c.render()


def resume(c, saved):
    game = HauntedHouse.from_dict(c.cfg, saved.get("game"))
    from rules.rng import Rng
    c.rng = Rng.saved_or(saved, c.rng)
    holes = saved.get("hole_lost")
    if not isinstance(holes, list) or len(holes) != game.n:
        holes = [0] * game.n
    c.game = game
    c.hole_lost = list(holes)
    c.bus.publish(("resumed", "haunted-house", game.n, game.active))
    _expect_all(c)
    c.render()


def _expect_all(c):
    # Before play (new or resumed game): every monster and every clue must
    # stand where the rules have them.
    g = c.game
    c.pending = {}
    for m in c.cfg.monsters:
        c.pending[m] = g.monster_spot(m)
    c.refill = [s for s in c.cfg.clue_spots if g.spots[s] is not None]
