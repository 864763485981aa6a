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
# every prompt with one of its options. The "keep" prompt lists only what the
# MENU offers for the dice set aside when it opens (KeepOptions: the reroll,
# stop, the Handbook effects), but accepts any action the engine would: every
# reroll of two or more dice is checked by the engine instead of being listed
# (there can be a hundred of them, on every roll).
#
# Cards: options {"cards": "firmware"} (default) draws House and Beetlejuice
# cards from the firmware's shuffled decks and reports the card id
# (("dealt", slot, card), ("bj_card", p, card, skulls)); {"cards": "enter"}
# asks for each card drawn at the table instead (prompts "deal", "draw_bj").
# The game is saved after every completed turn (and after each card entered
# between turns).

from rules.beetlejuice import auto_chance, reroll_for_keep
from rules.beetlejuice_cards import BJ
from rules.errors import RuleError
from devices.panel import LEFT, MENU, RIGHT, ROLL
from games.prompt import close_prompt, next_input, open_prompt
from games.events import report_leds
from ram import unload
from devices.dice_display import (AMBER, BLUE, CYAN, DIM_RED, DIM_WHITE, DIM_YELLOW, GREEN, ORANGE,
                                  PLAYER_COLOURS, RED, SYMBOL_COLOURS, WHITE, YELLOW)

SAVE_NAME = "beetlejuice"
COLOURS = ["red", "blue", "green", "yellow", "purple", "white"]
CARD_MODES = ("firmware", "enter")


# The picture on the 8x8 matrix (devices/dice_display.Matrix, x = column from
# the left, y = row from the top; see docs/companion.md):
#   row 0        the eight dice, one LED each, in the symbol's colour (off: not
#                rolled yet this turn, or removed by a Beetlejuice card)
#   row 1        under each die: white = kept, dim red = Beetlejuice symbol
#                (locked), blue = cursor on a die to reroll, cyan = cursor on a
#                kept die; in the MENU: orange = will be rerolled, white = kept
#   row 2        x 0..5: the seat whose turn it is (its colour); during a pass
#                prompt the highlighted receiver is white.
#                x 6: Beetlejuice in play (green). x 7: amber = a card is to be
#                entered with the buttons
#   rows 3..7    x 0..5: each player's Residents, a bar growing up from row 7
#                (past five, the bar starts again in white: expert game)
#                x 6: Beetlejuice's Residents (green bar)
#                x 7, rows 3..5: the three face-up cards (dim white = Resident,
#                dim yellow = Handbook, off = empty, bright white = part of the
#                highlighted collect choice)
#                x 7, row 6: the player to act holds a Handbook (yellow)
#                x 7, row 7: rolls left (green 3+, yellow 2, red 1, off 0)
#   game over    row 2 all in the winner's colour (green: Beetlejuice won)
class BeetlejuiceDisplay:
    def __init__(self, matrix, colours, symbols):
        self.m = matrix
        self.seat = [PLAYER_COLOURS.get(c, WHITE) for c in colours]
        self.sym = {}
        for s in symbols:
            self.sym[s] = SYMBOL_COLOURS.get(s, WHITE)

    def render(self, g, ui):
        # g: BeetlejuiceGame; ui: the controller (keep, cursor, menu, preview,
        # highlight, entering).
        m = self.m
        m.clear()
        dice = g.dice
        keep = ui.keep
        preview = ui.preview
        for i in range(len(dice)):
            f = dice[i]
            if f:
                m.set(i, 0, self.sym.get(f, WHITE))
            if not f:
                continue
            if preview is not None:
                m.set(i, 1, ORANGE if i in preview else WHITE)
            elif i == ui.cursor:
                m.set(i, 1, CYAN if keep & (1 << i) else BLUE)
            elif f == "bj" and not g.bjre:
                m.set(i, 1, DIM_RED)
            elif keep & (1 << i):
                m.set(i, 1, WHITE)
        over = g.is_over()
        if over:
            c = GREEN if g.result == "bj" else (self.seat[g.winner] if g.winner is not None else WHITE)
            for x in range(8):
                m.set(x, 2, c)
        elif g.cur < 6:
            m.set(g.cur, 2, self.seat[g.cur])
        h = ui.highlight
        if h is not None and h[0] == "pass" and h[2] < 6:
            m.set(h[2], 2, WHITE)
        if g.bj_up and not over:
            m.set(6, 2, GREEN)
        if ui.entering:
            m.set(7, 2, AMBER)
        for p in range(g.n if g.n < 6 else 6):
            self._bar(p, len(g.won[p]), self.seat[p])
        self._bar(6, len(g.bj_pile), GREEN)
        cfg = g.cfg
        sel = h[1] if h is not None and h[0] == "collect" else ()
        for s in range(len(g.slots) if len(g.slots) < 3 else 3):
            c = g.slots[s]
            if c is None:
                continue
            if s in sel:
                m.set(7, 3 + s, WHITE)
            else:
                m.set(7, 3 + s, DIM_YELLOW if cfg.is_handbook(c) else DIM_WHITE)
        if not over:
            if g.books[g.cur]:
                m.set(7, 6, YELLOW)
            if g.phase == "decide" or g.phase == "roll":
                left = g.rolls_left()
                if left:
                    m.set(7, 7, GREEN if left >= 3 else (YELLOW if left == 2 else RED))
        return m.show()

    def _bar(self, x, n, colour):
        m = self.m
        for k in range(n):
            m.set(x, 7 - k % 5, colour if k < 5 else WHITE)


def create(app):
    return _setup("create", app)


def _setup(name, *args):
    # What the controller does once per boot or once per game (the wiring, a
    # new game, a resume: games/beetlejuice_setup.py), loaded for the call and
    # dropped again on the board: not resident while turns are played.
    import games.beetlejuice_setup as s
    try:
        return getattr(s, name)(*args)
    finally:
        unload("games.beetlejuice_setup")


class KeepOptions(list):
    # The options of a "keep" prompt: a short list (published, indexable, JSON
    # like any list) whose membership test asks the engine, so a host may also
    # answer with any other legal reroll. Decider.offer and the protocol's "act"
    # both check `option in options`.
    def __init__(self, game, items=()):
        super().__init__(items)
        self.game = game

    def __contains__(self, action):
        return self.game.is_legal(action)


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
        self._saved = {"game": None, "rng": None, "cards": None}
        self._reroll_last = None
        self._fx = []           # effects of the last action (reused)
        decider.on_highlight = self._highlight

    # ---- setup -----------------------------------------------------------

    def tasks(self):
        return []

    def public_state(self):
        # For the host's `state` request, which encodes the reply at once: the
        # game's state_view() (its own lists, no copies: the peak heap of a
        # request is ~1 KB lower than with to_dict()). Encode it, never keep it.
        if self.game is None:
            return None
        return {"game": self.game.state_view(), "keep": self.keep, "cards": self.cards}

    def new_game(self, players, start=0, options=None):
        _setup("new_game", self, players, start, options)

    def resume(self, saved):
        _setup("resume", self, saved)

    def save(self):
        # state_view(): the engine's state without copying its lists; the outer
        # dict is kept and refilled, so a save builds no new dicts but the rng's.
        s = self._saved
        s["game"] = self.game.state_view()
        s["rng"] = self.rng.to_dict()
        s["cards"] = self.cards
        self.store.save(SAVE_NAME, s)

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
        report_leds(self, strip, before, "LED matrix")

    def _highlight(self, option):
        self.highlight = option
        self.render()

    def _apply(self, action, show=True, keep=True):
        # Returns the effects, in a list this controller reuses on the next call.
        g = self.game
        fx = self._fx
        fx.clear()
        try:
            g.apply(action, fx)
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

    def menu_items(self, keep, legal=None, out=None):
        # What the MENU offers for a keep mask: the reroll it means (if one is
        # legal), stop, then the Handbook effects on offer. `legal`: the prompt's
        # options (any list with the reroll and Handbook actions on offer), or
        # None to ask the engine. `out`: the (empty) list to fill, default a new one.
        g = self.game
        if out is None:
            out = []
        if legal is None:
            can = g.can_reroll()
        else:
            can = False
            for a in legal:
                if a[0] == "reroll":
                    can = True
                    break
        if can:
            idx = reroll_for_keep(g, keep)
            if idx is not None:
                out.append(self._reroll_action(idx))
        out.append(("stop",))
        if legal is None:
            if g.books[g.cur] and not g.hb_used:
                out.extend(g.handbook_actions())
        else:
            for a in legal:
                if a[0] == "handbook":
                    out.append(a)
        return out

    def _reroll_action(self, idx):
        # ("reroll", idx), the same tuple while idx is (reroll_for_keep keeps
        # its last answer): the menus ask for it again and again.
        a = self._reroll_last
        if a is None or a[1] is not idx:
            a = self._reroll_last = ("reroll", idx)
        return a

    def keep_options(self, items=None):
        # The "keep" prompt's options (see KeepOptions): the MENU's lines for
        # the dice set aside now (`items` if already made by menu_items(...,
        # KeepOptions(game)): then the same list). When a reroll is possible the
        # list always holds one (a host reading the list sees it), even if the
        # dice set aside now leave none: then (in a copy) the reroll of every die.
        g = self.game
        if items is None:
            items = self.menu_items(self.keep, None, KeepOptions(g))
        if items[0][0] != "reroll" and g.can_reroll():
            opts = KeepOptions(g, items)
            opts.insert(0, self._reroll_action(reroll_for_keep(g, 0)))
            return opts
        return items if isinstance(items, KeepOptions) else KeepOptions(g, items)

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
        d = self.decider
        if self.cursor < 0 or not self.toggleable(self.cursor):
            self._move(1)
        items = self.menu_items(self.keep, None, KeepOptions(g))
        if items[0][0] != "reroll":
            self._open_menu(items)      # nothing to reroll: straight to the menu
        open_prompt(d, "keep", p, self.keep_options(items))
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
                        self._open_menu()
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

    def _open_menu(self, items=None):
        self.menu = items if items is not None else self.menu_items(self.keep)
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
