# The probe of `make bench` on the emulated Pico (sim/pico/bench.py puts this
# module on the board's flash, and a main.py that imports it, measures what
# the import cost (PROBE_HEAP: taken out of every heap figure) and calls
# run(): the real app as main.py runs it (app.App, then app.play with
# serve_stdio under asyncio.run), plus the probe task and three wrappers.
# After the games (or turns) asked for, the probe writes /bench.json, which
# the bench reads back from the flash image.
#
# Nothing here allocates per sample: counters live in preallocated arrays of
# 32-bit ints (small ints throughout), PROBE_ALLOC checks it on the board.
#
# - every PERIOD_MS the probe reads gc.mem_alloc() (what was allocated since
#   the last collection: summed, that is the allocation counter), runs
#   gc.collect() and reads gc.mem_alloc() again: the live heap. The maximum of
#   these samples is heap_rest: they are taken between the other tasks' steps,
#   never inside a request (a chunk of requests is answered synchronously in
#   one step of the link's reader);
# - while a chunk of requests is answered (Link.receive wrapped: flag R[_REQ]),
#   every reply the protocol encodes (protocol.dumps wrapped: the reply object
#   and the requests' code are live) and the moment the requests' code is about
#   to be dropped (protocol.unload wrapped) are sampled the same way:
#   heap_peak is the maximum of those and of heap_rest;
# - the bytes allocated inside Link.receive are counted apart (R[_REQA]), so
#   the per-turn figure leaves the host's requests out (their replies' event
#   encoding by the link's pump stays in);
# - at each ("turn", ...) and ("over", ...) bus event the bytes allocated since
#   the last such event are stored (T), in the heap's 16-byte blocks (every
#   gc.mem_alloc() figure is a whole number of them) as signed 16 bits: 2 B a
#   turn plus its kind (K), so the probe's own arrays stay small beside the
#   heap they measure (it is imported first: every byte of them moves the app's
#   heap up and takes as much from the largest free block at its top);
# - an automatic collection between two probe samples would hide allocations:
#   a mem_alloc() reading below the live heap after the last collection is
#   counted (R[_AUTO]) and that stretch is left out of the counter.
#
# At the end the probe collects, finds the largest free block (largest_free)
# and writes /bench.json.
import gc
from array import array

GAMES = 0                       # sim/pico/bench.py replaces this line
PERIOD_MS = 0                   # and this one
NT = 0                          # and this one (turn slots)
TURNS = 0                       # and this one: stop after this many turns instead (0: games)
CENSUS = 0                      # and this one: 1 prints the heap census first (sim/pico/heap_census.py)
WRAPS = ()                      # and this one: "module:Class.method" or "module:function" to count
                                # (sim/pico/alloc_paths.py; empty in the bench's own runs)
TIMING = 0                      # and this one: 1 times the wrapped calls and counts no bytes

_REST = 0
_PEAK = 1
_ACC = 2        # bytes allocated, summed over the probe's collections
_LAST = 3       # gc.mem_alloc() right after the last collection
_REQ = 4        # 1 while a request is answered
_REQA = 5       # bytes allocated while requests were answered
_NT = 6         # turn slots used
_OVER = 7       # games over
_AUTO = 8       # readings below the last live heap (an automatic collection)
_SAMPLES = 9
_REQS = 10      # request samples
_DONE = 11
_MINFREE = 12   # smallest gc.mem_free() after a collection
_LOW = 13       # smallest live heap sampled
_AT = 14        # ticks_ms of the largest sample
_MARK = 15      # the allocation counter at the last turn / over event
_UNREC = 16     # turn / over events after the slots were full (not stored)

R = array("i", [0] * 17)
T = array("h", [0] * NT)        # 16-byte blocks allocated since the last turn / over event
K = bytearray(NT)               # 1: that slot is a turn, 2: a game over


def sample():
    # Allocation counter, then a collection and the live heap.
    a = gc.mem_alloc()
    if a < R[_LAST]:
        R[_AUTO] += 1
    else:
        R[_ACC] += a - R[_LAST]
    gc.collect()
    live = gc.mem_alloc()
    R[_LAST] = live
    f = gc.mem_free()
    if R[_MINFREE] == 0 or f < R[_MINFREE]:
        R[_MINFREE] = f
    return live - PROBE_HEAP


def counter():
    # Bytes allocated so far (no collection).
    return R[_ACC] + gc.mem_alloc() - R[_LAST]


def on_event(ev):
    k = ev[0]
    if k == "turn" or k == "over":
        n = R[_NT]
        if n < NT:
            c = counter() - R[_REQA]
            T[n] = (c - R[_MARK]) // 16
            R[_MARK] = c
            K[n] = 1 if k == "turn" else 2
            R[_NT] = n + 1
        else:
            R[_UNREC] += 1
        if k == "over":
            R[_OVER] += 1


def req_sample():
    if R[_REQ]:
        live = sample()
        R[_REQS] += 1
        if live > R[_PEAK]:
            R[_PEAK] = live


def _fits(n):
    try:
        bytearray(n)
        return True
    except MemoryError:
        return False


def largest_free():
    # The largest block the heap can give now, to 1 KiB: bytearray sizes tried
    # from the total free downwards, so no earlier success can still hold a
    # block (the collector is conservative: a stale pointer to a freed trial
    # on the stack would keep it) when a larger size is tried. A failed
    # allocation collects and retries before raising.
    gc.collect()
    n = gc.mem_free() & ~1023
    while n > 0 and not _fits(n):
        n -= 1024
    gc.collect()
    return n


def cumulative():
    # The allocation counter (bytes) at each stored event, as the bench reads it.
    out = []
    c = 0
    for i in range(R[_NT]):
        c += T[i] * 16
        out.append(c)
    return out


def finish():
    import json
    if CENSUS:
        import census_probe
        census_probe.run()
        del census_probe
    live = sample()
    out = {
        "heap_rest": R[_REST], "heap_low": R[_LOW], "heap_rest_at_ms": R[_AT], "heap_peak": R[_PEAK], "live_end": live,
        "largest_free": largest_free(), "mem_free_min": R[_MINFREE],
        "samples": R[_SAMPLES], "req_samples": R[_REQS], "auto_collections": R[_AUTO],
        "games_over": R[_OVER], "req_alloc": R[_REQA], "heap_total": gc.mem_alloc() + gc.mem_free(),
        "turns": cumulative(), "kinds": [K[i] for i in range(R[_NT])], "turns_unrecorded": R[_UNREC],
        "probe_alloc": PROBE_ALLOC, "probe_heap": PROBE_HEAP,
        "wraps": [[WRAPS[i], WB[i], WN[i], WT[i], WL[i], WM[i]] for i in range(len(WRAPS))],
    }
    with open("/bench.json", "w") as f:
        json.dump(out, f)


async def probe():
    import asyncio
    from time import ticks_ms
    while True:
        live = sample()
        R[_SAMPLES] += 1
        if live > R[_REST]:
            R[_REST] = live
            R[_AT] = ticks_ms() & 0x3FFFFFFF
        if R[_LOW] == 0 or live < R[_LOW]:
            R[_LOW] = live
        if not R[_DONE] and (R[_OVER] >= GAMES or (TURNS and R[_NT] > TURNS)):
            R[_DONE] = 1
            finish()
        await asyncio.sleep_ms(PERIOD_MS)


def probe_cost():
    # What one sample allocates itself (0 if the probe is as it should be):
    # 64 samples with the collector off.
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    for _ in range(64):
        counter()
        on_event(("x",))
    b = gc.mem_alloc()
    gc.enable()
    return b - a


def receive(self, data):
    R[_REQ] = 1
    c = counter()
    try:
        _receive(self, data)
    finally:
        R[_REQA] += counter() - c
        R[_REQ] = 0


def dumps(obj):
    req_sample()
    return _dumps(obj)


def unload(name):
    if name == "protocol_commands":
        req_sample()
    _unload(name)


_receive = _dumps = _unload = None
WB = array("i", [0] * len(WRAPS))   # bytes allocated inside each wrapped function (inclusive)
WN = array("i", [0] * len(WRAPS))   # its calls
WT = array("i", [0] * len(WRAPS))   # microseconds spent inside it (inclusive)
WM = array("i", [0] * len(WRAPS))   # the longest call, us (a first call may import)
WL = array("i", [0x3FFFFFFF] * len(WRAPS))  # the shortest call, us


def _took(i, d):
    # A wrapped call's time: the total, the longest and the shortest.
    WT[i] += d
    WN[i] += 1
    if d > WM[i]:
        WM[i] = d
    if d < WL[i]:
        WL[i] = d


def _counting(i, f):
    # The wrapper's own *a/**k are allocated before the count starts: they show
    # in the callers' figures and the turn's, not in this function's.
    from time import ticks_diff, ticks_us

    if TIMING:
        # Time only: counter() is gc.mem_alloc(), which walks the whole heap's
        # allocation table (~1 ms a call on the port) and would be timed.
        def timed(*a, **k):
            t = ticks_us()
            try:
                return f(*a, **k)
            finally:
                _took(i, ticks_diff(ticks_us(), t))
        return timed

    def w(*a, **k):
        c = counter()
        t = ticks_us()
        try:
            return f(*a, **k)
        finally:
            _took(i, ticks_diff(ticks_us(), t))
            WB[i] += counter() - c
    return w


def wrap_all():
    import sys
    for i in range(len(WRAPS)):
        mod, _, path = WRAPS[i].partition(":")
        if mod not in sys.modules:
            __import__(mod)
        owner = sys.modules[mod]
        names = path.split(".")
        for n in names[:-1]:
            owner = getattr(owner, n)
        setattr(owner, names[-1], _counting(i, getattr(owner, names[-1])))
PROBE_ALLOC = probe_cost()
PROBE_HEAP = 0          # set by main.py: what importing this module cost


def run():
    # What main.py does (app.run), with the probe's wrappers and task.
    global _receive, _dumps, _unload
    import asyncio
    import app
    import games.link_core as lc     # loaded by the first host byte anyway
    import protocol as proto         # the same
    _receive = lc.Link.receive
    _dumps = proto.dumps
    _unload = proto.unload
    lc.Link.receive = receive
    proto.dumps = dumps
    proto.unload = unload
    a = app.App()
    a.bus.subscribe(on_event)
    wrap_all()
    from games.link import serve_stdio
    app.compact_heap()          # app.play does it too: here so that R[_LAST] is the live heap
    R[_LAST] = gc.mem_alloc()
    app.play(a, asyncio.run, [serve_stdio(a), probe()])
