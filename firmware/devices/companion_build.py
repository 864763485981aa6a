# The dice companion build (boards/companion.json): four buttons and an 8x8
# NeoPixel matrix beside the cards of Watch Out Beetlejuice or Star Trek:
# Super-Skill Pinball. No sensors: the dice are rolled by the firmware.
#
# The helpers below run a prompt whose buttons do more than "move the highlight,
# confirm" (the dice cursor, the report menu) while keeping the contract of
# games.decide.Decider: decider.current holds (kind, player, options) so the
# host can list and answer the same prompt, and a host choice wakes the wait.

from drivers.pixels import PixelStrip
from devices.dice_display import Matrix
from devices.panel import panel_from_board


def _brightness_cap(px):
    # Every LED at full white stays within the current budget.
    full = px["count"] * px.get("max_ma_per_led", 60)
    cap = px.get("budget_ma", 500) / full
    return cap if cap < 1 else 1.0


class CompanionBuild:
    def __init__(self, board, settings):
        pm = board.map
        self.panel = panel_from_board(board, pm.get("buttons", {}).get("debounce_ms", 20))
        px = pm["pixels"]
        self.strip = PixelStrip(board.neopixel("pixels", px["count"]),
                                settings.get("brightness", 0.15), _brightness_cap(px))
        self.matrix = Matrix(self.strip, px)


def open_prompt(decider, kind, player, options):
    # Publish a prompt the buttons answer in their own way; the host answers it
    # with one of `options` through decider.offer().
    decider.current = (kind, player, options)
    decider._remote = None
    decider.panel.drain()
    decider.bus.publish(("prompt", kind, player, options, 0))


def close_prompt(decider):
    decider.current = None


async def next_input(decider):
    # The next button name (str), or the host's choice (a tuple from the
    # prompt's options).
    panel = decider.panel
    while True:
        r = decider._remote
        if r is not None:
            decider._remote = None
            return r
        name = await panel.next_press()
        if name is not None:
            return name
