# NeoPixel displays of the Haunted House build, on two chains:
#
# Score panel (beside the machine), per player p (in seat order):
#   tens row   10 LEDs in the player's colour, one per 10 points (0..90)
#   units row   9 LEDs in white, one per point (0..9)
#   status      5 LEDs: seat (lit = to launch / being entered / winner),
#               hundreds (player colour at 100+, white at 200+), and one LED per
#               monster, lit in the monster's colour once that player has hit it
#               this round
# then 3 round LEDs (current round bright, finished rounds dim) and a fault LED.
# Two short rows read from across the table: the tens row's length shows who
# leads at a glance, the units row gives the exact score without counting past 9.
#
# Spot chain (inside the levels): one LED at each monster spot and clue spot.
#   monster spot: the monster's colour where it stands, white where it must be
#                 put (after a hit or at round end) until the sensor sees it
#   clue spot:    off while its clue is in place, dim amber once taken, bright
#                 amber where a new clue must be put at round end
#
# Nothing is written unless a pixel changed (PixelStrip.show compares frames),
# and the score panel is not written while a die may be moving (hold_score).

from ram import unload


WHITE = (255, 255, 255)
AMBER = (255, 110, 0)
RED = (255, 0, 0)
OFF = (0, 0, 0)
_NONE = {}      # "nothing pending" (read only)


class Scoreboard:
    # Set by devices.scoreboard_setup.setup() (annotations for the type
    # checker: MicroPython compiles them to nothing).
    block: int
    tens: int
    units: int
    status_from: int
    status_len: int
    round_from: int
    rounds: int
    fault_led: int
    spot_led: dict
    colours: list
    dim_colours: list
    round_done: tuple
    clue_gone: tuple
    lost_row: tuple
    monsters: list
    monster_rgb: list

    def __init__(self, score_strip, spot_strip, layout, colours, monsters, clue_spots):
        # layout: the "pixels" block of the board pin map. The set-up (and the
        # colour tables) run once: in devices/scoreboard_setup.py, loaded for
        # it and dropped again, so they cost no RAM during play.
        self.score = score_strip
        self.spots = spot_strip
        from devices.scoreboard_setup import setup
        unload("devices.scoreboard_setup")
        setup(self, layout, colours, monsters)
        self.clue_spots = list(clue_spots)
        self.failures = 0
        self.hold_score = False

    # ---- pieces ----------------------------------------------------------

    def show_number(self, p, value):
        # The tens and units rows of player p.
        s = self.score
        base = p * self.block
        col = self.colours[p]
        t = (value // 10) % 10
        u = value % 10
        for i in range(self.tens):
            s[base + i] = col if i < t else OFF
        for i in range(self.units):
            s[base + self.tens + i] = WHITE if i < u else OFF

    def _preview(self, p, option):
        # During the round-end entry the units row of the player being entered
        # shows the highlighted choice: a face as that many white LEDs, a realm
        # as its multiplier in amber, "lost" as a dim red row.
        s = self.score
        base = p * self.block + self.tens
        name = option[0]
        n = 0
        col = WHITE
        if name == "face":
            n = option[1]
        elif name == "realm":
            n = option[2]
            col = AMBER
        elif name == "lost":
            n = self.units
            col = self.lost_row
        else:
            return                  # other prompts leave the score alone
        for i in range(self.units):
            s[base + i] = col if i < n else OFF

    # ---- the whole picture -------------------------------------------------

    def render(self, game, view=None):
        # view: anything with .pending (monster -> spot to place it on), .refill
        # (clue spots to fill), .preview ((player, option) or None), .fault.
        # Every frame is built in place: nothing here allocates (it runs on
        # every rule effect and sensor event).
        over = game.is_over()
        pending = getattr(view, "pending", None)
        if pending is None:
            pending = _NONE
        refill = getattr(view, "refill", None)
        if refill is None:
            refill = ()
        # The spot chain first: it shows what the sensors just saw, so its
        # frame goes out before the score panel's ~3 ms write.
        t = self.spots
        t.fill(OFF)
        leds = self.spot_led
        for k in range(len(self.monsters)):
            m = self.monsters[k]
            if m in pending:
                led = leds.get(pending[m])
                if led is not None:
                    t[led] = WHITE
            else:
                led = leds.get(game.monster_spot(m))
                if led is not None:
                    t[led] = self.monster_rgb[k]
        for sp in self.clue_spots:
            led = leds.get(sp)
            if led is None:
                continue
            if sp in refill:
                t[led] = AMBER
            elif game.spots[sp] is None and not over:
                t[led] = self.clue_gone
        wrote = self._write(t)
        # While hold_score is set (a die may be moving) the long score chain is
        # neither drawn nor written: a write runs with interrupts off (~3 ms
        # for 100 LEDs), which would shift the time stamps of the sensor edges
        # by as much, and drawing it would only delay the next sensor event.
        # Whoever clears hold_score renders again.
        if not self.hold_score:
            self._render_score(game, view, over)
            wrote = self._write(self.score) or wrote
        return wrote

    def _render_score(self, game, view, over):
        s = self.score
        s.fill(OFF)
        preview = getattr(view, "preview", None)
        entering = getattr(view, "entering", -1)
        winners = game.winners if over else ()
        for p in range(game.n):
            total = game.final_score(p) if over else game.score(p)
            self.show_number(p, total)
            st = self.status_from + p * self.status_len
            col = self.colours[p]
            if over:
                seat = WHITE if p in winners else OFF
            elif p == game.active or p == entering:
                seat = col
            else:
                seat = self.dim_colours[p]
            s[st] = seat
            s[st + 1] = OFF if total < 100 else (col if total < 200 else WHITE)
            if not over:
                for k in range(len(self.monsters)):
                    if k + 2 < self.status_len and game.has_hit(p, self.monsters[k]):
                        s[st + 2 + k] = self.monster_rgb[k]
        if preview is not None and not over and 0 <= preview[0] < game.n:
            self._preview(preview[0], preview[1])
        for r in range(self.rounds):
            if over or r + 1 < game.round:
                s[self.round_from + r] = self.round_done
            elif r + 1 == game.round:
                s[self.round_from + r] = WHITE
        if getattr(view, "fault", False):
            s[self.fault_led] = RED

    def show(self):
        # A failed chain write must never stop the game: count it and go on.
        # (The frames as last drawn; hold_score: see render.)
        wrote = self._write(self.spots)
        if not self.hold_score:
            wrote = self._write(self.score) or wrote
        return wrote

    def _write(self, strip):
        try:
            return strip.show()
        except OSError:
            self.failures += 1
            return False
