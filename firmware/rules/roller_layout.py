# Roller Ghoster board graph, built from a layout dict (firmware/data/roller_ghoster.json).
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

from rules.errors import RuleError

START = "start"
TOP = "top"
LAST = "last"


def _id(fmt, *args):
    # A space id, interned. On MicroPython getattr interns the name it is given
    # and from then on every string with that text is the interned one (ids
    # formatted later by the rules, or read from a save): ~10 B once instead of
    # a ~32 B heap string for every copy. Measured on the rp2 port: 50 ids as
    # heap strings 1888 B, interned 528 B once (docs/performance.md). The ids
    # are keys of several dicts and entries of `order`, so without this the
    # layout held ~4 KB of duplicate strings. Harmless on CPython.
    s = fmt % args
    getattr(_id, s, None)
    return "%s" % s


def _int_in(d, key, lo, hi, where):
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > hi:
        raise RuleError("%s: '%s' must be an integer %d..%d" % (where, key, lo, hi))
    return v


class Layout:
    def __init__(self, data):
        if not isinstance(data, dict):
            raise RuleError("layout must be an object")
        stairs = data.get("staircases")
        if not isinstance(stairs, list) or not (1 <= len(stairs) <= 8):
            raise RuleError("layout: 'staircases' must be a list of 1..8 staircases")
        self.n_stairs = len(stairs)
        self.notches_per_rev = _int_in(data, "notches_per_rev", 1, 64, "layout")
        last = data.get("last_step_exposed", True)
        if not isinstance(last, bool):
            raise RuleError("layout: 'last_step_exposed' must be true or false")
        self.has_last = last

        self.nxt = {}       # space -> next space (non-star spaces)
        self.star = {}      # star id -> (first wall step, first outer step)
        self.exposed = {}   # space -> staircase whose balls knock it down
        self.broken = {}    # broken step -> slide target
        self.order = []     # every step in climbing order (for displays), wall before outer
        self.nxt[START] = "1*"
        n = self.n_stairs
        for k in range(1, n + 1):
            where = "layout: staircase %d" % k
            st = stairs[k - 1]
            if not isinstance(st, dict):
                raise RuleError(where + " must be an object")
            wall = _int_in(st, "wall", 1, 20, where)
            outer = _int_in(st, "outer", 1, 20, where)
            if outer >= wall:
                raise RuleError(where + ": the outer path must be shorter than the wall path")
            broken = st.get("broken")
            star_id = _id("%d*", k)
            end = _id("%d*", k + 1) if k < n else (LAST if last else TOP)
            _id("%dT", k)          # the trench: interned for trench() and saves
            self.star[star_id] = (_id("%dw%d", k, 1), _id("%do%d", k, 1))
            self.order.append(star_id)
            for i in range(1, wall + 1):
                sid = _id("%dw%d", k, i)
                self.nxt[sid] = _id("%dw%d", k, i + 1) if i < wall else end
                self.order.append(sid)
            for i in range(1, outer + 1):
                sid = _id("%do%d", k, i)
                self.nxt[sid] = _id("%do%d", k, i + 1) if i < outer else end
                self.exposed[sid] = k
                self.order.append(sid)
            if broken is not None:
                b = _int_in(st, "broken", 1, wall, where)
                slide = st.get("slide_to")
                if slide == START:
                    target = START
                elif isinstance(slide, int) and not isinstance(slide, bool) and 1 <= slide <= outer:
                    target = _id("%do%d", k, slide)
                else:
                    raise RuleError(where + ": 'slide_to' must be \"start\" or an outer step 1..%d" % outer)
                self.broken[_id("%dw%d", k, b)] = target
        if last:
            self.nxt[LAST] = TOP
            self.exposed[LAST] = n
            self.order.append(LAST)

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
