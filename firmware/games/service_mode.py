# The service mode: bring-up of a new build with its own buttons and LEDs, no
# host needed (docs/service-mode.md). One step per part of the build; LEFT and
# RIGHT move between steps, ROLL runs the step shown, MENU leaves. A host can
# drive the same steps (the protocol's `service` request).
#
# App loads this module only when the mode is entered (MENU held at power-up,
# or the host) and drops it after (ram.py): it costs nothing during play. The
# checks that already serve the host (games/service.py: servo jog, calibration)
# are reused, not repeated here.
#
# Results: ("service", step, result) on the bus for each step run (result
# "ok", "skipped" or what went wrong), a ("fault", "service", "step: why") for
# each failure (so it reaches the fault log), and ("service", "enter", steps)
# / ("service", "leave", summary) around the mode.
#
# LEDs: the first chain's LED number i stands for step i: dim = not run yet,
# green = ok, red = failed, yellow = skipped; the step shown is magenta.
# While a step waits for the maker its LED is blue and turns white while its
# input is active (a beam broken, the notch switch closed, a sensor hit).

import asyncio
from time import ticks_diff, ticks_ms

from devices.panel import LEFT, MENU, RIGHT, ROLL
from games import service

WAIT_MS = 20000         # how long a step waits for the maker to act
ADJUST_MS = 120000      # the stop-pulse step: idle this long gives up (not saved)
POLL_MS = 10
RESULT_MS = 700         # the result colour shown before the cursor comes back
PIXEL_MS = 80           # the LED chain step: each LED lit this long
JOG_MS = 250
STOP_STEP_NS = 5000     # one LEFT/RIGHT press in the stop-pulse step: 5 us
MISMATCH = 2            # drivers/mcp23017.py: answered, did not hold its configuration

DIM = (24, 24, 24)
OK = (0, 255, 0)
FAIL = (255, 0, 0)
SKIP = (255, 160, 0)
CURSOR = (255, 0, 255)
WAIT = (0, 0, 255)
LIVE = (255, 255, 255)
OFF = (0, 0, 0)
BUTTONS = (ROLL, LEFT, RIGHT, MENU)


class Left(Exception):
    # The maker (MENU) or the host ("leave") ends a step that waits.
    pass


def _strips(app):
    # [(name, strip)]: each LED chain of the build once (Haunted House's
    # `strip` is its score chain), named after its part.
    b = getattr(app.controller, "build", None)
    out = []
    seen = []
    for attr in ("score_strip", "spot_strip", "strip"):
        s = getattr(b, attr, None)
        if s is not None and s not in seen:
            seen.append(s)
            out.append((attr[:-6] if attr != "strip" else attr, s))
    return out


def steps_for(app):
    # [(name, kind, arg)] in the order the build is best brought up: inputs
    # first, then what moves, then the lights.
    out = []
    t = service.tower_of(app)
    if t is not None:
        for k in range(len(t.beams.beams)):
            out.append(("beam%d" % (k + 1), "beam", k))
    if service.panel_of(app) is not None:
        out.append(("buttons", "buttons", None))
    if t is not None:
        out.append(("notch", "notch", None))
        if t.servo is not None or t.ratchet is not None:
            out.append(("jog", "jog", None))
        if t.servo is not None:
            out.append(("stop_pulse", "stop", None))
    table = getattr(getattr(app.controller, "build", None), "table", None)
    if table is not None:
        for e in table.expanders:
            out.append(("expander." + e.name, "expander", e))
            for i in range(16):
                ln = e.lines[i]
                if ln is not None:
                    out.append(("sensor." + ln.name, "sensor", (e, i)))
    strips = _strips(app)
    for name, s in strips:
        out.append(("leds" if len(strips) == 1 else "leds." + name, "leds", s))
    return out


class ServiceMode:
    def __init__(self, app):
        self.app = app
        self.bus = app.bus
        self.panel = service.panel_of(app)
        self.steps = steps_for(app)
        self.results = [None] * len(self.steps)
        self.i = 0
        self.running = None         # the name of the step being run
        self.remote = None          # ("run", i) or ("leave",) from the host
        self.extra = {}             # LEDs after the overview: index -> colour
        strips = _strips(app)
        self.strip = strips[0][1] if strips else None

    def names(self):
        return [s[0] for s in self.steps]

    def status(self):
        res = {}
        for k in range(len(self.steps)):
            if self.results[k] is not None:
                res[self.steps[k][0]] = self.results[k]
        return {"active": True, "steps": self.names(), "step": self.steps[self.i][0]
                if self.steps else None, "running": self.running, "results": res}

    # ---- the host's side (protocol `service`) ------------------------------

    def request(self, op, step=None):
        # An error string, or None: the mode carries it out as if from its buttons.
        if op == "leave":
            self.remote = ("leave",)
        elif op == "run":
            names = self.names()
            if step not in names:
                return "no step %r on this build (steps: %s)" % (step, ", ".join(names))
            if self.running is not None:
                return "step %s is running" % self.running
            self.remote = ("run", names.index(step))
        else:
            return "op must be enter, run, leave or status"
        if self.panel is not None:
            self.panel.flag.set()
        return None

    # ---- the step machine ----------------------------------------------------

    async def run(self):
        self.bus.publish(("service", "enter", self.names()))
        try:
            while True:
                self.show()
                act = await self._next()
                if act == ("leave",):
                    break
                if act[0] == "run":
                    self.i = act[1]
                    self.show()
                    await self.run_step(self.i)
                elif act[0] == "move":
                    n = len(self.steps)
                    if n:
                        self.i = (self.i + act[1]) % n
        finally:
            self.running = None
            self.servo_off()
            self._resync()
            self.bus.publish(("service", "leave", self.summary()))
            for _name, s in _strips(self.app):
                s.fill(OFF)         # the game draws its own picture again
                self._write(s)

    async def _next(self):
        # The next navigation: a button, or the host's request.
        p = self.panel
        while True:
            r = self.remote
            if r is not None:
                self.remote = None
                return r
            if p is None:
                await asyncio.sleep_ms(100)
                continue
            name = await p.next_press()
            if self.remote is not None:
                continue
            if name == LEFT:
                return ("move", -1)
            if name == RIGHT:
                return ("move", 1)
            if name == ROLL:
                return ("run", self.i)
            if name == MENU:
                return ("leave",)

    def summary(self):
        ok = []
        bad = {}
        for k in range(len(self.steps)):
            r = self.results[k]
            if r == "ok":
                ok.append(self.steps[k][0])
            elif r is not None and r != "skipped":
                bad[self.steps[k][0]] = r
        return {"ok": ok, "failed": bad,
                "untested": [self.steps[k][0] for k in range(len(self.steps))
                             if self.results[k] is None]}

    async def run_step(self, k):
        name, kind, arg = self.steps[k]
        self.running = name
        self.extra = {}
        if self.panel is not None:
            self.panel.drain()
        try:
            res = await getattr(self, "step_" + kind)(arg)
        except Left:
            res = "skipped"
        finally:
            self.running = None
            self.extra = {}
            self.servo_off()
        self.results[k] = res
        self.bus.publish(("service", name, res))
        if res != "ok" and res != "skipped":
            self.bus.publish(("fault", "service", "%s: %s" % (name, res)))
        self.show(None)             # its result colour, without the cursor, for a moment
        await asyncio.sleep_ms(RESULT_MS)

    # ---- LEDs ----------------------------------------------------------------

    def show(self, cursor=-1, live=None):
        # The overview on the first chain (see the top of this file). cursor:
        # the step shown (-1: self.i; None: none, e.g. while its result shows);
        # live: the colour of the step being run.
        s = self.strip
        if s is None:
            return
        s.fill(OFF)
        n = len(s)
        for k in range(len(self.steps)):
            if k >= n:
                break
            r = self.results[k]
            s[k] = DIM if r is None else OK if r == "ok" else SKIP if r == "skipped" else FAIL
        if cursor == -1:
            cursor = self.i
        if live is not None:
            cursor = None
            if self.i < n:
                s[self.i] = live
        if cursor is not None and cursor < n:
            s[cursor] = CURSOR
        base = len(self.steps) + 1
        for j in self.extra:
            if base + j < n:
                s[base + j] = self.extra[j]
        self._write(s)

    def _extra(self, j, colour):
        # The LEDs just after the overview (one dark LED between): a step's
        # detail (the buttons pressed, the stop pulse's offset).
        self.extra[j] = colour

    def _write(self, s):
        try:
            s.show()
        except OSError:
            pass

    # ---- waiting for the maker ---------------------------------------------------

    async def _poll(self):
        # One poll period; the host's leave or a MENU press ends the step.
        await asyncio.sleep_ms(POLL_MS)
        if self.remote == ("leave",):
            raise Left()

    def _press(self):
        p = self.panel
        return p.take() if p is not None else None

    async def wait_for(self, done, lit, ms=WAIT_MS):
        # Polls done() until it is True; the step's LED is white while lit()
        # (the input is active), else blue. Returns True, or False after ms
        # without it; MENU ends the step.
        t0 = ticks_ms()
        while ticks_diff(ticks_ms(), t0) < ms:
            d = done()
            self.show(live=LIVE if lit() else WAIT)
            if d:
                return True
            if self._press() == MENU:
                raise Left()
            await self._poll()
        return False

    # ---- the steps -------------------------------------------------------------

    async def step_beam(self, k):
        # Break the beam (a finger, a ball): its LED lights while broken.
        b = service.tower_of(self.app).beams.beams[k]

        def blocked():
            return b.rec.level() == b.blocked_level

        def clear():
            return not blocked()

        if blocked():
            if not await self.wait_for(clear, blocked):
                return "blocked all the time (receiver dark or not aligned)"
        if not await self.wait_for(blocked, blocked):
            return "never broken within %d s" % (WAIT_MS // 1000)
        if not await self.wait_for(clear, blocked):
            return "stays blocked after it was broken"
        return "ok"

    async def step_buttons(self, _arg):
        # Press ROLL, LEFT, RIGHT and MENU in that order; the LEDs after the
        # overview show which (blue: press it now, green: seen).
        p = self.panel
        names = [n for n in BUTTONS if n in p.buttons]
        for j in range(len(names)):
            t0 = ticks_ms()
            while True:
                for m in range(len(names)):
                    self._extra(m, OK if m < j else WAIT if m == j else DIM)
                self.show(live=WAIT)
                got = p.take()
                if got == names[j]:
                    break
                if ticks_diff(ticks_ms(), t0) >= WAIT_MS:
                    return "%s: no press within %d s" % (names[j], WAIT_MS // 1000)
                await self._poll()
        return "ok"

    async def step_notch(self, _arg):
        # Turn the tower by hand (or with the jog step) until the switch
        # opens and closes again: its LED is white while closed.
        n = service.tower_of(self.app).notch

        def closed():
            return n.rec.level() == n.active_level

        start = closed()
        if not await self.wait_for(lambda: closed() != start, closed):
            return "the switch never %s within %d s" % ("opened" if start else "closed",
                                                         WAIT_MS // 1000)
        if not await self.wait_for(lambda: closed() == start, closed):
            return "the switch never %s again" % ("closed" if start else "opened")
        return "ok"

    async def step_jog(self, _arg):
        # RIGHT jogs forward, LEFT back (a ratchet: one push), ROLL or MENU
        # ends. ok once the notch switch saw a change during the jogs: the
        # servo turns the tower.
        app = self.app
        t = service.tower_of(app)
        n = t.notch
        before = n.rec.level()
        moved = False
        jogs = 0
        t0 = ticks_ms()
        while ticks_diff(ticks_ms(), t0) < WAIT_MS:
            self.show(live=LIVE if moved else WAIT)
            got = self._press()
            if got == ROLL or got == MENU:
                break
            if got == RIGHT or (got == LEFT and t.servo is not None):
                kind = "forward" if got == RIGHT else "reverse"
                await service.jog(app, service.jog_pulse(app, kind), JOG_MS, kind)
                jogs += 1
                t0 = ticks_ms()
            if n.rec.level() != before:
                moved = True
            await self._poll()
        if not jogs:
            return "skipped"
        return "ok" if moved else "the notch switch saw no change in %d jogs" % jogs

    async def step_stop(self, _arg):
        # The servo gets its stop pulse; LEFT/RIGHT change it by 5 us until
        # the tower holds still; ROLL saves it (servo.stop_ns), MENU leaves
        # it unsaved. The LEDs after the overview show the offset from the
        # saved value (one per 5 us: blue below, red above); the step's LED is
        # white while the notch switch is closed.
        app = self.app
        s = service.tower_of(app).servo
        n = service.tower_of(app).notch
        lo, hi = service._limits(app, s)
        saved = s.stop_ns
        v = saved
        t0 = ticks_ms()
        while True:
            s.pulse_ns = s.clamp(v)
            s.pwm.duty_ns(s.pulse_ns)
            d = (v - saved) // STOP_STEP_NS
            for j in range(8):
                self._extra(j, OFF if j >= (d if d > 0 else -d) else (FAIL if d > 0 else WAIT))
            self.show(live=LIVE if n.rec.level() == n.active_level else WAIT)
            got = self._press()
            if got == ROLL:
                break
            if got == MENU:
                raise Left()
            if got == LEFT and v - STOP_STEP_NS >= lo:
                v -= STOP_STEP_NS
            elif got == RIGHT and v + STOP_STEP_NS <= hi:
                v += STOP_STEP_NS
            if got is not None:
                t0 = ticks_ms()
            elif ticks_diff(ticks_ms(), t0) >= ADJUST_MS:
                return "skipped"
            await self._poll()
        s.off()
        err = service.set_calibration(app, stop_ns=v)
        return "ok" if err is None else err

    async def step_leds(self, strip):
        # Each LED in turn, white at the brightness the game uses (capped by
        # the supply budget: drivers/pixels.py), then the overview again.
        f0 = strip.failures
        for i in range(len(strip)):
            strip.fill(OFF)
            strip[i] = LIVE
            self._write(strip)
            await self._poll()
            await asyncio.sleep_ms(PIXEL_MS - POLL_MS)
        strip.fill(OFF)
        self._write(strip)
        n = strip.failures - f0
        return "ok" if n == 0 else "%d LED writes failed" % n

    async def step_expander(self, e):
        # The chip answers and takes its configuration (read back).
        c = e.chip
        if c.configure() and c.check():
            return "ok"
        if c.status == MISMATCH:
            return "answers at 0x%02x but does not keep its configuration" % c.addr
        return "no answer at 0x%02x" % c.addr

    async def step_sensor(self, ei):
        # Hit the sensor (a ball, a finger): its LED lights while active.
        e, i = ei
        c = e.chip
        if not c.ok and not c.configure():
            return "its expander %s does not answer" % e.name
        bad = [0]

        def active():
            v = c.read_inputs()
            if v < 0:
                bad[0] += 1
                return False
            return bool(v >> i & 1)

        if active():
            if not await self.wait_for(lambda: not active(), active):
                return "active all the time"
        if not await self.wait_for(active, active):
            if bad[0]:
                return "its expander %s stopped answering" % e.name
            return "never active within %d s" % (WAIT_MS // 1000)
        return "ok"

    # ---- every way out -------------------------------------------------------------

    def _resync(self):
        # The steps read and reconfigured the expanders behind the table's
        # back: it configures them and learns their levels again, as at
        # power-up, before its task runs again.
        table = getattr(getattr(self.app.controller, "build", None), "table", None)
        if table is not None:
            try:
                table.start()
            except Exception:  # noqa: BLE001 - on the way out: keep going
                pass

    def servo_off(self):
        t = service.tower_of(self.app)
        if t is None:
            return
        for s in (t.servo, t.ratchet):
            if s is not None:
                try:
                    s.off()
                except Exception:  # noqa: BLE001 - on the way out: keep going
                    pass
