# The host protocol's requests: each line parsed, checked and answered, and
# the commands a console sends all game (hello, state, events, legal, act,
# faults). A host sends them now and then, at a person's pace, so
# protocol.Protocol loads this module for the requests in one chunk of input
# and drops it again: this code is not in RAM while a game runs (as
# games/settings_schema.py). The commands that change the board (new, config,
# selftest, calibrate, service) are in protocol_service.py, loaded only for
# them: the heap's peak while a host is answered is this module's size, and
# state comes every turn (docs/performance.md). Every argument is checked
# before anything changes.

import json

from protocol import MAX_LINE, dumps
from ram import unload

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

PROTOCOL = const(1)          # bumped on incompatible changes
_MAX_ID = const(64)          # longest string id echoed back

COMMANDS = ("hello", "state", "legal", "act", "new", "config", "selftest", "calibrate",
            "events", "faults", "service")
_SERVICE_COMMANDS = ("new", "config", "selftest", "calibrate", "service")

_NONE = ()                   # marker: optional argument not given


class BadRequest(Exception):
    pass


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def reply_ok(rid, body):
    d = {"ok": True, "id": rid}
    if body:
        for k in body:
            d[k] = body[k]
    return (dumps(d) + "\n").encode()


def reply_error(rid, text):
    return (dumps({"ok": False, "id": rid, "error": text}) + "\n").encode()


def handle_line(proto, line):
    # One request line (without its newline; None: one that was longer than
    # MAX_LINE, dropped by Protocol.feed); returns the reply lines.
    try:
        if line is None:
            proto.lines += 1
            raise BadRequest("line too long (max %d bytes)" % MAX_LINE)
        line = line.strip()
        if not line:
            return []
        proto.lines += 1
        if len(line) > MAX_LINE:
            raise BadRequest("line too long (max %d bytes)" % MAX_LINE)
        try:
            msg = json.loads(line.decode())
        except ValueError:
            raise BadRequest("not valid JSON")
        if not isinstance(msg, dict):
            raise BadRequest("a request must be a JSON object")
    except BadRequest as e:
        proto.errors += 1
        return [reply_error(None, str(e))]
    except Exception:  # noqa: BLE001 - e.g. RecursionError on deep nesting (CPython)
        proto.errors += 1
        return [reply_error(None, "not valid JSON")]
    rid = msg.get("id")
    if not (rid is None or _is_int(rid) or (isinstance(rid, str) and len(rid) <= _MAX_ID)):
        proto.errors += 1
        return [reply_error(None, "id must be a number or a string of up to %d characters"
                            % _MAX_ID)]
    try:
        v = msg.get("v")
        if v is not None and (not _is_int(v) or v != PROTOCOL):
            raise BadRequest("protocol version %s not supported: this board speaks %d"
                             % (dumps(v)[:16], PROTOCOL))
        cmd = msg.get("cmd")
        if not isinstance(cmd, str):
            raise BadRequest("cmd must be a string")
        if cmd not in COMMANDS:
            raise BadRequest("unknown command %s" % dumps(cmd[:32]))
        if cmd in _SERVICE_COMMANDS:
            body = _service_command(cmd, proto, msg)
        else:
            body = globals()[cmd](proto, msg)     # each command is a function below
    except BadRequest as e:
        proto.errors += 1
        return [reply_error(rid, str(e))]
    except Exception as e:  # noqa: BLE001 - a request must never stop the firmware
        proto.errors += 1
        return [reply_error(rid, "internal error: %s" % type(e).__name__)]
    return [reply_ok(rid, body)]


def _controller(proto):
    c = proto.app.controller
    if c is None:
        raise BadRequest("no game loaded")
    return c


def _prompt(proto):
    d = getattr(proto.app.controller, "decider", None)
    cur = d.current if d is not None else None
    if cur is None:
        return None
    return {"kind": cur[0], "player": cur[1], "options": cur[2]}


def _rotating(app):
    t = getattr(app.controller, "tower", None)
    return bool(t is not None and t.turning)


def refuse_while_sensing(app):
    # Requests that write the flash or drive the hardware (config set,
    # calibrate, selftest, jog) wait while the game's sensors are live: the
    # rp2 port erases and programs the flash with interrupts off, so a beam
    # pulse could be lost. The controller says when and why (sensors_live).
    live = getattr(app.controller, "sensors_live", None)
    why = live() if live is not None else None
    if why is not None:
        raise BadRequest(why)


def _arg(msg, key, kind, default=_NONE):
    # One argument of a request, type-checked. null counts as not given.
    v = msg.get(key)
    if v is None:
        if default is _NONE:
            raise BadRequest("missing %s" % key)
        return default
    if kind == "int":
        ok = _is_int(v)
        what = "a whole number"
    elif kind == "str":
        ok = isinstance(v, str)
        what = "a string"
    elif kind == "bool":
        ok = isinstance(v, bool)
        what = "true or false"
    elif kind == "list":
        ok = isinstance(v, list)
        what = "a list"
    else:
        ok = isinstance(v, dict)
        what = "an object"
    if not ok:
        raise BadRequest("%s must be %s" % (key, what))
    return v


def to_action(v):
    # A JSON action (list of str/int/null, or lists of those) as the engine's tuple.
    out = []
    for x in v:
        if isinstance(x, list):
            inner = []
            for y in x:
                if not (y is None or isinstance(y, str) or _is_int(y)):
                    raise BadRequest("action items must be strings, numbers or null")
                inner.append(y)
            out.append(tuple(inner))
        elif x is None or isinstance(x, str) or _is_int(x):
            out.append(x)
        else:
            raise BadRequest("action items must be strings, numbers or null")
    return tuple(out)


def read_build_id(root):
    # The build id `hauntbox flash` wrote (data/build.json); "dev" without one.
    try:
        with open(root + "data/build.json") as f:
            info = json.load(f)
        b = info.get("build") if isinstance(info, dict) else None
        return b if isinstance(b, str) else "dev"
    except Exception:  # noqa: BLE001 - missing or broken file: a development build
        return "dev"


def _firmware_version(app):
    # App.VERSION (app.py); a stand-in app without one reports "?".
    return getattr(app, "VERSION", None) or "?"


def _game_names():
    # The games this firmware has (the registry is loaded for it and dropped).
    from games.registry import GAMES
    unload("games.registry")
    return GAMES


def _health(app, d):
    # The fault log's summary (faultlog.py) into reply d: boot number, resets
    # in a row, why the game is off (or null), faults so far and the latest.
    d["boot"] = getattr(app, "boot", 0)
    d["crashes"] = getattr(app, "crashes", 0)
    d["safe_mode"] = getattr(app, "safe_mode", None)
    d["fault_count"] = getattr(app, "fault_total", 0)
    e = getattr(app, "fault_last", None)
    d["last_fault"] = None if e is None else {"kind": e[0], "detail": e[1], "boot": e[2],
                                              "ms": e[3], "n": e[4]}
    return d


def hello(proto, msg):
    app = proto.app
    return _health(app, {"proto": PROTOCOL, "firmware": _firmware_version(app),
                         "build": read_build_id(getattr(app, "root", "")),
                         "game": app.game_name, "games": sorted(_game_names()),
                         "max_line": MAX_LINE, "events": proto.events_on, "seq": proto.seq,
                         "dropped": proto.dropped})


def faults(proto, msg):
    # The fault log: the ring on flash with this run's faults not yet written.
    app = proto.app
    if getattr(app, "store", None) is None:
        raise BadRequest("no fault log on this board")
    import faultlog
    try:
        return faultlog.listing(app)
    finally:
        unload("faultlog")


def state(proto, msg):
    c = _controller(proto)
    app = proto.app
    g = getattr(c, "game", None)
    over = None
    if g is not None:
        over = g.is_over()
    return _health(app, {"game": app.game_name, "state": c.public_state(),
                         "prompt": _prompt(proto), "over": over, "rotating": _rotating(app),
                         "turns": getattr(c, "turns", 0), "faults": getattr(c, "faults", 0),
                         "busy": proto.busy, "seq": proto.seq, "dropped": proto.dropped,
                         "events": proto.events_on})


def events(proto, msg):
    on = _arg(msg, "on", "bool", None)
    if on is not None:
        proto.events_on = on
        if not on:
            proto.queue = []
    return {"events": proto.events_on, "seq": proto.seq, "dropped": proto.dropped}


def legal(proto, msg):
    p = _prompt(proto)
    if p is None:
        return {"kind": None, "player": None, "options": []}
    return p


def act(proto, msg):
    c = _controller(proto)
    d = getattr(c, "decider", None)
    if d is None:
        raise BadRequest("this game takes no decisions from the host")
    index = _arg(msg, "index", "int", None)
    action = _arg(msg, "action", "list", None)
    player = _arg(msg, "player", "int", None)
    if (index is None) == (action is None):
        raise BadRequest("give either action or index")
    if action is not None:
        if not action:
            raise BadRequest("action must not be empty")
        action = to_action(action)
    cur = d.current
    if cur is None:
        raise BadRequest("no decision is pending")
    kind, who, options = cur
    if player is not None and player != who:
        raise BadRequest("the pending decision is player %d's, not player %d's"
                         % (who, player))
    if d.pending():
        raise BadRequest("the previous choice is still being applied")
    if index is not None:
        if not 0 <= index < len(options):
            raise BadRequest("index must be 0..%d" % (len(options) - 1))
        action = options[index]
    elif action not in options:
        raise BadRequest("not one of the offered options")
    err = d.offer(action)
    if err is not None:
        raise BadRequest(err)
    return {"kind": kind, "player": who, "action": action}


def _service_command(cmd, proto, msg):
    # protocol_service.py for this request only (it imports this module's
    # checks, hence the lazy import: tests/test_firmware_imports.py).
    import protocol_service
    try:
        return getattr(protocol_service, cmd)(proto, msg)
    finally:
        unload("protocol_service")
