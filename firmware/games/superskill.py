# Star Trek: Super-Skill Pinball companion: the firmware rolls the two shared
# dice for the group, shows them as pips on the LED matrix, keeps each player's
# round and warns about a pending tilt. The score sheets stay on paper. After
# each roll the players report only what the firmware cannot see (prompt
# "report"):
#   ROLL                   nothing (more) to report: roll the next dice
#   LEFT / RIGHT           select a player (their seat LED turns white)
#   MENU                   cycle the report for the selected player:
#                          round over, Nudge 1..5, nothing
#   ROLL (player selected) enter that report
# A written Nudge amount is compared with the next roll's difference: a
# smaller difference is a tilt (the round ends for that player, as the
# rulebook's Tilting section says); the LEDs show orange while a Nudge is
# pending and red on the roll that tilted. At the end the players enter the
# winner from their sheets (prompt "result").
#
# The full rule engine (rules/superskill) is not run here: with its modules
# and a table it needs about 100 KB of heap, beyond the 64 KB a game may use
# on the Pico (docs/performance.md). It runs on the host (`hauntbox play
# superskill`).
#
# The game is saved after every completed roll (all players have moved).

from rules.errors import CHANCE, RuleError
from devices.panel import LEFT, MENU, RIGHT, ROLL
from games.prompt import close_prompt, next_input, open_prompt
from games.events import report_leds
from ram import unload
from devices.dice_display import (AMBER, DIM_WHITE, MAGENTA, ORANGE, PIPS, PLAYER_COLOURS, RED,
                                  WHITE, dim)

SAVE_NAME = "superskill"
COLOURS = ["red", "blue", "green", "yellow"]
TABLE = "data/superskill/starfleet_academy.json"
FACES = 6


class Seat:
    # One player's track in companion mode (attribute names as the engine's).
    __slots__ = ("round", "done", "fin", "namt", "nudges", "nudged")

    def __init__(self):
        self.round = 1
        self.done = False
        self.fin = -1
        self.namt = 0
        self.nudges = 0
        self.nudged = False


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Tracker:
    # The companion's small rule object (same interface as the engines):
    #   "roll"    CHANCE  ("roll", d1, d2)
    #   "report"  group   ("next",) | ("round_over", p) | ("nudge", p, amount)
    #   "result"  group   ("winner", p) | ("tie",)
    #   "over"
    # Effects: ("roll", d1, d2) ("tilt", p, amount, diff) ("nudge_clear", p,
    # amount, diff) ("nudge", p, amount) ("round_end", p, round) ("round_start",
    # p, round) ("player_over", p, roll_no) ("result", p|None) ("game_over", winners)
    def __init__(self, players, rounds=3, nudge_boxes=3):
        if not _is_int(players) or not 1 <= players <= 4:
            raise RuleError("players must be 1..4")
        self.rounds = rounds
        self.nudge_boxes = nudge_boxes
        self.players = [Seat() for _ in range(players)]
        self.n = players
        self.roll_no = 0
        self.dice = None
        self.phase = "roll"
        self.winners = []

    @property
    def to_act(self):
        if self.phase == "over":
            return None
        return CHANCE if self.phase == "roll" else 0

    def is_over(self):
        return self.phase == "over"

    @property
    def winner(self):
        return self.winners[0] if len(self.winners) == 1 else None

    def can_nudge(self, p):
        s = self.players[p]
        return not s.done and not s.nudged and s.nudges < self.nudge_boxes

    def legal_actions(self):
        ph = self.phase
        if ph == "roll":
            return [("roll", a, b) for a in range(1, FACES + 1) for b in range(1, FACES + 1)]
        if ph == "report":
            out = [("next",)]
            for p in range(self.n):
                if not self.players[p].done:
                    out.append(("round_over", p))
            for p in range(self.n):
                if self.can_nudge(p):
                    for k in range(1, FACES):
                        out.append(("nudge", p, k))
            return out
        if ph == "result":
            return [("winner", p) for p in range(self.n)] + [("tie",)]
        return []

    def _check(self, a):
        if isinstance(a, list):
            a = tuple(a)
        if not isinstance(a, tuple) or not a:
            raise RuleError("an action is a non-empty tuple")
        for v in a[1:]:
            if not _is_int(v):
                raise RuleError("action values are whole numbers")
        name = a[0]
        ph = self.phase
        ok = False
        if ph == "roll":
            ok = name == "roll" and len(a) == 3 and 1 <= a[1] <= FACES and 1 <= a[2] <= FACES
        elif ph == "report":
            if name == "next":
                ok = len(a) == 1
            elif name == "round_over":
                ok = len(a) == 2 and 0 <= a[1] < self.n and not self.players[a[1]].done
            elif name == "nudge":
                ok = len(a) == 3 and 0 <= a[1] < self.n and self.can_nudge(a[1]) and 1 <= a[2] < FACES
        elif ph == "result":
            if name == "winner":
                ok = len(a) == 2 and 0 <= a[1] < self.n
            elif name == "tie":
                ok = len(a) == 1
        if not ok:
            raise RuleError("illegal action %r in phase %s" % (a, ph))
        return a

    def apply(self, action):
        a = self._check(action)
        fx = []
        name = a[0]
        if name == "roll":
            self._roll(a[1], a[2], fx)
        elif name == "next":
            self.phase = "roll"
        elif name == "round_over":
            self._end_round(a[1], fx)
        elif name == "nudge":
            s = self.players[a[1]]
            s.namt = a[2]
            s.nudges += 1
            s.nudged = True
            fx.append(("nudge", a[1], a[2]))
        elif name == "winner":
            self._finish([a[1]], fx)
        else:
            self._finish([], fx)
        if self.phase == "report" and self._all_done():
            self._to_result(fx)
        return fx

    def _roll(self, d1, d2, fx):
        self.roll_no += 1
        self.dice = (d1, d2)
        fx.append(("roll", d1, d2))
        diff = d1 - d2 if d1 >= d2 else d2 - d1
        for p in range(self.n):
            s = self.players[p]
            s.nudged = False
            if s.done or not s.namt:
                continue
            amt = s.namt
            s.namt = 0
            if diff < amt:
                fx.append(("tilt", p, amt, diff))
                self._end_round(p, fx)
            else:
                fx.append(("nudge_clear", p, amt, diff))
        self.phase = "report"

    def _end_round(self, p, fx):
        s = self.players[p]
        fx.append(("round_end", p, s.round))
        if s.round >= self.rounds:
            s.done = True
            s.fin = self.roll_no
            s.namt = 0
            fx.append(("player_over", p, self.roll_no))
        else:
            s.round += 1
            fx.append(("round_start", p, s.round))

    def _all_done(self):
        for s in self.players:
            if not s.done:
                return False
        return True

    def _to_result(self, fx):
        if self.n == 1:
            self._finish([0], fx)
        else:
            self.phase = "result"

    def _finish(self, winners, fx):
        self.winners = winners
        self.phase = "over"
        fx.append(("result", winners[0] if winners else None))
        fx.append(("game_over", tuple(winners)))

    def to_dict(self):
        return {"mode": "companion", "rounds": self.rounds, "nudge_boxes": self.nudge_boxes,
                "roll_no": self.roll_no, "dice": list(self.dice) if self.dice else None,
                "phase": self.phase, "winners": list(self.winners),
                "players": [[s.round, s.done, s.fin, s.namt, s.nudges, s.nudged]
                            for s in self.players]}

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict) or d.get("mode") != "companion":
            raise RuleError("not a companion state")
        pl = d.get("players")
        rounds = d.get("rounds")
        boxes = d.get("nudge_boxes")
        if not isinstance(pl, list) or not _is_int(rounds) or not _is_int(boxes) or rounds < 1:
            raise RuleError("bad state")
        t = cls(len(pl), rounds, boxes)
        rn = d.get("roll_no")
        if not _is_int(rn) or rn < 0:
            raise RuleError("bad roll_no")
        t.roll_no = rn
        dice = d.get("dice")
        if dice is not None:
            if (not isinstance(dice, list) or len(dice) != 2 or not _is_int(dice[0])
                    or not _is_int(dice[1]) or not 1 <= dice[0] <= FACES or not 1 <= dice[1] <= FACES):
                raise RuleError("bad dice")
            t.dice = (dice[0], dice[1])
        elif rn:
            raise RuleError("bad dice")
        ph = d.get("phase")
        if ph not in ("roll", "report", "result", "over") or (ph == "report" and t.dice is None):
            raise RuleError("bad phase")
        t.phase = ph
        for p in range(len(pl)):
            e = pl[p]
            if not isinstance(e, list) or len(e) != 6:
                raise RuleError("bad player %d" % p)
            rnd, done, fin, namt, nudges, nudged = e
            if (not _is_int(rnd) or not 1 <= rnd <= rounds or not isinstance(done, bool)
                    or not _is_int(fin) or done != (fin >= 0) or fin > rn
                    or not _is_int(namt) or not 0 <= namt < FACES
                    or not _is_int(nudges) or not 0 <= nudges <= boxes
                    or not isinstance(nudged, bool) or (done and namt)
                    or (done and rnd != rounds) or (namt and not nudges)):
                raise RuleError("bad player %d" % p)
            s = t.players[p]
            s.round = rnd
            s.done = done
            s.fin = fin
            s.namt = namt
            s.nudges = nudges
            s.nudged = nudged
        w = d.get("winners")
        if not isinstance(w, list) or len(w) > 1:
            raise RuleError("bad winners")
        for p in w:
            if not _is_int(p) or not 0 <= p < t.n:
                raise RuleError("bad winners")
        t.winners = list(w)
        alldone = t._all_done()
        if (ph in ("result", "over")) != alldone and not (ph == "over" and t.n == 1 and alldone):
            raise RuleError("bad phase for the rounds played")
        if ph != "over" and w:
            raise RuleError("bad winners")
        return t


# The picture on the 8x8 matrix (devices/dice_display.Matrix, x = column from
# the left, y = row from the top; see docs/companion.md):
#   rows 0..2    die A as pips in x 0..2, die B in x 5..7 (white)
#   row 3        orange: a Nudge amount is written, the next roll may tilt;
#                red: somebody tilted on this roll. While a report is being
#                entered: magenta = "round over", k amber LEDs = Nudge amount k
#   rows 4..7    one row per player: x 0 seat (bright: playing, dim: finished,
#                white: selected for a report), x 1..3 the round track, x 4
#                orange = Nudge pending, red = tilted on this roll, x 5..7 the
#                Nudge boxes used
#   game over    the winner's row all in their colour
class SuperSkillDisplay:
    def __init__(self, matrix, colours):
        self.m = matrix
        self.seat = [PLAYER_COLOURS.get(c, WHITE) for c in colours]
        self.dim_seat = [dim(c) for c in self.seat]

    def render(self, g, ui):
        # g: the Tracker (players[p].round/done/namt/nudges, dice);
        # ui: the controller (tilted mask, seat, item).
        m = self.m
        m.clear()
        dice = g.dice
        if dice is not None:
            self._die(0, dice[0], WHITE)
            self._die(5, dice[1], WHITE)
        players = g.players
        n = len(players)
        pending = False
        for p in range(n if n < 4 else 4):
            ps = players[p]
            y = 4 + p
            c = self.dim_seat[p] if ps.done else self.seat[p]
            m.set(0, y, WHITE if ui.seat == p else c)
            for r in range(ps.round if ps.round < 3 else 3):
                m.set(1 + r, y, c)
            if ui.tilted & (1 << p):
                m.set(4, y, RED)
            elif ps.namt:
                m.set(4, y, ORANGE)
                pending = True
            for k in range(ps.nudges if ps.nudges < 3 else 3):
                m.set(5 + k, y, DIM_WHITE)
        item = ui.item
        if item is not None:
            if item[0] == "round_over":
                for x in range(8):
                    m.set(x, 3, MAGENTA)
            else:
                for x in range(item[2]):
                    m.set(x, 3, AMBER)
        elif ui.tilted:
            for x in range(8):
                m.set(x, 3, RED)
        elif pending:
            for x in range(8):
                m.set(x, 3, ORANGE)
        if g.is_over():
            w = g.winner
            if w is not None and w < 4:
                for x in range(8):
                    m.set(x, 4 + w, self.seat[w])
        return m.show()

    def _die(self, x0, face, colour):
        bits = PIPS[face] if 0 < face < 7 else 0
        m = self.m
        k = 0
        while bits:         # the pips in order, up to the last one
            if bits & 1:
                m.set(x0 + k % 3, k // 3, colour)
            bits >>= 1
            k += 1


def create(app):
    from devices.companion_build import build_companion
    from games.decide import Decider
    try:
        build = build_companion(app.open_board("companion"), app.settings)
    finally:
        unload("devices.companion_build")   # wiring is done once: not kept in RAM
    display = SuperSkillDisplay(build.matrix, COLOURS)
    c = SuperSkillController(app, display, Decider(build.panel, app.bus), app.bus, app.store,
                             app.rng)
    c.build = build
    return c


class SuperSkillController:
    name = "superskill"
    save_name = SAVE_NAME
    min_players = 1
    max_players = 4

    def __init__(self, app, display, decider, bus, store, rng):
        self.app = app
        self.build = None
        self.display = display
        self.decider = decider
        self.bus = bus
        self.store = store
        self.rng = rng
        self.colours = COLOURS
        self.mode = "companion"     # reported in public_state and saves (format 1)
        self.game = None
        self.turns = 0
        self.faults = 0
        self.led_fault = False
        self.rolled = False     # the group has just asked for the next roll
        # display state
        self.tilted = 0         # bit p: player p tilted on this roll
        self.seat = -1          # player selected for a report
        self.item = None        # report being chosen for that player
        decider.on_highlight = self._highlight

    # ---- setup -----------------------------------------------------------

    def tasks(self):
        return []

    def public_state(self):
        if self.game is None:
            return None
        return {"mode": self.mode, "game": self.game.to_dict()}

    def _companion_limits(self):
        d = self.app.read_json(TABLE)
        return d.get("rounds", 3), d.get("nudge_boxes", 3)

    def new_game(self, players, start=0, options=None):
        if options and options.get("mode", "companion") != "companion":
            # A bad option from the host must not stop the board: reported, and
            # the companion started.
            self.bus.publish(("fault", "options", "the board runs Super-Skill as a companion "
                              "only; play the full rules on the host: hauntbox play superskill"))
        rounds, boxes = self._companion_limits()
        self.game = Tracker(players, rounds, boxes)
        self._reset_ui()
        self.rolled = False
        self.bus.publish(("game", "superskill", players, 0))
        self.save()
        self.render()

    def resume(self, saved):
        if saved.get("mode") != "companion":
            # e.g. a game of the full-engine mode that earlier firmware ran on the
            # board: the app sets the file aside (kept) and starts a new game.
            raise RuleError("saved game is not a companion game")
        g = Tracker.from_dict(saved.get("game"))
        from rules.rng import Rng
        self.rng = Rng.saved_or(saved, self.rng)
        self.game = g
        self._reset_ui()
        self.rolled = False
        self.bus.publish(("resumed", "superskill", len(g.players), g.roll_no))
        self.render()

    def save(self):
        self.store.save(SAVE_NAME, {"mode": self.mode, "game": self.game.to_dict(),
                                    "rng": self.rng.to_dict()})

    # ---- helpers ---------------------------------------------------------

    def _reset_ui(self):
        self.tilted = 0
        self.seat = -1
        self.item = None

    def render(self):
        if self.game is None:
            return
        strip = self.display.m.strip
        before = strip.failures
        self.display.render(self.game, self)
        report_leds(self, strip, before, "LED matrix")

    def _highlight(self, option):
        # The "result" prompt: the highlighted winner's seat LED turns white.
        if option is not None and option[0] == "winner":
            self.seat = option[1]
        self.render()

    def _apply(self, action):
        g = self.game
        try:
            fx = g.apply(action)
        except RuleError as e:
            self.bus.publish(("rejected", action, str(e)))
            return []
        for e in fx:
            k = e[0]
            if k == "roll":
                self.tilted = 0
            elif k == "tilt":
                self.tilted |= 1 << e[1]
            self.bus.publish(e)
        if g.is_over():
            pass
        elif g.to_act == CHANCE:
            # Everyone has moved for this roll: a completed turn.
            self.turns += 1
            self.save()
            self.bus.publish(("turn", g.roll_no))
        elif action[0] == "round_over" or action[0] == "nudge":
            self.save()         # a report entered on the buttons is kept too
        self.render()
        return fx

    def roll(self):
        r = self.rng
        return ("roll", 1 + r.below(FACES), 1 + r.below(FACES))

    # ---- the turn loop ---------------------------------------------------

    async def play(self):
        g = self.game
        while not g.is_over():
            await self.step()
        self.render()
        return g.winner

    async def step(self):
        g = self.game
        d = self.decider
        if g.to_act == CHANCE:
            if not self.rolled:
                await d.ask("roll", 0, [("roll",)])
            self.rolled = False
            self._apply(self.roll())
            return
        if g.phase == "report":
            a = await self.report()
            if a == ("next",):
                self.rolled = True
            self._apply(a)
            return
        acts = g.legal_actions()
        if len(acts) == 1:
            self._apply(acts[0])
            return
        try:
            a = await d.ask(g.phase, g.to_act, acts)
        finally:
            self.seat = -1
        self._apply(a)

    async def report(self):
        # The "report" prompt (see the top): seat cursor, MENU item, ROLL.
        g = self.game
        legal = g.legal_actions()
        d = self.decider
        open_prompt(d, "report", 0, legal)
        self.seat = -1
        self.item = None
        self.render()
        try:
            while True:
                x = await next_input(d)
                if isinstance(x, tuple):
                    return x
                if x == ROLL:
                    if self.seat < 0:
                        return ("next",)
                    if self.item is not None:
                        return self.item
                    self.seat = -1          # nothing chosen: deselect
                elif x == LEFT or x == RIGHT:
                    self._move_seat(-1 if x == LEFT else 1)
                elif x == MENU and self.seat >= 0:
                    self.item = self._next_item(self.seat, self.item)
                self.bus.publish(("report", self.seat, self.item))
                self.render()
        finally:
            close_prompt(d)
            self.seat = -1
            self.item = None

    def _move_seat(self, step):
        # Cycles over the players still playing and "nobody" (-1).
        g = self.game
        n = g.n
        s = self.seat
        for _ in range(n + 1):
            s += step
            if s >= n:
                s = -1
            elif s < -1:
                s = n - 1
            if s < 0 or not g.players[s].done:
                break
        self.seat = s
        self.item = None

    def report_items(self, p):
        # The MENU cycle for player p: round over, Nudge 1..5 (if a Nudge box
        # is left and none was written on this roll), then nothing (None).
        out = [("round_over", p)]
        if self.game.can_nudge(p):
            for k in range(1, FACES):
                out.append(("nudge", p, k))
        out.append(None)
        return out

    def _next_item(self, p, item):
        items = self.report_items(p)
        i = items.index(item) if item in items else -1
        return items[(i + 1) % len(items)]
