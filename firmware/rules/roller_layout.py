# Roller Ghoster board graph, built from a layout dict (firmware/data/roller-ghoster.json).
#
# Space ids:  "start"            the starting area (any number of ghosts)
#             "<k>*"             star corner step at the foot of staircase k (1-based)
#             "<k>w<i>"          i-th wall-path step of staircase k (safe)
#             "<k>o<i>"          i-th outer-path step of staircase k (exposed to balls on k)
#             "last"             last step before the arrival (exposed to the top staircase)
#             "top"              the arrival at the tower entrance: reaching it wins
#             "<k>T"             trench of staircase k (not a step)
# Both paths of staircase k end at the star of staircase k+1; the top staircase
# ends at "last" (or straight at "top" when the layout has no last step).

from ram import unload

START = "start"
TOP = "top"
LAST = "last"


class Layout:
    def __init__(self, data):
        # The graph is built and checked by rules/roller_layout_build.py, loaded
        # for it and dropped again: play needs only the tables and the methods
        # below. Raises RuleError on bad data.
        self.n_stairs = 0
        self.notches_per_rev = 0
        self.has_last = True
        self.nxt = {}       # space -> next space (non-star spaces)
        self.star = {}      # star id -> (first wall step, first outer step)
        self.exposed = {}   # space -> staircase whose balls knock it down
        self.broken = {}    # broken step -> slide target
        self.order = []     # every step in climbing order (for displays), wall before outer
        from rules.roller_layout_build import build
        try:
            build(self, data)
        finally:
            unload("rules.roller_layout_build")

    def trench(self, k):
        return "%dT" % k

    def trench_stair(self, space):
        # "3T" -> 3; anything else -> 0
        if len(space) >= 2 and space[-1] == "T" and space[:-1].isdigit():
            k = int(space[:-1])
            if 1 <= k <= self.n_stairs:
                return k
        return 0

    def is_valid_position(self, space):
        return (space == START or space == TOP or space in self.nxt or space in self.star
                or self.trench_stair(space) > 0)

    def advance(self, space, choice):
        # One step up from `space`; `choice` ("wall"/"outer") picks the path at a star.
        s = self.star.get(space)
        if s is not None:
            return s[1] if choice == "outer" else s[0]
        return self.nxt[space]
