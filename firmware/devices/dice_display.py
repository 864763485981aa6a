# LED pictures of the dice companion: one 8x8 NeoPixel matrix (boards/companion.json,
# "pixels": width, height, serpentine, flip). (x, y): column 0..7 from the left,
# row 0..7 from the top. Every render builds the whole frame; PixelStrip.show()
# writes the chain only when a pixel changed. See docs/companion.md for pictures.
#
# This module holds what both games share: the matrix and the colours. Each
# game's picture lives with its controller (games/beetlejuice.py,
# games/superskill.py), so a game loads only its own drawing code.

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

    def set(self, x, y, c):
        # The LED of cell (x, y), computed in place (a frame sets ~30 cells:
        # no helper call per cell).
        if self.serpentine and y & 1:
            x = self.w - 1 - x
        i = y * self.w + x
        if self.flip:
            i = self.strip.n - 1 - i
        self.strip[i] = c

    def clear(self):
        self.strip.fill(OFF)

    def show(self):
        try:
            return self.strip.show()
        except OSError:
            # The game goes on without LEDs; the controller reports it once.
            return False
