# Service helpers behind the host protocol: a sensor snapshot, the self-test,
# servo calibration and jog, and applying a changed setting to the running
# hardware. They take the app and find the hardware on its controller
# (controller.tower, controller.build.strip, controller.decider.panel), so a
# game without a tower simply reports "absent".
#
# None of them may disturb a running game: the servo is only touched while the
# tower is not turning, and whenever a rotation starts during a test or a jog
# the helper stops writing to the servo and leaves it to the game.

import asyncio

JOGS = ("forward", "reverse", "stop", "pulse")
SERVO_TEST_MS = 300
LED_STEP_MS = 150
LED_PATTERN = ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255))


def tower_of(app):
    return getattr(app.controller, "tower", None)


def strip_of(app):
    return getattr(getattr(app.controller, "build", None), "strip", None)


def panel_of(app):
    c = app.controller
    p = getattr(c, "panel", None)
    if p is None:
        d = getattr(c, "decider", None)
        p = getattr(d, "panel", None)
    return p


def rotating(app):
    t = tower_of(app)
    return bool(t is not None and t.turning)


# ---- sensors ------------------------------------------------------------

def sensors(app):
    # What every input reads right now. Beams: "clear", "blocked" or "stuck"
    # (blocked for longer than the stuck time). Notch: "closed" at a notch.
    out = {}
    t = tower_of(app)
    if t is not None:
        beams = []
        for b in t.beams.beams:
            if b.stuck:
                beams.append("stuck")
            elif b.rec.level() == b.blocked_level:
                beams.append("blocked")
            else:
                beams.append("clear")
        out["beams"] = beams
        n = t.notch
        n.update()
        # The level right now (not the debounced one): a self-test wants the truth.
        out["notch"] = "closed" if n.rec.level() == n.active_level else "open"
        if t.reservoir is None:
            out["reservoir"] = "absent"
        else:
            out["reservoir"] = "full" if t.reservoir_full() else "missing balls"
    p = panel_of(app)
    if p is not None:
        buttons = {}
        for name in p.buttons:
            buttons[name] = "pressed" if p.held(name) else "released"
        out["buttons"] = buttons
    return out


def sensor_problems(snap, turning=False):
    # Readings that are wrong for a tower at rest, as short strings.
    bad = []
    beams = snap.get("beams", ())
    for k in range(len(beams)):
        if beams[k] != "clear":
            bad.append("beam %d %s" % (k + 1, beams[k]))
    if not turning and snap.get("notch") == "open":
        bad.append("notch switch open at rest")
    buttons = snap.get("buttons", {})
    for name in buttons:
        if buttons[name] == "pressed":
            bad.append("button %s held" % name)
    if snap.get("reservoir") == "missing balls":
        bad.append("reservoir missing balls")
    return bad


# ---- self-test ----------------------------------------------------------

async def servo_test(app, ms=SERVO_TEST_MS):
    # The servo gets its stop pulse for a moment: a well calibrated servo holds
    # still, so the notch switch must see no edge ("creep" otherwise).
    t = tower_of(app)
    if t is None or (t.servo is None and t.ratchet is None):
        return {"result": "absent"}
    if t.turning:
        return {"result": "skipped", "why": "tower turning"}
    n = t.notch
    n.update()
    edges = n.edges
    before = n.rec.level()
    if t.servo is not None:
        s = t.servo
        s.stop()
    else:
        s = t.ratchet
        s.move(s.rest_deg)
    pulse = s.pulse_ns
    await asyncio.sleep_ms(ms)
    if t.turning:
        return {"result": "interrupted", "pulse_ns": pulse}
    n.update()
    moved = n.edges != edges or n.rec.level() != before
    s.off()
    return {"result": "creep" if moved else "ok", "pulse_ns": pulse, "ms": ms}


async def led_test(app, step_ms=LED_STEP_MS):
    # Every LED red, green, blue, white in turn, then the game picture again.
    strip = strip_of(app)
    if strip is None:
        return {"result": "absent"}
    f0 = strip.failures
    for c in LED_PATTERN:
        strip.fill(c)
        try:
            strip.show()
        except OSError:
            pass
        await asyncio.sleep_ms(step_ms)
    restore(app)
    n = strip.failures - f0
    return {"result": "ok" if n == 0 else "write failed", "leds": len(strip), "failures": n}


def restore(app):
    # Every game's controller draws its own board (render()); each display's
    # render takes that game's own arguments.
    c = app.controller
    g = getattr(c, "game", None)
    draw = getattr(c, "render", None)
    if draw is not None and g is not None:
        draw()
        return
    strip = strip_of(app)
    if strip is not None:
        strip.fill((0, 0, 0))
        try:
            strip.show()
        except OSError:
            pass


async def selftest(app, servo=True, leds=True):
    snap = sensors(app)
    res = {"sensors": snap}
    problems = sensor_problems(snap, rotating(app))
    res["servo"] = (await servo_test(app)) if servo else {"result": "skipped"}
    res["leds"] = (await led_test(app)) if leds else {"result": "skipped"}
    for part in ("servo", "leds"):
        r = res[part]["result"]
        if r not in ("ok", "skipped", "absent"):
            problems.append("%s %s" % (part, r))
    res["problems"] = problems
    res["result"] = "ok" if not problems else "problems"
    return res


# ---- servo calibration ----------------------------------------------------

def servo_info(app):
    t = tower_of(app)
    if t is None:
        return {"type": None}
    s = t.servo
    if s is not None:
        return {"type": "continuous", "stop_ns": s.stop_ns, "forward_ns": s.forward_ns,
                "min_ns": s.min_ns, "max_ns": s.max_ns, "pulse_ns": s.pulse_ns}
    r = t.ratchet
    if r is not None:
        return {"type": "ratchet", "min_ns": r.min_ns, "max_ns": r.max_ns,
                "rest_deg": r.rest_deg, "push_deg": r.push_deg, "pulse_ns": r.pulse_ns}
    return {"type": None}


def _limits(app, s):
    # Hard limits: the servo's own clamp range within the saved settings' range.
    st = app.settings
    lo = st.get("servo.min_ns", 1000000)
    hi = st.get("servo.max_ns", 2000000)
    if s.min_ns > lo:
        lo = s.min_ns
    if s.max_ns < hi:
        hi = s.max_ns
    return lo, hi


def check_calibration(app, stop_ns=None, forward_ns=None):
    t = tower_of(app)
    s = t.servo if t is not None else None
    if s is None:
        return "no continuous-rotation servo to calibrate"
    lo, hi = _limits(app, s)
    for name, v in (("stop_ns", stop_ns), ("forward_ns", forward_ns)):
        if v is not None and not lo <= v <= hi:
            return "%s must be within %d..%d ns" % (name, lo, hi)
    stop = s.stop_ns if stop_ns is None else stop_ns
    fwd = s.forward_ns if forward_ns is None else forward_ns
    if stop == fwd:
        return "forward_ns must differ from stop_ns"
    return None


def set_calibration(app, stop_ns=None, forward_ns=None):
    # Validated first, so a bad value changes nothing; saved in the settings
    # (servo.stop_ns / servo.forward_ns) and applied to the servo at once.
    err = check_calibration(app, stop_ns, forward_ns)
    if err is not None:
        return err
    st = app.settings
    s = tower_of(app).servo
    for key, v in (("servo.stop_ns", stop_ns), ("servo.forward_ns", forward_ns)):
        if v is not None:
            err = st.set(key, v)
            if err is not None:
                return err
    if stop_ns is not None:
        s.stop_ns = s.clamp(stop_ns)
    if forward_ns is not None:
        s.forward_ns = s.clamp(forward_ns)
    return None


def check_jog(app, jog, ns=None, stop_ns=None, forward_ns=None):
    t = tower_of(app)
    if t is None or (t.servo is None and t.ratchet is None):
        return "no servo on this build"
    if t.servo is None:
        if jog != "forward" and jog != "stop":
            return "a ratchet only jogs forward (one push) or stop"
        return None
    if stop_ns is not None or forward_ns is not None:
        err = check_calibration(app, stop_ns, forward_ns)
        if err is not None:
            return err
    if jog == "pulse":
        lo, hi = _limits(app, t.servo)
        if not lo <= ns <= hi:
            return "ns must be within %d..%d ns" % (lo, hi)
    return None


def jog_pulse(app, jog, ns=None):
    t = tower_of(app)
    s = t.servo
    if s is None:
        r = t.ratchet
        return r.pulse_for(r.push_deg if jog == "forward" else r.rest_deg)
    if jog == "forward":
        return s.forward_ns
    if jog == "reverse":
        return s.clamp(2 * s.stop_ns - s.forward_ns)
    if jog == "stop":
        return s.stop_ns
    return s.clamp(ns)


async def jog(app, pulse, ms, kind="pulse"):
    # Drive the servo with one pulse width for ms, then stop and relax it.
    t = tower_of(app)
    if t.turning:
        return {"result": "skipped"}
    s = t.servo
    if s is None:
        r = t.ratchet
        r.move(r.push_deg if kind == "forward" else r.rest_deg)
        await asyncio.sleep_ms(ms)
        if t.turning:
            return {"result": "interrupted"}
        r.move(r.rest_deg)
        await asyncio.sleep_ms(100)
        if not t.turning:
            r.off()
        return {"result": "ok"}
    s.pulse_ns = s.clamp(pulse)
    s.pwm.duty_ns(s.pulse_ns)
    await asyncio.sleep_ms(ms)
    if t.turning:
        return {"result": "interrupted"}
    s.stop()
    await asyncio.sleep_ms(50)
    if not t.turning:
        s.off()
    return {"result": "ok"}


# ---- settings ---------------------------------------------------------------

def apply_setting(app, key):
    # Push a changed setting into the running hardware where that is safe.
    # Returns "now" or "restart" (read when the game is loaded at power-up).
    v = app.settings.get(key)
    t = tower_of(app)
    if key == "settle_ms" and t is not None:
        t.settle_ms = v
        return "now"
    if key == "brightness":
        strip = strip_of(app)
        if strip is not None:
            strip.brightness = v
            restore(app)
            return "now"
    if key in ("servo.stop_ns", "servo.forward_ns") and t is not None and t.servo is not None:
        s = t.servo
        if s.min_ns <= v <= s.max_ns:
            if key == "servo.stop_ns":
                s.stop_ns = v
            else:
                s.forward_ns = v
            return "now"
    return "restart"
