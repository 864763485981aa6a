# Watch Out Beetlejuice companion: the firmware rolls the eight dice for the
# player to act, shows them on the LED matrix, and the players choose with the
# buttons which dice to keep. The cards stay on the table; the firmware keeps
# the same game in its rule engine (rules/beetlejuice.py), so it knows which
# Residents the dice scare and when Beetlejuice comes or goes.
#
# Buttons while the dice are shown (prompt "keep"):
#   LEFT / RIGHT  move the cursor over the dice that may be rerolled
#   ROLL          keep / unkeep the die under the cursor
#   MENU          open the menu: reroll the dice not kept (first), stop, or a
#                 Handbook effect; LEFT/RIGHT choose, ROLL confirms, MENU goes
#                 back to the dice. So: MENU ROLL rerolls, MENU RIGHT ROLL stops.
# A reroll always takes at least two dice: with fewer unkept, kept dice go back
# in the cup (highest first); the menu shows them in orange before ROLL.
# Other prompts (roll, collect, pass, prep, card entry) are plain
# games.decide.Decider prompts: LEFT/RIGHT move, ROLL confirms. The host answers
# every prompt with one of its options (for "keep": the engine's legal actions).
#
# Cards: options {"cards": "firmware"} (default) draws House and Beetlejuice
# cards from the firmware's shuffled decks and reports the card id
# (("dealt", slot, card), ("bj_card", p, card, skulls)); {"cards": "enter"}
# asks for each card drawn at the table instead (prompts "deal", "draw_bj").
# The game is saved after every completed turn (and after each card entered
# between turns).

from rules.beetlejuice import BeetlejuiceGame, auto_chance, reroll_for_keep
from rules.beetlejuice_cards import BJ, Config
from rules.errors import RuleError
from devices.panel import LEFT, MENU, RIGHT, ROLL
from devices.companion_build import close_prompt, next_input, open_prompt

SAVE_NAME = "beetlejuice"
COLOURS = ["red", "blue", "green", "yellow", "purple", "white"]
CARD_MODES = ("firmware", "enter")


def create(app):
    from devices.companion_build import CompanionBuild
    from devices.dice_display import BeetlejuiceDisplay
    from games.decide import Decider
    build = CompanionBuild(app.open_board("companion"), app.settings)
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


class BeetlejuiceController:
    name = "beetlejuice"
    save_name = SAVE_NAME
    min_players = 1
    max_players = 6

    def __init__(self, cfg, display, decider, bus, store, rng):
        self.build = None
        self.cfg = cfg
        self.display = display
        self.decider = decider
        self.bus = bus
        self.store = store
        self.rng = rng
        self.colours = COLOURS
        self.defaults = {"cards": "firmware", "expert": False, "compare_bj": False}
        self.cards = "firmware"
        self.game = None
        self.turns = 0
        self.faults = 0
        self.led_fault = False
        # button state of the dice prompt (read by the display)
        self.keep = 0           # bit i: die i kept
        self.cursor = -1        # die under the cursor, -1 = none
        self.menu = None        # menu options while the MENU is open
        self.menu_i = 0
        self.preview = None     # dice a reroll would take (MENU open on a reroll)
        self.highlight = None   # highlighted option of a plain prompt
        self.entering = False   # a card is to be entered with the buttons
        decider.on_highlight = self._highlight

    # ---- setup -----------------------------------------------------------

    def tasks(self):
        return []

    def public_state(self):
        if self.game is None:
            return None
        return {"game": self.game.to_dict(), "keep": self.keep, "cards": self.cards}

    def new_game(self, players, start=0, options=None):
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
        rng_state = saved.get("rng")
        if isinstance(rng_state, dict):
            from rules.rng import Rng
            self.rng = Rng.from_dict(rng_state)
        self.game = g
        self.cards = cards
        self._reset_ui()
        self._after_dice(())
        self.bus.publish(("resumed", "beetlejuice", g.n, g.cur))
        self.render()

    def save(self):
        self.store.save(SAVE_NAME, {"game": self.game.to_dict(), "rng": self.rng.to_dict(),
                                    "cards": self.cards})

    # ---- helpers ---------------------------------------------------------

    def _reset_ui(self):
        self.keep = 0
        self.cursor = -1
        self.menu = None
        self.preview = None
        self.highlight = None
        self.entering = False

    def render(self):
        if self.game is None:
            return
        strip = self.display.m.strip
        before = strip.failures
        self.display.render(self.game, self)
        failed = strip.failures != before
        if failed and not self.led_fault:
            self.led_fault = True
            self.faults += 1
            self.bus.publish(("fault", "leds", "LED matrix write failed: check its data line and supply"))
        elif not failed and self.led_fault:
            self.led_fault = False
            self.bus.publish(("fault", "leds_ok", None))

    def _highlight(self, option):
        self.highlight = option
        self.render()

    def _apply(self, action, show=True, keep=True):
        g = self.game
        try:
            fx = g.apply(action)
        except RuleError as e:
            self.bus.publish(("rejected", action, str(e)))
            return []
        done = False
        for e in fx:
            k = e[0]
            if k == "turn":
                self.turns += 1
                self._reset_ui()
                done = True
            elif k == "rolled":
                self._after_dice(e[1])
        if keep and not g.is_over() and (done or (self.cards == "enter" and g.phase == "deal"
                                                  and g.after == "start")):
            # On flash before anyone hears of the new turn (and every card
            # entered between turns).
            self.save()
        for e in fx:
            self.bus.publish(e)
        if show:
            self.render()
        return fx

    def _after_dice(self, rolled):
        # Rerolled dice are no longer kept; Beetlejuice symbols always are.
        g = self.game
        keep = self.keep
        for i in rolled:
            keep &= ~(1 << i)
        for i in range(len(g.dice)):
            if g.dice[i] == BJ:
                keep |= 1 << i
        self.keep = keep
        self.cursor = -1
        self._move(1)

    def toggleable(self, i):
        g = self.game
        f = g.dice[i]
        return f != "" and (f != BJ or g.bjre)

    def _move(self, step):
        n = len(self.game.dice)
        c = self.cursor
        for _ in range(n):
            c = (c + step) % n if c >= 0 else (0 if step > 0 else n - 1)
            if self.toggleable(c):
                self.cursor = c
                return
        self.cursor = -1

    def kept(self, keep=None):
        if keep is None:
            keep = self.keep
        return [i for i in range(len(self.game.dice)) if keep & (1 << i)]

    def menu_items(self, keep, legal):
        # What the MENU offers for a keep mask: the reroll it means (if one is
        # legal), stop, then the Handbook effects on offer.
        out = []
        can = False
        for a in legal:
            if a[0] == "reroll":
                can = True
                break
        if can:
            idx = reroll_for_keep(self.game, self.kept(keep))
            if idx is not None:
                out.append(("reroll", idx))
        out.append(("stop",))
        for a in legal:
            if a[0] == "handbook":
                out.append(a)
        return out

    async def ask(self, kind, player, options):
        try:
            return await self.decider.ask(kind, player, options)
        finally:
            self.highlight = None

    def _collect_order(self, acts):
        # Best-scoring set first, so ROLL at once collects the most points.
        cfg = self.cfg
        slots = self.game.slots
        scored = []
        for a in acts:
            v = 0
            for s in a[1]:
                c = slots[s]
                v += 2 if cfg.is_handbook(c) else cfg.points(c)
            scored.append((-v, len(scored), a))
        scored.sort()
        return [x[2] for x in scored]

    # ---- the turn loop ---------------------------------------------------

    async def play(self):
        g = self.game
        while not g.is_over():
            await self.step()
        self.render()
        return g.winner

    async def step(self):
        g = self.game
        ph = g.phase
        if ph == "deal" or ph == "draw_bj":
            if self.cards == "enter":
                self.entering = True
                self.render()
                try:
                    a = await self.ask(ph, g.cur, g.legal_actions())
                finally:
                    self.entering = False
            else:
                a = auto_chance(g, self.rng)
            self._apply(a)
            return
        if ph == "roll":
            if g.rolls == 0 and not g.pending:
                await self.ask("roll", g.cur, [("roll",)])
            self._apply(auto_chance(g, self.rng))
            return
        if ph == "decide":
            self._apply(await self.choose_dice())
            return
        acts = g.legal_actions()
        if len(acts) == 1:
            self._apply(acts[0])
            return
        if ph == "collect":
            acts = self._collect_order(acts)
        self._apply(await self.ask(ph, g.cur, acts))

    async def choose_dice(self):
        # The "keep" prompt: cursor, keep toggles and the MENU (see the top).
        g = self.game
        p = g.cur
        legal = g.legal_actions()
        d = self.decider
        if self.cursor < 0 or not self.toggleable(self.cursor):
            self._move(1)
        if self.menu_items(self.keep, legal)[0][0] != "reroll":
            self._open_menu(legal)      # nothing to reroll: straight to the menu
        open_prompt(d, "keep", p, legal)
        self.render()
        try:
            while True:
                x = await next_input(d)
                if isinstance(x, tuple):
                    return x
                if self.menu is None:
                    if x == LEFT:
                        self._move(-1)
                    elif x == RIGHT:
                        self._move(1)
                    elif x == ROLL:
                        if self.cursor >= 0:
                            self.keep ^= 1 << self.cursor
                    elif x == MENU:
                        self._open_menu(legal)
                else:
                    n = len(self.menu)
                    if x == LEFT:
                        self.menu_i = (self.menu_i - 1) % n
                    elif x == RIGHT:
                        self.menu_i = (self.menu_i + 1) % n
                    elif x == MENU:
                        self.menu = None
                    elif x == ROLL:
                        return self._menu_choice(p)
                    self._set_preview()
                self.bus.publish(("keep", p, self.keep, self.cursor,
                                  self.menu[self.menu_i] if self.menu is not None else None))
                self.render()
        finally:
            close_prompt(d)
            self.menu = None
            self.preview = None

    def _open_menu(self, legal):
        self.menu = self.menu_items(self.keep, legal)
        self.menu_i = 0
        self._set_preview()

    def _set_preview(self):
        a = self.menu[self.menu_i] if self.menu is not None else None
        self.preview = a[1] if a is not None and a[0] == "reroll" else None

    def _menu_choice(self, p):
        a = self.menu[self.menu_i]
        if a[0] == "reroll":
            forced = tuple([i for i in a[1] if self.keep & (1 << i)])
            if forced:
                # Fewer than two dice left to reroll: kept dice go back in the cup.
                self.bus.publish(("forced", p, forced))
        return a
