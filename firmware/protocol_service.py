# The host's requests that change the board: a new game, a setting, the
# self-test, the servo's calibration and jogs, the service mode. A console
# sends them rarely, so protocol_commands.py loads this module for one such
# request and drops it again: the code answering the requests of every turn
# (state, act) is smaller by this much while it is loaded.

from protocol import dumps
from protocol_commands import BadRequest, _arg, _is_int, _rotating, refuse_while_sensing
from ram import unload

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_JOG_MIN_MS = const(20)
_JOG_MAX_MS = const(3000)


def run(proto, name, coro, done):
    # Run a service coroutine as a task; done(result) publishes the outcome.
    spawn = proto.spawn
    if spawn is None:
        import asyncio
        spawn = asyncio.create_task
    proto.busy = name

    async def task():
        try:
            res = await coro
        except Exception as e:  # noqa: BLE001 - report, never crash the board
            res = {"result": "error", "error": type(e).__name__}
        finally:
            proto.busy = None
        done(res)
    t = task()
    try:
        spawn(t)
    except Exception:  # noqa: BLE001 - no event loop (tests): undo
        proto.busy = None
        t.close()
        coro.close()
        raise BadRequest("cannot start %s now" % name)


def new(proto, msg):
    app = proto.app
    c = app.controller
    g = getattr(c, "game", None)
    cur_players = getattr(g, "n", None)        # every engine's player count
    if not _is_int(cur_players):
        cur_players = app.settings.get("players")
    game = _arg(msg, "game", "str", app.game_name)
    players = _arg(msg, "players", "int", cur_players)
    start = _arg(msg, "start", "int", 0)
    options = _arg(msg, "options", "dict", None)
    err = check_new_game(app, game, players, start)
    if err is not None:
        raise BadRequest(err)
    app.request_new_game(game, players, start, options)
    return {"game": game, "players": players, "start": start}


def check_new_game(app, game, players, start):
    # An error string for a new game the host asks for, or None: the player
    # count is checked against the limits of the game named (the registry's,
    # whichever game is loaded now), before anything changes.
    c = app.controller
    off = getattr(c, "off", None)       # games/halted.py: its pin map is bad
    if off is not None and game == app.game_name:
        return off
    from games.registry import GAMES, players_error
    try:
        if game not in GAMES:
            return "unknown game %r" % (game,)
        err = players_error(game, players)
    finally:
        unload("games.registry")
    if err is not None:
        return err
    if not _is_int(start) or not 0 <= start < players:
        return "start must be 0..%d" % (players - 1)
    return None


def config(proto, msg):
    op = _arg(msg, "op", "str", "get")
    s = proto.app.settings
    if op == "get":
        key = _arg(msg, "key", "str", None)
        if key is None:
            return {"values": s.all()}
        if not _known_setting(key):
            raise BadRequest("unknown setting %s" % dumps(key[:40]))
        return {"key": key, "value": s.get(key)}
    if op != "set":
        raise BadRequest("op must be get or set")
    key = _arg(msg, "key", "str")
    if "value" not in msg:
        raise BadRequest("missing value")
    value = msg["value"]
    if isinstance(value, (list, dict)) or value is None:
        raise BadRequest("value must be a number, a string or true/false")
    if key.startswith("servo.") and _rotating(proto.app):
        raise BadRequest("the tower is turning: try again after the rotation")
    refuse_while_sensing(proto.app)
    err = s.set(key, value)
    if err is not None:
        raise BadRequest(err)
    from games import service
    return {"key": key, "value": s.get(key), "applies": service.apply_setting(proto.app, key)}


def selftest(proto, msg):
    from games import service
    servo = _arg(msg, "servo", "bool", True)
    leds = _arg(msg, "leds", "bool", True)
    if proto.busy is not None:
        raise BadRequest("a %s is already running" % proto.busy)
    if service.rotating(proto.app):
        raise BadRequest("the tower is turning: try again after the rotation")
    refuse_while_sensing(proto.app)
    bus = proto.app.bus
    rid = msg.get("id")

    def done(res):
        res["id"] = rid
        bus.publish(("selftest", res))
    run(proto, "selftest", service.selftest(proto.app, servo, leds), done)
    return {"started": "selftest"}


def calibrate(proto, msg):
    from games import service
    stop_ns = _arg(msg, "stop_ns", "int", None)
    forward_ns = _arg(msg, "forward_ns", "int", None)
    jog = _arg(msg, "jog", "str", None)
    ns = _arg(msg, "ns", "int", None)
    ms = _arg(msg, "ms", "int", 300)
    if jog is not None:
        if jog not in service.JOGS:
            raise BadRequest("jog must be one of %s" % ", ".join(service.JOGS))
        if not _JOG_MIN_MS <= ms <= _JOG_MAX_MS:
            raise BadRequest("ms must be %d..%d" % (_JOG_MIN_MS, _JOG_MAX_MS))
        if (jog == "pulse") != (ns is not None):
            raise BadRequest("ns goes with jog pulse (and only with it)")
        if proto.busy is not None:
            raise BadRequest("a %s is already running" % proto.busy)
    elif ns is not None:
        raise BadRequest("ns goes with jog pulse (and only with it)")
    if (stop_ns is not None or forward_ns is not None or jog is not None) and \
            service.rotating(proto.app):
        raise BadRequest("the tower is turning: try again after the rotation")
    if stop_ns is not None or forward_ns is not None or jog is not None:
        refuse_while_sensing(proto.app)
    if jog is not None:
        # Check the pulse before changing anything.
        err = service.check_jog(proto.app, jog, ns, stop_ns, forward_ns)
        if err is not None:
            raise BadRequest(err)
    if stop_ns is not None or forward_ns is not None:
        err = service.set_calibration(proto.app, stop_ns, forward_ns)
        if err is not None:
            raise BadRequest(err)
    out = {"servo": service.servo_info(proto.app)}
    if jog is not None:
        bus = proto.app.bus
        pulse = service.jog_pulse(proto.app, jog, ns)

        def done(res):
            bus.publish(("jogged", jog, pulse, ms, res.get("result")))
        run(proto, "jog", service.jog(proto.app, pulse, ms, jog), done)
        out["jog"] = jog
        out["ns"] = pulse
        out["ms"] = ms
    return out


def _known_setting(key):
    from games.settings_schema import SCHEMA
    unload("games.settings_schema")
    return key in SCHEMA


_SERVICE_OPS = ("status", "enter", "run", "leave")


def service(proto, msg):
    # The service mode (games/service_mode.py, docs/service-mode.md) from the
    # host: the same steps as with the board's buttons. status (default):
    # whether it is on, its steps and their results; enter: leave the game
    # for it (the game waits as it is); run STEP; leave. Each step's result
    # comes as a ("service", step, result) event.
    op = _arg(msg, "op", "str", "status")
    step = _arg(msg, "step", "str", None)
    if op not in _SERVICE_OPS:
        raise BadRequest("op must be one of %s" % ", ".join(_SERVICE_OPS))
    if (op == "run") != (step is not None):
        raise BadRequest("step goes with op run (and only with it)")
    app = proto.app
    m = app.service
    if op == "status":
        if m is not None:
            return m.status()
        from games.service_mode import steps_for
        try:
            names = [s[0] for s in steps_for(app)]
        finally:
            unload("games.service_mode")
            unload("games.service")
        return {"active": False, "steps": names}
    if op == "enter":
        if m is not None:
            raise BadRequest("the service mode is already on")
        if proto.busy is not None:
            raise BadRequest("a %s is already running" % proto.busy)
        refuse_while_sensing(app)
        err = app.request_service()
        if err is not None:
            raise BadRequest(err)
        return {"started": "service"}
    if m is None:
        raise BadRequest("the service mode is off (op enter, or hold MENU at power-up)")
    err = m.request(op, step)
    if err is not None:
        raise BadRequest(err)
    return {"step": step} if op == "run" else {"left": "service"}
