# Runs in the MicroPython VM and on CPython (tests/sim/vm/test_haunted_vm.py):
# every Haunted House build module imports, and the score panel / spot LEDs
# render the same frames for a scripted game. FW_ROOT, the firmware folder, is
# "/fw/" in the VM; the CPython side passes its own in the globals.
import json

import devices.haunted_build  # noqa: F401  (each build module must import on MicroPython)
import drivers.mcp23017  # noqa: F401
import games.haunted  # noqa: F401
from devices.scoreboard import Scoreboard
from rules.haunted_house import HauntedHouse

ROOT = globals().get("FW_ROOT", "/fw/")

data = json.load(open(ROOT + 'data/haunted-house.json'))
pm = json.load(open(ROOT + 'boards/haunted-house.json'))


class Strip:
    def __init__(self, n):
        self.n = n
        self.px = [(0, 0, 0)] * n

    def __setitem__(self, i, c):
        self.px[i] = c

    def fill(self, c):
        for i in range(self.n):
            self.px[i] = c

    def show(self):
        return True


class View:
    pending = {}
    refill = []
    preview = None
    entering = -1
    fault = False


score, spots = Strip(100), Strip(15)
sb = Scoreboard(score, spots, pm['pixels'], data['colours'], ['medusa', 'frank', 'bob'],
                [c['id'] for c in data['clue_spots']])
g = HauntedHouse(data, 3, deck=list(data['clue_deck']))
v = View()
frames = []


def snap():
    sb.render(g, v)
    frames.append([list(c) for c in score.px] + [list(c) for c in spots.px])


snap()
script = [("launch",), ("monster_hit", "medusa"), ("clue_taken", "clue_top_left"), ("end_turn",),
          ("launch",), ("circle", 1), ("end_turn",), ("launch",), ("end_turn",), ("launch",),
          ("monster_hit", "bob"), ("end_turn",)]
for a in script:
    for e in g.apply(a):
        if e[0] == "monster_moved":
            v.pending = {e[1]: e[4]}
    snap()
    v.pending = {}
while g.phase != "round_end":
    if g.phase == "launch":
        g.apply(("launch",))
    g.apply(("end_turn",))
k = 0
for p in range(3):
    while g.dice_to_enter(p):
        k += 1
        if k % 3 == 0:
            g.apply(("die_result", p, 1 + k % 6, "ravens"))
        else:
            g.apply(("die_result", p, 1 + k % 6))
v.preview = (1, ("face", 4))
snap()
v.preview = None
for e in g.apply(("score_round",)):
    if e[0] == "clue_placed":
        v.refill.append(e[1])
snap()
print(json.dumps(frames))
