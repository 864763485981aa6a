# Builds and checks a rules.roller_layout.Layout from its data: loaded for
# that once per boot and dropped again (ram.unload), so the checks, their
# messages and the builder cost no RAM during play (measured on the rp2 port:
# docs/performance.md).

from rules.errors import RuleError
from rules.roller_layout import LAST, START, TOP


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


def build(layout, data):
    # Fills the tables of `layout` (made empty by Layout.__init__).
    if not isinstance(data, dict):
        raise RuleError("layout must be an object")
    stairs = data.get("staircases")
    if not isinstance(stairs, list) or not (1 <= len(stairs) <= 8):
        raise RuleError("layout: 'staircases' must be a list of 1..8 staircases")
    layout.n_stairs = len(stairs)
    layout.notches_per_rev = _int_in(data, "notches_per_rev", 1, 64, "layout")
    last = data.get("last_step_exposed", True)
    if not isinstance(last, bool):
        raise RuleError("layout: 'last_step_exposed' must be true or false")
    layout.has_last = last

    layout.nxt[START] = "1*"
    n = layout.n_stairs
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
        layout.star[star_id] = (_id("%dw%d", k, 1), _id("%do%d", k, 1))
        layout.order.append(star_id)
        for i in range(1, wall + 1):
            sid = _id("%dw%d", k, i)
            layout.nxt[sid] = _id("%dw%d", k, i + 1) if i < wall else end
            layout.order.append(sid)
        for i in range(1, outer + 1):
            sid = _id("%do%d", k, i)
            layout.nxt[sid] = _id("%do%d", k, i + 1) if i < outer else end
            layout.exposed[sid] = k
            layout.order.append(sid)
        if broken is not None:
            b = _int_in(st, "broken", 1, wall, where)
            slide = st.get("slide_to")
            if slide == START:
                target = START
            elif isinstance(slide, int) and not isinstance(slide, bool) and 1 <= slide <= outer:
                target = _id("%do%d", k, slide)
            else:
                raise RuleError(where + ": 'slide_to' must be \"start\" or an outer step 1..%d" % outer)
            layout.broken[_id("%dw%d", k, b)] = target
    if last:
        layout.nxt[LAST] = TOP
        layout.exposed[LAST] = n
        layout.order.append(LAST)
