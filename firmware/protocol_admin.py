# The host protocol's rarely used commands: new, config, selftest, calibrate.
# protocol.Protocol loads this module for one request and drops it again, so
# their code is not in RAM for the rest of a game (as games/settings_schema.py).

from protocol import BadRequest, _arg, _is_int, _rotating, dumps

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

JOG_MIN_MS = const(20)
JOG_MAX_MS = const(3000)


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
    cur_players = getattr(g, "players", None)
    if not _is_int(cur_players):
        cur_players = app.settings.get("players")
    game = _arg(msg, "game", "str", app.game_name)
    players = _arg(msg, "players", "int", cur_players)
    start = _arg(msg, "start", "int", 0)
    options = _arg(msg, "options", "dict", None)
    err = app.request_new_game(game, players, start, options)
    if err is not None:
        raise BadRequest(err)
    return {"game": game, "players": players, "start": start}


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
        if not JOG_MIN_MS <= ms <= JOG_MAX_MS:
            raise BadRequest("ms must be %d..%d" % (JOG_MIN_MS, JOG_MAX_MS))
        if (jog == "pulse") != (ns is not None):
            raise BadRequest("ns goes with jog pulse (and only with it)")
        if proto.busy is not None:
            raise BadRequest("a %s is already running" % proto.busy)
    elif ns is not None:
        raise BadRequest("ns goes with jog pulse (and only with it)")
    if (stop_ns is not None or forward_ns is not None or jog is not None) and \
            service.rotating(proto.app):
        raise BadRequest("the tower is turning: try again after the rotation")
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
    return key in SCHEMA
