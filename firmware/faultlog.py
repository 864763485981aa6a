# The board's fault log and crash record, kept across resets in one small
# sealed file (health.json, games/store.py):
#
#   boot     boots so far (each App start counts one)
#   crashes  resets in a row without a completed, saved turn (startup.py)
#   armed    a game was running: the next boot may have to count a crash
#   crashed  why the last run ended in an exception (crash.py), or null
#   total    faults reported since the log began
#   faults   the last KEPT faults, oldest first: [kind, detail, boot, ms, n]
#            (ms: time since that boot; n: how often it came, the same kind
#            and detail count as one entry)
#
# The faults of a run are kept in RAM (App.fault_new, at most KEPT, a few
# hundred bytes) and written here only on the paths that precede a reset or
# prove the game sound, never on every fault: at boot (the boot number must be
# counted anyway), with the first save of a completed turn that follows new
# faults (App._on_saved), when the watchdog is about to reset the board (the
# `unhealthy` fault), in the crash handler (crash.py) and at Ctrl-C. Faults of
# the moments between those writes are lost only if the power goes then.
#
# Loaded for those moments and for the host's `faults` request, then dropped
# (ram.py): it is not in RAM during play.

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

KEPT = const(8)             # faults kept in the ring (in RAM and in the file)
DETAIL_MAX = const(60)      # characters of a fault's detail kept
NAME = "health"


def blank():
    return {"boot": 0, "crashes": 0, "armed": False, "crashed": None, "total": 0,
            "faults": []}


def _entry_ok(e):
    return (isinstance(e, list) and len(e) == 5 and isinstance(e[0], str)
            and isinstance(e[2], int) and isinstance(e[3], int) and isinstance(e[4], int))


def read(app, set_aside=True):
    # The record on flash, checked; (record, problem): a missing file is a
    # blank record, a damaged one is set aside (unless set_aside is False: a
    # host's request changes no file) and a blank record used.
    try:
        h = app.store.load(NAME)
    except ValueError as e:
        if set_aside:
            app.store.set_aside(NAME)
        return blank(), "health.json set aside: %s" % e
    if h is None:
        return blank(), None
    out = blank()
    for k in ("boot", "crashes", "total"):
        v = h.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            out[k] = v
    out["armed"] = h.get("armed") is True
    c = h.get("crashed")
    out["crashed"] = c if isinstance(c, str) else None
    f = h.get("faults")
    if isinstance(f, list):
        out["faults"] = [e for e in f if _entry_ok(e)][-KEPT:]
    return out, None


def clean(e):
    # An entry as App._on_event made it, fit for the file: kind a string,
    # detail a string (cut to DETAIL_MAX), a number or null.
    k = e[0] if isinstance(e[0], str) else str(e[0])
    d = e[1]
    if not (d is None or isinstance(d, str) or (isinstance(d, int) and not isinstance(d, bool))):
        d = str(d)
    if isinstance(d, str) and len(d) > DETAIL_MAX:
        d = d[:DETAIL_MAX]
    return [k, d, e[2], e[3], e[4]]


def merged(old, new):
    # The ring: old entries, then the new ones (an entry of the same kind and
    # detail as an older one replaces it, its count added), the newest KEPT.
    ring = list(old)
    for e in new:
        e = clean(e)
        for i in range(len(ring)):
            o = ring[i]
            if o[0] == e[0] and o[1] == e[1]:
                e = [e[0], e[1], e[2], e[3], o[4] + e[4]]
                ring.pop(i)
                break
        ring.append(e)
    return ring[-KEPT:]


def write(app, armed=True, crashed=None):
    # The record as the app has it now, written (the run's new faults join
    # the ring). Never raises: a flash that cannot be written must not stop
    # the game or the reset that follows (the write is reported as a fault).
    try:
        h, _ = read(app)
        h["boot"] = app.boot
        h["crashes"] = app.crashes
        h["armed"] = armed
        h["crashed"] = crashed
        h["total"] = app.fault_total
        h["faults"] = merged(h["faults"], app.fault_new)
        app.store.save(NAME, h)
        app.fault_new = []
        return True
    except Exception as e:  # noqa: BLE001 - OSError, or anything from a full flash
        app.fault_new.append(["fault_log", "cannot write health.json: %s" % type(e).__name__,
                              app.boot, 0, 1])
        del app.fault_new[:-KEPT]
        return False


def listing(app):
    # For the host's `faults` request: the record with this run's faults that
    # are not written yet (nothing is written here).
    h, _ = read(app, False)
    ring = merged(h["faults"], app.fault_new)
    out = []
    for e in ring:
        out.append({"kind": e[0], "detail": e[1], "boot": e[2], "ms": e[3], "n": e[4]})
    return {"boot": app.boot, "crashes": app.crashes, "safe_mode": app.safe_mode,
            "total": app.fault_total, "kept": KEPT, "faults": out}
