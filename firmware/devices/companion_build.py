# The dice companion build (boards/companion.json): four buttons and an 8x8
# NeoPixel matrix beside the cards of Watch Out Beetlejuice or Star Trek:
# Super-Skill Pinball. No sensors: the dice are rolled by the firmware.
# Runs once per game load; the game then drops this module (ram.py).

from drivers.pixels import PixelStrip, max_brightness
from devices import Parts
from devices.dice_display import Matrix
from devices.panel import panel_from_board


def build_companion(board, settings):
    # Returns Parts: panel, strip, matrix.
    pm = board.map
    p = Parts()
    p.panel = panel_from_board(board, pm.get("buttons", {}).get("debounce_ms", 20))
    px = pm["pixels"]
    p.strip = PixelStrip(board.neopixel("pixels", px["count"]),
                         settings.get("brightness", 0.15), max_brightness(px))
    p.matrix = Matrix(p.strip, px)
    return p
