# Watch Out Beetlejuice companion: what the controller (games/beetlejuice.py)
# does once per boot or once per game: wiring the board and indexing the
# cards (create), starting a game (new_game), resuming a saved one (resume).
# games.beetlejuice._setup imports this module for one call and, on the board,
# drops it again (ram.unload), so its code is not resident during play.
# `self` is the BeetlejuiceController.

from rules.beetlejuice import BeetlejuiceGame, auto_chance
from rules.beetlejuice_cards import Config
from rules.errors import RuleError
from ram import unload
from games.beetlejuice import (CARD_MODES, COLOURS, BeetlejuiceController,
                               BeetlejuiceDisplay)


def create(app):
    # games.beetlejuice.create: the board wired, the cards indexed, the controller.
    from devices.companion_build import build_companion
    from games.decide import Decider
    try:
        build = build_companion(app.open_board("companion"), app.settings)
    finally:
        unload("devices.companion_build")   # wiring is done once: not kept in RAM
    raw = app.read_json("data/beetlejuice.json")
    raw.pop("symbol_names", None)       # long names are for people (docs, host); not kept in RAM
    cfg = Config(raw)
    raw = None
    display = BeetlejuiceDisplay(build.matrix, COLOURS, cfg.symbols)
    c = BeetlejuiceController(cfg, display, Decider(build.panel, app.bus), app.bus, app.store,
                              app.rng)
    c.build = build
    cards = app.settings.get("beetlejuice.cards")
    if cards in CARD_MODES:
        c.defaults["cards"] = cards
    return c


def new_game(self, players, start, options):
    opts = dict(self.defaults)
    if options:
        for k in options:
            opts[k] = options[k]
    cards = opts.get("cards")
    if cards not in CARD_MODES:
        # A bad option from the host must not stop the board: default, reported.
        self.bus.publish(("fault", "options", "cards must be firmware or enter"))
        cards = "firmware"
    self.cards = cards
    g = BeetlejuiceGame(self.cfg, players, None,
                        {"expert": bool(opts.get("expert")),
                         "compare_bj": bool(opts.get("compare_bj"))})
    if 0 <= start < g.n:
        g.cur = start
    self.game = g
    self._reset_ui()
    self.bus.publish(("game", "beetlejuice", g.n, g.cur))
    if cards == "firmware":
        while g.phase == "deal":
            self._apply(auto_chance(g, self.rng), False, False)
    self.save()
    self.render()


def resume(self, saved):
    g = BeetlejuiceGame.from_dict(self.cfg, saved.get("game"))
    cards = saved.get("cards", "firmware")
    if cards not in CARD_MODES:
        raise RuleError("bad card mode")
    from rules.rng import Rng
    self.rng = Rng.saved_or(saved, self.rng)
    self.game = g
    self.cards = cards
    self._reset_ui()
    self._after_dice(())
    self.bus.publish(("resumed", "beetlejuice", g.n, g.cur))
    self.render()
