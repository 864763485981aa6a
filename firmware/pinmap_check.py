# The rules of a pin map (boards/<build>.json), in one place: the board checks
# its map with them at boot (board.load_pinmap), before any pin is touched, and
# the host tools (`hauntbox pins`, `hauntbox flash`: host/hauntbox/pinmap.py)
# import this same file and add their wiring advice on top (PWM slices sharing
# a counter, the LED current budget, chip address ranges, part texts).
#
# check(pm, build) returns a list of problems, each "<key>: <problem>" naming
# the key the way the file spells it ("pins.beam3", "pixels.count"); [] when
# the builds can be wired from the map without a KeyError, a wrong type, a
# division by zero, an LED index outside a chain or a pin the chip lacks.
# Loaded at boot only and dropped again (ram.unload): it costs no RAM in play.
# Limits the docs leave open are in LIMITS (see docs/assumptions/pin-maps.md).

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

MAX_DEPTH = const(8)        # the maps nest 5 deep; a deeper file is refused unread
MAX_PLAYERS = const(4)

BOARDS = ("pico", "pico_w", "pico2", "pico2_w")
KINDS = ("input", "output", "pwm", "neopixel", "i2c_sda", "i2c_scl", "adc")
PIN_KEYS = ("gpio", "kind", "part", "pull", "active", "freq", "optional", "bus", "comment",
            "note")
ORDERS = ("RGB", "GRB", "RGBW", "GRBW", "BRG", "RBG")
# GPIOs the Pico wires on the board itself (not on its header).
RESERVED = {23: "SMPS power-save pin", 24: "VBUS sense", 25: "on-board LED",
            29: "VSYS/3 ADC input"}
# GPIOs that can carry each I2C controller's SDA / SCL.
I2C_SDA = ((0, 4, 8, 12, 16, 20), (2, 6, 10, 14, 18, 26))
I2C_SCL = ((1, 5, 9, 13, 17, 21), (3, 7, 11, 15, 19, 27))
ADC_GPIOS = (26, 27, 28)
BUTTONS = ("btn_roll", "btn_left", "btn_right", "btn_menu")

# LEDs per chain: a write runs with interrupts off, ~30 us per LED (256: ~8 ms).
MAX_PIXELS = const(256)
MAX_MA_PER_LED = const(100)     # WS2812B: 60 mA at full white; SK6812 RGBW: 80
MAX_BUDGET_MA = const(10000)
# (block, key, lowest, highest): whole numbers the builds read. The defaults
# the firmware uses for a missing key are in the builds themselves.
LIMITS = (
    ("buttons", "debounce_ms", 0, 1000),
    ("beams", "min_pulse_us", 1, 1000000),
    ("beams", "gap_us", 1, 1000000),
    ("beams", "stuck_ms", 1, 600000),
    ("beams", "long_us", 1, 600000000),
    ("beams", "odd_us", 1, 1000000),
    ("beams", "doubt_glitches", 1, 100000),
    ("notch", "debounce_ms", 0, 1000),
    ("servo", "notch_timeout_ms", 1, 60000),
    ("servo", "backoff_ms", 0, 10000),
    ("table", "place_ms", 1, 600000),
    ("table", "window_max_ms", 1, 600000),
    ("table", "retry_ms", 1, 600000),
    ("table", "check_ms", 1, 600000),
    ("table", "doubt_glitches", 1, 100000),
)
SERVO_MIN_NS = 500000      # any hobby servo: 0.5..2.5 ms (drivers/servo.py)
SERVO_MAX_NS = 2500000

# Each build: the pins it opens (name, kind) and the LED segments of its chain
# (the "<x>_from" key, LEDs in the segment; 0: at least one).
BUILDS = {
    "roller-ghoster": {
        "pins": (("servo", "pwm"), ("notch", "input"), ("pixels", "neopixel"),
                 ("beam1", "input"), ("beam2", "input"), ("beam3", "input"),
                 ("beam4", "input")) + tuple((b, "input") for b in BUTTONS),
        "optional": (("reservoir", "input"), ("emitters", "output")),
        "segments": (("steps_from", 0), ("trenches_from", 4), ("die_from", 6),
                     ("players_from", MAX_PLAYERS)),
    },
    "haunted-house": {
        "pins": tuple((b, "input") for b in BUTTONS),
    },
    "companion": {
        "pins": (("pixels", "neopixel"),) + tuple((b, "input") for b in BUTTONS),
    },
}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _simple(s):
    for c in s:
        if not ("a" <= c <= "z" or "A" <= c <= "Z" or "0" <= c <= "9" or c == "_" or c == "-"):
            return False
    return True


def word(n):
    # One key as the file spells it; a name that is not a plain word is quoted
    # (repr escapes control characters).
    if isinstance(n, str) and n and len(n) <= 40 and _simple(n):
        return n
    return repr(n)[:42]


def key(path, *names):
    # "pins.beam3", "i2c.devices[0].inputs": a key below `path`.
    for n in names:
        if _is_int(n):
            path = "%s[%d]" % (path, n)
        else:
            path = path + "." + word(n) if path else word(n)
    return path


def show(v):
    # A value in a message: short, one line.
    t = repr(v)
    return t if len(t) <= 40 else t[:37] + "..."


def depth_ok(x, limit=MAX_DEPTH):
    # Without recursion: a deeply nested file must not exhaust the stack.
    stack = [(x, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        elif not isinstance(v, list):
            continue
        if d > limit:
            return False
        for c in v:
            stack.append((c, d + 1))
    return True


def whole(out, block, k, path, lo, hi, need=False):
    # block[k] if it is a whole number within lo..hi; else None (and a problem).
    if not isinstance(block, dict) or k not in block:
        if need:
            out.append("%s: missing (a whole number %d..%d)" % (key(path, k), lo, hi))
        return None
    v = block[k]
    if _is_int(v) and lo <= v <= hi:
        return v
    out.append("%s: must be a whole number %d..%d, not %s" % (key(path, k), lo, hi, show(v)))
    return None


def _block(out, pm, name, need=False):
    b = pm.get(name)
    if b is None:
        if need:
            out.append("%s: missing (an object)" % name)
        return None
    if not isinstance(b, dict):
        out.append("%s: must be an object, not %s" % (name, show(b)))
        return None
    return b


def _pin(out, name, spec):
    path = key("pins", name)
    if not isinstance(spec, dict):
        out.append("%s: must be an object with gpio and kind" % path)
        return
    for k in sorted(spec):
        if k not in PIN_KEYS:
            out.append("%s: unknown key %s (allowed: %s)" % (path, show(k), ", ".join(PIN_KEYS)))
    for k in ("gpio", "kind"):
        if k not in spec:
            out.append("%s: missing required key %s" % (path, show(k)))
    g = spec.get("gpio")
    if "gpio" in spec:
        if not _is_int(g):
            out.append("%s.gpio: must be a whole number, not %s" % (path, show(g)))
            g = None
        elif g in RESERVED:
            out.append("%s.gpio: GP%d cannot be used: it is the Pico's %s (not on the header)"
                       % (path, g, RESERVED[g]))
            g = None
        elif not 0 <= g <= 29:
            out.append("%s.gpio: GP%d does not exist (the RP2040 has GP0-GP29; the header "
                       "brings out GP0-GP22 and GP26-GP28)" % (path, g))
            g = None
    kind = spec.get("kind")
    if "kind" in spec and kind not in KINDS:
        out.append("%s.kind: unknown kind %s (valid kinds: %s)" % (path, show(kind),
                                                                  ", ".join(KINDS)))
        return
    if "optional" in spec and not isinstance(spec["optional"], bool):
        out.append("%s.optional: must be true or false" % path)
    if "pull" in spec and spec["pull"] not in ("up", "down", None):
        out.append("%s.pull: must be \"up\", \"down\" or null, not %s" % (path, show(spec["pull"])))
    if "active" in spec and not (_is_int(spec["active"]) and spec["active"] in (0, 1)):
        out.append("%s.active: must be 0 (active low) or 1 (active high), not %s"
                   % (path, show(spec["active"])))
    if kind is not None and kind not in ("input", "i2c_sda", "i2c_scl"):
        for k in ("pull", "active"):
            if k in spec:
                out.append("%s.%s: only applies to input pins, not %s" % (path, k, kind))
    if kind == "pwm":
        f = spec.get("freq", 50)
        if not (_is_int(f) and 8 <= f <= 62500000):
            out.append("%s.freq: PWM freq must be a whole number of Hz 8..62500000, not %s"
                       % (path, show(f)))
    elif "freq" in spec:
        out.append("%s.freq: only applies to pwm pins, not %s" % (path, kind))
    if kind == "i2c_sda" or kind == "i2c_scl":
        bus = spec.get("bus")
        if not (_is_int(bus) and bus in (0, 1)):
            out.append("%s.bus: %s needs \"bus\": 0 or 1 (I2C0 or I2C1), not %s"
                       % (path, kind, show(bus)))
        elif g is not None:
            can = (I2C_SDA if kind == "i2c_sda" else I2C_SCL)[bus]
            if g not in can:
                out.append("%s.gpio: GP%d cannot carry I2C%d %s; I2C%d %s pins: %s"
                           % (path, g, bus, kind[4:].upper(), bus, kind[4:].upper(),
                              ", ".join("GP%d" % x for x in can)))
    elif "bus" in spec:
        out.append("%s.bus: only applies to i2c_sda/i2c_scl pins, not %s" % (path, kind))
    if kind == "adc" and g is not None and g not in ADC_GPIOS:
        out.append("%s.gpio: GP%d has no ADC input (ADC pins: GP26, GP27, GP28)" % (path, g))


def _pins(out, pm):
    pins = pm.get("pins")
    if not isinstance(pins, dict) or not pins:
        if "pins" in pm:
            out.append("pins: must be a non-empty object of name -> pin")
        return {}
    users = {}
    for name in sorted(pins):
        spec = pins[name]
        _pin(out, name, spec)
        g = spec.get("gpio") if isinstance(spec, dict) else None
        if _is_int(g):
            if g in users:
                out.append("%s.gpio: GP%d is used twice: by %s and %s"
                           % (key("pins", name), g, word(users[g]), word(name)))
            else:
                users[g] = name
    return pins


def pin_of(out, pins, path, name, kind):
    # A key naming a pin of the map (e.g. pixels.score.pin): it must be one, of
    # this kind.
    spec = pins.get(name) if isinstance(name, str) else None
    if not isinstance(spec, dict):
        out.append("%s: %s is not a pin of the map" % (path, show(name)))
        return False
    if spec.get("kind") != kind:
        out.append("%s: pin %s must have kind %s, not %s" % (path, word(name), kind,
                                                              show(spec.get("kind"))))
        return False
    return True


def _need_pins(out, pins, build, spec):
    for name, kind in spec.get("pins", ()):
        if name not in pins:
            out.append("%s: missing: the %s build needs a pin named %s (kind %s)"
                       % (key("pins", name), build, name, kind))
        else:
            pin_of(out, pins, key("pins", name, "kind"), name, kind)
    for name, kind in spec.get("optional", ()):
        if name in pins:
            pin_of(out, pins, key("pins", name, "kind"), name, kind)


def _pixels(out, path, px, need_count=True):
    # A chain block: count, current figures, colour order, segment starts.
    if px is None:
        return None
    count = whole(out, px, "count", path, 1, MAX_PIXELS, need_count)
    for k, hi in (("max_ma_per_led", MAX_MA_PER_LED), ("budget_ma", MAX_BUDGET_MA)):
        if k in px:
            v = px[k]
            if not (isinstance(v, (int, float)) and not isinstance(v, bool) and 1 <= v <= hi):
                out.append("%s: must be a number of mA 1..%d, not %s" % (key(path, k), hi, show(v)))
    for k in ("brightness", "max_brightness"):
        if k in px:
            v = px[k]
            if not (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1):
                out.append("%s: must be within 0..1, not %s" % (key(path, k), show(v)))
    if "order" in px and px["order"] not in ORDERS:
        out.append("%s: unknown colour order %s (known: %s)" % (key(path, "order"),
                                                                show(px["order"]), ", ".join(ORDERS)))
    for k in ("serpentine", "flip"):
        if k in px and not isinstance(px[k], bool):
            out.append("%s: must be true or false, not %s" % (key(path, k), show(px[k])))
    if count is not None:
        for k in sorted(px):
            if isinstance(k, str) and k.endswith("_from"):
                whole(out, px, k, path, 0, count - 1)
    return count


def _segments(out, px, count, segs):
    # Each segment (start key, LEDs) must lie inside the chain ("steps_from"
    # may be left out: 0). _pixels has checked each start is in the chain.
    for k, n in segs:
        if k not in px:
            if k != "steps_from":
                out.append("pixels.%s: missing (the first LED of %d)" % (k, n))
            continue
        start = px[k]
        if _is_int(start) and 0 <= start < count and start + n > count:
            out.append("pixels.%s: %d LEDs from %d do not fit in the chain of %d"
                       % (k, n, start, count))


def _servo(out, sv):
    if sv is None:
        return
    if "type" in sv and sv["type"] not in ("continuous", "ratchet"):
        out.append("servo.type: must be \"continuous\" or \"ratchet\", not %s" % show(sv["type"]))
    lo = whole(out, sv, "min_ns", "servo", SERVO_MIN_NS, SERVO_MAX_NS)
    hi = whole(out, sv, "max_ns", "servo", SERVO_MIN_NS, SERVO_MAX_NS)
    lo = sv.get("min_ns", 1000000) if lo is None and "min_ns" not in sv else lo
    hi = sv.get("max_ns", 2000000) if hi is None and "max_ns" not in sv else hi
    if lo is None or hi is None:
        return
    if lo >= hi:
        out.append("servo.min_ns: %d must be below max_ns %d" % (lo, hi))
        return
    for k in ("stop_ns", "forward_ns"):
        if k in sv:
            v = sv[k]
            if not (_is_int(v) and lo <= v <= hi):
                out.append("servo.%s: must lie within min_ns..max_ns (%d..%d), not %s"
                           % (k, lo, hi, show(v)))
    if sv.get("type", "continuous") == "continuous" and \
            sv.get("stop_ns", 1500000) == sv.get("forward_ns", 1300000):
        out.append("servo.forward_ns: equals stop_ns: the tower would never turn")
    rc = sv.get("ratchet")
    if rc is not None:
        if not isinstance(rc, dict):
            out.append("servo.ratchet: must be an object, not %s" % show(rc))
            return
        whole(out, rc, "rest_deg", "servo.ratchet", 0, 180)
        whole(out, rc, "push_deg", "servo.ratchet", 0, 180)
        whole(out, rc, "push_ms", "servo.ratchet", 1, 10000)


def _roller(out, pm, pins):
    px = _block(out, pm, "pixels", True)
    count = _pixels(out, "pixels", px)
    if count is not None:
        _segments(out, px, count, BUILDS["roller-ghoster"]["segments"])


def _mcp_inputs(out, path, inputs, lines, seen):
    if not isinstance(inputs, dict) or not inputs:
        out.append("%s: must be an object of line name -> \"A0\"..\"B7\"" % path)
        return
    used = {}
    for name in sorted(inputs):
        v = inputs[name]
        p = key(path, name)
        if not (isinstance(v, str) and len(v) == 2 and v[0] in "AB" and "0" <= v[1] <= "7"):
            out.append("%s: must name an expander pin \"A0\"..\"B7\", not %s" % (p, show(v)))
        elif v in used:
            out.append("%s: %s is already used by %s" % (p, v, word(used[v])))
        else:
            used[v] = name
        if name in seen:
            out.append("%s: line %s is wired twice" % (p, word(name)))
        seen[name] = p
        if lines is not None and name not in lines:
            out.append("%s: line %s has no kind in table.lines" % (p, word(name)))


def _pin_buses(out, pins):
    # The I2C buses the pins make: each needs one SDA and one SCL pin.
    roles = {}
    for name in sorted(pins):
        spec = pins[name]
        kind = spec.get("kind") if isinstance(spec, dict) else None
        if kind != "i2c_sda" and kind != "i2c_scl":
            continue
        bus = spec.get("bus")
        if _is_int(bus) and bus in (0, 1):
            roles.setdefault(bus, {"i2c_sda": [], "i2c_scl": []})[kind].append(name)
    for bus in sorted(roles):
        for kind in ("i2c_sda", "i2c_scl"):
            got = roles[bus][kind]
            if not got:
                out.append("pins: I2C%d has no %s pin: both pins of a bus must be on the same "
                           "controller (add one with \"bus\": %d)" % (bus, kind, bus))
            elif len(got) > 1:
                out.append("pins: I2C%d has more than one %s pin: %s"
                           % (bus, kind, ", ".join(word(n) for n in got)))
    return roles


def _bus_list(out, pins, bl):
    # The Haunted House build names each bus's pins: {"bus", "sda", "scl", "freq"}.
    buses = {}
    if not isinstance(bl, list) or not bl:
        out.append("i2c.buses: missing (a list of {bus, sda, scl})")
        return buses
    for n in range(len(bl)):
        b = bl[n]
        path = key("i2c", "buses", n)
        if not isinstance(b, dict):
            out.append("%s: must be an object with bus, sda and scl" % path)
            continue
        bus = whole(out, b, "bus", path, 0, 1, True)
        whole(out, b, "freq", path, 1, 1000000)
        for role in ("sda", "scl"):
            if pin_of(out, pins, key(path, role), b.get(role), "i2c_" + role) and \
                    bus is not None and pins[b[role]].get("bus") != bus:
                out.append("%s: pin %s is on bus %s, not %d"
                           % (key(path, role), word(b[role]), show(pins[b[role]].get("bus")), bus))
        if bus is not None:
            if bus in buses:
                out.append("%s.bus: I2C%d is listed twice" % (path, bus))
            buses[bus] = True
    return buses


def _i2c(out, pm, pins, need):
    # "i2c": a list of devices, or {"freq", "buses", "devices"}. need: the
    # build opens its buses from "buses" (Haunted House). Returns the expander
    # lines wired ({line name: key}), or None.
    buses = _pin_buses(out, pins)
    i2c = pm.get("i2c")
    if i2c is None:
        if need:
            out.append("i2c: missing (an object with buses and devices)")
        return None
    if isinstance(i2c, list):
        devs = i2c
        if need:
            out.append("i2c: must be an object with buses and devices")
    elif isinstance(i2c, dict):
        whole(out, i2c, "freq", "i2c", 1, 1000000)
        if need or "buses" in i2c:
            buses = _bus_list(out, pins, i2c.get("buses"))
        devs = i2c.get("devices", [] if not need else None)
    else:
        devs = None
    if not isinstance(devs, list):
        out.append("i2c: must be a list of devices or an object with a \"devices\" list")
        return None
    table = pm.get("table") if isinstance(pm.get("table"), dict) else {}
    lines = table.get("lines") if isinstance(table.get("lines"), dict) else None
    names = {}
    addrs = {}
    seen = {}
    for n in range(len(devs)):
        d = devs[n]
        path = key("i2c", "devices", n)
        if not isinstance(d, dict):
            out.append("%s: must be an object with name, addr, bus and kind" % path)
            continue
        for k in ("name", "addr", "bus", "kind"):
            if k not in d:
                out.append("%s: missing required key %s" % (path, show(k)))
        nm = d.get("name")
        if "name" in d and not (isinstance(nm, str) and nm):
            out.append("%s.name: must be a non-empty text, not %s" % (path, show(nm)))
        elif nm in names:
            out.append("%s.name: %s is used twice" % (path, show(nm)))
        elif nm is not None:
            names[nm] = n
        if "kind" in d and not (isinstance(d["kind"], str) and d["kind"]):
            out.append("%s.kind: must be a text such as \"mcp23017\", not %s"
                       % (path, show(d["kind"])))
        bus = whole(out, d, "bus", path, 0, 1)
        if bus is not None and bus not in buses:
            out.append("%s.bus: I2C%d has no i2c_sda/i2c_scl pins in the map" % (path, bus))
        a = parse_addr(d.get("addr"))
        if "addr" not in d:
            pass
        elif a is None:
            out.append("%s.addr: must be a number such as 32 or \"0x20\", not %s"
                       % (path, show(d["addr"])))
        elif not 0x08 <= a <= 0x77:
            out.append("%s.addr: 0x%02X is outside 0x08-0x77 (the other 7-bit addresses are "
                       "reserved)" % (path, a))
        elif bus is not None:
            if (bus, a) in addrs:
                out.append("%s.addr: 0x%02X on I2C%d is already used by %s"
                           % (path, a, bus, addrs[(bus, a)]))
            else:
                addrs[(bus, a)] = show(nm) if nm is not None else path
        if "int_pin" in d or (need and d.get("kind") == "mcp23017"):
            pin_of(out, pins, key(path, "int_pin"), d.get("int_pin"), "input")
        if need and d.get("kind") == "mcp23017":
            _mcp_inputs(out, key(path, "inputs"), d.get("inputs"), lines, seen)
    return seen if need else None


def parse_addr(v):
    # An I2C address from a number or a text ("0x20", "32"); None if neither.
    if _is_int(v):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return None
    return None


def _table(out, pm, wired):
    t = _block(out, pm, "table", True)
    if t is None:
        return
    kinds = t.get("kinds")
    if not isinstance(kinds, dict) or not kinds:
        out.append("table.kinds: missing (an object of kind name -> decoding)")
        kinds = {}
    for name in sorted(kinds):
        k = kinds[name]
        path = key("table", "kinds", name)
        if not isinstance(k, dict):
            out.append("%s: must be an object" % path)
            continue
        if "active" in k and k["active"] not in (0, 1):
            out.append("%s.active: must be 0 or 1, not %s" % (path, show(k["active"])))
        whole(out, k, "min_us", path, 1, 10000000)
        whole(out, k, "gap_us", path, 1, 10000000)
    lines = t.get("lines")
    if not isinstance(lines, dict):
        out.append("table.lines: missing (an object of line name -> kind)")
        return
    for name in sorted(lines):
        if lines[name] not in kinds:
            out.append("%s: kind %s is not in table.kinds" % (key("table", "lines", name),
                                                             show(lines[name])))
        elif wired is not None and name not in wired:
            out.append("%s: no expander input is wired to this line" % key("table", "lines", name))


def _haunted(out, pm, pins):
    wired = _i2c(out, pm, pins, True)
    _table(out, pm, wired)
    px = _block(out, pm, "pixels", True)
    total = _pixels(out, "pixels", px)
    if px is None:
        return
    chains = 0
    for name in ("score", "spots"):
        path = "pixels." + name
        c = px.get(name)
        if not isinstance(c, dict):
            out.append("%s: missing (an object with pin and count)" % path)
            continue
        pin_of(out, pins, path + ".pin", c.get("pin"), "neopixel")
        n = whole(out, c, "count", path, 1, MAX_PIXELS, True)
        if n is None:
            chains = None
            continue
        if chains is not None:
            chains += n
        if name == "spots":
            leds = c.get("leds")
            if not isinstance(leds, dict):
                out.append("pixels.spots.leds: missing (an object of spot -> LED)")
            else:
                for s in sorted(leds):
                    whole(out, leds, s, "pixels.spots.leds", 0, n - 1)
            continue
        block = whole(out, c, "per_player", path, 1, 256)
        tens = whole(out, c, "tens", path, 0, 256)
        units = whole(out, c, "units", path, 0, 256)
        block = 19 if block is None and "per_player" not in c else block
        tens = 10 if tens is None and "tens" not in c else tens
        units = 9 if units is None and "units" not in c else units
        if block is not None and tens is not None and units is not None:
            if tens + units > block:
                out.append("%s: tens + units (%d) do not fit in per_player (%d)"
                           % (path, tens + units, block))
            if block * MAX_PLAYERS > n:
                out.append("%s.per_player: %d players x %d LEDs do not fit in count %d"
                           % (path, MAX_PLAYERS, block, n))
        sl = whole(out, c, "status_len", path, 1, 64)
        sl = 5 if sl is None and "status_len" not in c else sl
        sf = whole(out, c, "status_from", path, 0, n - 1, True)
        if sf is not None and sl is not None and sf + MAX_PLAYERS * sl > n:
            out.append("%s.status_from: %d players x %d LEDs from %d do not fit in count %d"
                       % (path, MAX_PLAYERS, sl, sf, n))
        rounds = whole(out, c, "rounds", path, 1, 64)
        rounds = 3 if rounds is None and "rounds" not in c else rounds
        rf = whole(out, c, "round_from", path, 0, n - 1, True)
        if rf is not None and rounds is not None and rf + rounds > n:
            out.append("%s.round_from: %d LEDs from %d do not fit in count %d"
                       % (path, rounds, rf, n))
        whole(out, c, "fault_led", path, 0, n - 1, True)
    if total is not None and chains is not None and total < chains:
        out.append("pixels.count: %d must cover both chains (score + spots = %d)"
                   % (total, chains))


def _companion(out, pm, pins):
    px = _block(out, pm, "pixels", True)
    count = _pixels(out, "pixels", px)
    if count is None:
        return
    w = whole(out, px, "width", "pixels", 1, 64)
    h = whole(out, px, "height", "pixels", 1, 64)
    w = 8 if w is None and "width" not in px else w
    h = 8 if h is None and "height" not in px else h
    if w is not None and h is not None and w * h > count:
        out.append("pixels.width: a %d x %d matrix needs %d LEDs, the chain has %d"
                   % (w, h, w * h, count))


_BUILD_CHECKS = {"roller-ghoster": _roller, "haunted-house": _haunted, "companion": _companion}


def check(pm, build=None):
    # Every problem of pin map `pm`. build: the build the board loads this map
    # for (its file name says which); None: the map's own "build" key, and
    # only the generic rules for a build this firmware does not have.
    if not isinstance(pm, dict):
        return ["the pin map must be a JSON object"]
    if not depth_ok(pm):
        return ["the pin map nests more than %d levels deep" % MAX_DEPTH]
    out = []
    for k in ("build", "board", "pins"):
        if k not in pm:
            out.append("%s: missing required top-level key" % k)
    b = pm.get("build")
    if "build" in pm and not (isinstance(b, str) and b):
        out.append("build: must be a non-empty text naming the build, not %s" % show(b))
    elif build is not None and b is not None and b != build:
        out.append("build: %s, but this is the map of the %s build" % (show(b), build))
    if "board" in pm and pm["board"] not in BOARDS:
        out.append("board: %s is not supported (the checks are for %s)"
                   % (show(pm["board"]), ", ".join(BOARDS)))
    pins = _pins(out, pm)
    for blk in ("buttons", "beams", "notch", "servo", "table"):
        if blk in pm:
            _block(out, pm, blk)
    for blk, k, lo, hi in LIMITS:
        if isinstance(pm.get(blk), dict):
            whole(out, pm[blk], k, blk, lo, hi)
    name = build if build is not None else (b if isinstance(b, str) else None)
    spec = BUILDS.get(name)
    if isinstance(pm.get("servo"), dict):
        _servo(out, pm["servo"])
        sp = pins.get("servo")
        if spec is not None:
            pass                # the build's own pin list says what "servo" must be
        elif not isinstance(sp, dict):
            out.append("servo: block present but the map has no pin named \"servo\"")
        elif sp.get("kind") != "pwm":
            out.append("pins.servo.kind: must be \"pwm\", not %s" % show(sp.get("kind")))
        if isinstance(sp, dict) and sp.get("kind") == "pwm" and sp.get("freq", 50) != 50:
            out.append("pins.servo.freq: must be 50 Hz (the servo drivers always run at "
                       "50 Hz), not %s" % show(sp.get("freq")))
    if spec is not None:
        _need_pins(out, pins, name, spec)
        _BUILD_CHECKS[name](out, pm, pins)
        return out
    has_np = False
    for s in pins.values():
        if isinstance(s, dict) and s.get("kind") == "neopixel":
            has_np = True
    if has_np and "pixels" not in pm:
        out.append("pixels: missing: a neopixel pin needs a \"pixels\" block with count, "
                   "max_ma_per_led and budget_ma")
    _pixels(out, "pixels", _block(out, pm, "pixels"))
    _i2c(out, pm, pins, False)
    return out
