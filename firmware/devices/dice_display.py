# LED pictures of the dice companion: one 8x8 NeoPixel matrix (boards/companion.json,
# "pixels": width, height, serpentine, flip). (x, y): column 0..7 from the left,
# row 0..7 from the top. Every render builds the whole frame; PixelStrip.show()
# writes the chain only when a pixel changed. See docs/companion.md for pictures.
#
# Watch Out Beetlejuice
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
#
# Star Trek: Super-Skill Pinball
#   rows 0..2    die A as pips in x 0..2, die B in x 5..7 (white; yellow = the
#                die used by the highlighted choice of a full-engine prompt)
#   row 3        orange: a Nudge amount is written, the next roll may tilt;
#                red: somebody tilted on this roll. While a report is being
#                entered: magenta = "round over", k amber LEDs = Nudge amount k
#   rows 4..7    one row per player: x 0 seat (bright: playing, dim: finished,
#                white: selected for a report), x 1..3 the round track, x 4
#                orange = Nudge pending, red = tilted on this roll, x 5..7 the
#                Nudge boxes used
#   game over    the winner's row all in their colour

OFF = (0, 0, 0)
WHITE = (255, 255, 255)
RED = (255, 0, 0)
GREEN = (40, 255, 0)
ORANGE = (255, 70, 0)
AMBER = (255, 150, 0)
YELLOW = (255, 200, 0)
BLUE = (0, 0, 255)
CYAN = (0, 255, 255)
MAGENTA = (255, 0, 255)

SYMBOL_COLOURS = {
    "roach": (255, 90, 0),       # Cockroach Swarm: brown-orange
    "ghost": (0, 200, 255),      # Ghostly Apparition: pale cyan
    "corpse": (255, 0, 0),       # Headless Corpse: red
    "barbara": (255, 0, 200),    # Transformed Barbara: pink
    "adam": (0, 0, 255),         # Transformed Adam: blue
    "bj": (40, 255, 0),          # Beetlejuice: slime green
}

PLAYER_COLOURS = {
    "red": (255, 0, 0), "blue": (0, 60, 255), "green": (0, 255, 40),
    "yellow": (255, 180, 0), "purple": (160, 0, 255), "white": (255, 255, 255),
}

# 3x3 pip masks, bit y*3+x, for faces 1..6.
PIPS = (0, 16, 257, 273, 325, 341, 365)


def dim(c, k=4):
    return (c[0] // k, c[1] // k, c[2] // k)


DIM_WHITE = dim(WHITE)
DIM_RED = dim(RED)
DIM_YELLOW = dim(YELLOW)


class Matrix:
    def __init__(self, strip, px):
        self.strip = strip
        self.w = px.get("width", 8)
        self.h = px.get("height", 8)
        self.serpentine = px.get("serpentine", False)
        self.flip = px.get("flip", False)

    def index(self, x, y):
        if self.serpentine and y & 1:
            x = self.w - 1 - x
        i = y * self.w + x
        if self.flip:
            i = self.strip.n - 1 - i
        return i

    def set(self, x, y, c):
        self.strip[self.index(x, y)] = c

    def clear(self):
        self.strip.fill(OFF)

    def show(self):
        try:
            return self.strip.show()
        except OSError:
            # The game goes on without LEDs; the controller reports it once.
            return False


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


class SuperSkillDisplay:
    def __init__(self, matrix, colours):
        self.m = matrix
        self.seat = [PLAYER_COLOURS.get(c, WHITE) for c in colours]
        self.dim_seat = [dim(c) for c in self.seat]

    def render(self, g, ui):
        # g: Tracker or SuperSkillGame (players[p].round/done/namt/nudges, dice);
        # ui: the controller (tilted mask, seat, item, used_die).
        m = self.m
        m.clear()
        dice = g.dice
        if dice is not None:
            self._die(0, dice[0], YELLOW if ui.used_die == 0 else WHITE)
            self._die(5, dice[1], YELLOW if ui.used_die == 1 else WHITE)
        players = g.players
        n = len(players)
        pending = False
        for p in range(n if n < 4 else 4):
            ps = players[p]
            y = 4 + p
            if ui.seat == p:
                m.set(0, y, WHITE)
            else:
                m.set(0, y, self.dim_seat[p] if ps.done else self.seat[p])
            for r in range(ps.round if ps.round < 3 else 3):
                m.set(1 + r, y, self.dim_seat[p] if ps.done else self.seat[p])
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
        for k in range(9):
            if bits & (1 << k):
                m.set(x0 + k % 3, k // 3, colour)
