# The Haunted House scoreboard's set-up: where each part of the score panel
# is, and the colours, from the pin map's "pixels" block. Runs once per game
# load; devices/scoreboard.py loads this module for it and drops it again
# (ram.unload), so it and its colour tables cost no RAM during play.

from devices.scoreboard import AMBER, RED, WHITE

PLAYER = {
    "red": (255, 0, 0), "blue": (0, 60, 255), "orange": (255, 80, 0),
    "yellow": (255, 190, 0), "green": (0, 255, 40), "white": (255, 255, 255),
}
MONSTER = {"medusa": (0, 255, 60), "frank": (150, 0, 255), "bob": (200, 200, 150)}


def dim(c, k=6):
    return (c[0] // k, c[1] // k, c[2] // k)


def setup(b, layout, colours, monsters):
    # Scoreboard.__init__: the layout's numbers and the colours, made once
    # (render allocates nothing).
    sc = layout["score"]
    b.block = sc.get("per_player", 19)
    b.tens = sc.get("tens", 10)
    b.units = sc.get("units", 9)
    b.status_from = sc["status_from"]
    b.status_len = sc.get("status_len", 5)
    b.round_from = sc["round_from"]
    b.rounds = sc.get("rounds", 3)
    b.fault_led = sc["fault_led"]
    b.spot_led = layout["spots"]["leds"]
    b.colours = [PLAYER.get(c, WHITE) for c in colours]
    b.dim_colours = [dim(c, 12) for c in b.colours]
    b.round_done = dim(WHITE, 8)
    b.clue_gone = dim(AMBER, 8)
    b.lost_row = dim(RED, 4)
    b.monsters = list(monsters)
    b.monster_rgb = [MONSTER.get(m, WHITE) for m in monsters]
