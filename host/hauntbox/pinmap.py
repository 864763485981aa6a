"""Check the machine-readable pin maps (``firmware/boards/*.json``) of the builds.

``validate(pinmap)`` returns a list of problems (empty when the map is fine);
``main(argv)`` is ``hauntbox pins [FILE ...]``: it prints a table of every pin
(name, GPIO, header pin, kind, PWM slice/channel or I2C role, part) and the
problems, and exits 1 if any map has a problem.

What is checked (Raspberry Pi Pico / Pico W / Pico 2, RP2040 or RP2350):

* required keys (``build``, ``board``, ``pins``; per pin ``gpio``, ``kind``,
  ``part``) and valid values (kinds, pulls, active levels, frequencies);
* each GPIO used once, and only GPIOs the Pico brings out on its header
  (GP0-GP22, GP26-GP28); GP23, GP24, GP25 and GP29 are wired on the board
  itself and are refused with the reason;
* PWM: pins on the same slice (``(gpio >> 1) & 7``, channel A for even GPIOs,
  B for odd) share one counter, so they must run at the same frequency, and two
  PWM pins on the same slice *and* channel would output the same signal;
* I2C: SDA/SCL on GPIOs that can carry the declared controller (I2C0/I2C1), one
  SDA and one SCL per bus used; devices (``i2c`` block) on a bus that has pins,
  addresses 0x08-0x77 (MCP23017/MCP23008: 0x20-0x27), unique per bus, and each
  ``int_pin`` naming an input pin of the map;
* NeoPixels: a ``pixels`` block with a positive ``count``; the brightness cap
  ``budget_ma / (count * max_ma_per_led)`` (computed as the firmware's
  ``max_brightness`` does) and any brightness the map asks for within it, so
  ``count * max_ma_per_led * brightness <= budget_ma``; segment starts
  (``*_from``) inside the chain;
* servo block: pulse limits within the drivers' hard limits (0.5-2.5 ms), stop
  and forward pulses within the calibrated limits, and the ``servo`` pin a
  50 Hz PWM pin.

Shape of the I2C parts (the Haunted House build)::

    "pins": {"sda": {"gpio": 4, "kind": "i2c_sda", "bus": 0, "part": "..."},
             "scl": {"gpio": 5, "kind": "i2c_scl", "bus": 0, "part": "..."},
             "mcp1_int": {"gpio": 6, "kind": "input", "pull": "up", "active": 0, ...}},
    "i2c": {"freq": 400000,
            "devices": [{"name": "mcp1", "addr": 32, "bus": 0, "kind": "mcp23017",
                         "int_pin": "mcp1_int"}]}

(``"i2c"`` may also be the device list itself; ``addr`` may be an int or a hex
string such as ``"0x20"``.)

Run it as ``hauntbox pins`` or ``python -m hauntbox.pinmap`` (with
``PYTHONPATH=host``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TypeGuard

#: Repository root: host/hauntbox/pinmap.py -> parents[2].
REPO_ROOT = Path(__file__).resolve().parents[2]
#: Folder of the pin maps checked by default.
BOARDS_DIR = REPO_ROOT / "firmware" / "boards"

#: Boards with the Pico's 40-pin header (same GPIO numbering and header pins).
BOARDS = ("pico", "pico_w", "pico2", "pico2_w")

#: GPIOs the Pico brings out on its header.
HEADER_GPIOS = frozenset(list(range(0, 23)) + [26, 27, 28])

#: GPIOs of the chip the Pico uses on the board itself, with the reason.
RESERVED_GPIOS = {
    23: "GP23 drives the SMPS power-save pin on the Pico (not on the header)",
    24: "GP24 senses VBUS (USB power present) on the Pico (not on the header)",
    25: "GP25 drives the on-board LED (not on the header)",
    29: "GP29 measures VSYS/3 through ADC3 on the Pico (not on the header)",
}

#: Physical header pin of each GPIO (pin 1 is GP0, next to the USB socket).
HEADER_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12,
    10: 14, 11: 15, 12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22,
    18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34,
}

#: Pin kinds understood by firmware/board.py and the drivers.
KINDS = ("input", "output", "pwm", "neopixel", "i2c_sda", "i2c_scl", "adc")

#: Keys a pin entry may have.
PIN_KEYS = frozenset({"gpio", "kind", "part", "pull", "active", "freq", "optional", "bus",
                      "comment", "note"})

#: GPIOs that can carry each I2C controller's SDA / SCL.
I2C_SDA = {0: (0, 4, 8, 12, 16, 20), 1: (2, 6, 10, 14, 18, 26)}
I2C_SCL = {0: (1, 5, 9, 13, 17, 21), 1: (3, 7, 11, 15, 19, 27)}

#: 7-bit addresses outside this range are reserved by the I2C specification.
I2C_ADDR_MIN = 0x08
I2C_ADDR_MAX = 0x77
#: Address ranges fixed by a device's address pins.
I2C_KIND_ADDR = {
    "mcp23017": (0x20, 0x27),
    "mcp23008": (0x20, 0x27),
    "ht16k33": (0x70, 0x77),
    "ssd1306": (0x3C, 0x3D),
}
#: RP2040 I2C: standard, fast and fast-mode plus.
I2C_MAX_FREQ = 1_000_000

#: GPIOs with an ADC input on the header.
ADC_GPIOS = (26, 27, 28)

#: PWM frequency range of the RP2040 at 125 MHz (8-bit divider, 16-bit counter).
PWM_MIN_HZ = 8
PWM_MAX_HZ = 62_500_000
#: The servo drivers always run their PWM at this frequency (drivers/servo.py).
SERVO_HZ = 50
#: Hard limits of any hobby servo pulse (drivers/servo.py ABS_MIN_NS/ABS_MAX_NS).
SERVO_ABS_MIN_NS = 500_000
SERVO_ABS_MAX_NS = 2_500_000

#: Defaults the firmware uses when the pixels block leaves them out.
DEFAULT_MA_PER_LED = 60
DEFAULT_BUDGET_MA = 500


def gp(gpio: int) -> str:
    return "GP%d" % gpio


def pwm_slice(gpio: int) -> tuple[int, str]:
    """(slice, channel) of a GPIO: slice = (gpio >> 1) & 7, A for even, B for odd."""
    return (gpio >> 1) & 7, "AB"[gpio & 1]


def i2c_roles(gpio: int) -> list[str]:
    """What I2C signals a GPIO can carry, e.g. ["I2C1 SDA"]."""
    roles = []
    for bus in (0, 1):
        if gpio in I2C_SDA[bus]:
            roles.append("I2C%d SDA" % bus)
        if gpio in I2C_SCL[bus]:
            roles.append("I2C%d SCL" % bus)
    return roles


def implied_cap(pixels: dict) -> float:
    """Brightness cap of a NeoPixel chain, as the firmware's max_brightness computes it."""
    full = pixels["count"] * pixels.get("max_ma_per_led", DEFAULT_MA_PER_LED)
    cap = pixels.get("budget_ma", DEFAULT_BUDGET_MA) / full
    return cap if cap < 1 else 1.0


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def parse_addr(v: Any) -> int | None:
    """An I2C address from an int or a string ("0x20", "32"); None if neither."""
    if _is_int(v):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return None
    return None


def _pin_gpio(spec: Any) -> int | None:
    if isinstance(spec, dict) and _is_int(spec.get("gpio")):
        return spec["gpio"]
    return None


# --------------------------------------------------------------------------
# checks


def _check_pin(name: str, spec: Any, out: list[str]) -> None:
    if not isinstance(spec, dict):
        out.append("pin %r: must be an object with gpio, kind and part" % name)
        return
    for key in ("gpio", "kind", "part"):
        if key not in spec:
            out.append("pin %r: missing required key %r" % (name, key))
    for key in sorted(set(spec) - PIN_KEYS):
        out.append("pin %r: unknown key %r (allowed: %s)" % (name, key, ", ".join(sorted(PIN_KEYS))))
    if "part" in spec and not (isinstance(spec["part"], str) and spec["part"].strip()):
        out.append("pin %r: part must be a non-empty text naming the part it is wired to" % name)
    if "optional" in spec and not isinstance(spec["optional"], bool):
        out.append("pin %r: optional must be true or false" % name)

    gpio = spec.get("gpio")
    if "gpio" in spec:
        if not _is_int(gpio):
            out.append("pin %r: gpio must be a whole number, not %r" % (name, gpio))
            gpio = None
        elif gpio in RESERVED_GPIOS:
            out.append("pin %r: %s cannot be used: %s" % (name, gp(gpio), RESERVED_GPIOS[gpio]))
        elif gpio < 0 or gpio > 29:
            out.append("pin %r: %s does not exist (the RP2040 has GP0-GP29; the Pico header "
                       "brings out GP0-GP22 and GP26-GP28)" % (name, gp(gpio)))
        elif gpio not in HEADER_GPIOS:  # pragma: no cover - every 0..29 is header or reserved
            out.append("pin %r: %s is not on the Pico header" % (name, gp(gpio)))

    kind = spec.get("kind")
    if "kind" in spec and kind not in KINDS:
        out.append("pin %r: unknown kind %r (valid kinds: %s)" % (name, kind, ", ".join(KINDS)))
        return

    if "pull" in spec and spec["pull"] not in ("up", "down", None):
        out.append("pin %r: pull must be \"up\", \"down\" or null, not %r" % (name, spec["pull"]))
    if "active" in spec and (not _is_int(spec["active"]) or spec["active"] not in (0, 1)):
        out.append("pin %r: active must be 0 (active low) or 1 (active high), not %r"
                   % (name, spec["active"]))
    if kind == "input":
        pull, active = spec.get("pull"), spec.get("active", 0)
        if pull == "down" and active == 0:
            out.append("pin %r: pull down with active low (active 0) reads as active whenever "
                       "nothing drives the line" % name)
        if pull == "up" and active == 1:
            out.append("pin %r: pull up with active high (active 1) reads as active whenever "
                       "nothing drives the line" % name)
    elif kind is not None:
        for key in ("pull", "active"):
            if key in spec and kind not in ("i2c_sda", "i2c_scl"):
                out.append("pin %r: %r only applies to input pins, not %s" % (name, key, kind))

    if "freq" in spec and kind != "pwm":
        out.append("pin %r: freq only applies to pwm pins, not %s" % (name, kind))
    if kind == "pwm":
        freq = spec.get("freq", SERVO_HZ)
        if not _is_int(freq) or not (PWM_MIN_HZ <= freq <= PWM_MAX_HZ):
            out.append("pin %r: PWM freq must be a whole number of Hz within %d..%d, not %r"
                       % (name, PWM_MIN_HZ, PWM_MAX_HZ, freq))

    if kind in ("i2c_sda", "i2c_scl"):
        bus = spec.get("bus")
        role = "SDA" if kind == "i2c_sda" else "SCL"
        if not _is_int(bus) or bus not in (0, 1):
            out.append("pin %r: %s needs \"bus\": 0 or 1 (I2C0 or I2C1), not %r" % (name, kind, bus))
        elif _is_int(gpio) and gpio in HEADER_GPIOS:
            allowed = (I2C_SDA if role == "SDA" else I2C_SCL)[bus]
            if gpio not in allowed:
                can = i2c_roles(gpio)
                out.append("pin %r: %s cannot carry I2C%d %s (it can carry %s); I2C%d %s pins: %s"
                           % (name, gp(gpio), bus, role, " or ".join(can) if can else "no I2C",
                              bus, role, ", ".join(gp(g) for g in allowed)))
    elif "bus" in spec:
        out.append("pin %r: bus only applies to i2c_sda/i2c_scl pins, not %s" % (name, kind))

    if kind == "adc" and _is_int(gpio) and gpio in HEADER_GPIOS and gpio not in ADC_GPIOS:
        out.append("pin %r: %s has no ADC input (ADC pins: GP26, GP27, GP28)" % (name, gp(gpio)))


def _check_duplicates(pins: dict, out: list[str]) -> None:
    users: dict[int, list[str]] = {}
    for name, spec in pins.items():
        g = _pin_gpio(spec)
        if g is not None:
            users.setdefault(g, []).append(name)
    for g in sorted(users):
        if len(users[g]) > 1:
            out.append("%s is used twice: by %s" % (gp(g), " and ".join(repr(n) for n in users[g])))


def _check_pwm(pins: dict, out: list[str]) -> None:
    on_slice: dict[int, list[tuple[str, int, str, Any]]] = {}
    for name, spec in pins.items():
        g = _pin_gpio(spec)
        if g is None or spec.get("kind") != "pwm" or g not in HEADER_GPIOS:
            continue
        sl, ch = pwm_slice(g)
        on_slice.setdefault(sl, []).append((name, g, ch, spec.get("freq", SERVO_HZ)))
    for sl in sorted(on_slice):
        users = on_slice[sl]
        for i in range(len(users)):
            for j in range(i + 1, len(users)):
                a, b = users[i], users[j]
                if a[1] == b[1]:
                    continue  # same GPIO twice: reported as a duplicate
                if a[2] == b[2]:
                    out.append("PWM pins %r (%s) and %r (%s) are both on PWM slice %d channel %s: "
                               "they would output the same signal; move one to another slice"
                               % (a[0], gp(a[1]), b[0], gp(b[1]), sl, a[2]))
                elif a[3] != b[3]:
                    out.append("PWM pins %r (%s, %s Hz) and %r (%s, %s Hz) share PWM slice %d "
                               "(channels %s and %s), which has one frequency; use the same "
                               "frequency or another slice"
                               % (a[0], gp(a[1]), a[3], b[0], gp(b[1]), b[3], sl, a[2], b[2]))


def _i2c_devices(pinmap: dict, out: list[str]) -> list:
    block = pinmap.get("i2c")
    if block is None:
        return []
    if isinstance(block, list):
        return block
    if isinstance(block, dict):
        freq = block.get("freq")
        if freq is not None and (not _is_int(freq) or not (0 < freq <= I2C_MAX_FREQ)):
            out.append("i2c: freq must be a whole number of Hz within 1..%d, not %r"
                       % (I2C_MAX_FREQ, freq))
        devices = block.get("devices", [])
        if isinstance(devices, list):
            return devices
    out.append("i2c: must be a list of devices or an object with a \"devices\" list")
    return []


def _check_i2c(pinmap: dict, pins: dict, out: list[str]) -> None:
    # Buses: one SDA and one SCL each.
    buses: dict[int, dict[str, list[str]]] = {}
    for name, spec in pins.items():
        if not isinstance(spec, dict) or spec.get("kind") not in ("i2c_sda", "i2c_scl"):
            continue
        bus = spec.get("bus")
        if not _is_int(bus) or bus not in (0, 1):
            continue  # reported per pin
        role = "sda" if spec["kind"] == "i2c_sda" else "scl"
        buses.setdefault(bus, {"sda": [], "scl": []})[role].append(name)
    for bus in sorted(buses):
        for role in ("sda", "scl"):
            got = buses[bus][role]
            if not got:
                other = buses[bus]["scl" if role == "sda" else "sda"]
                out.append("I2C%d has %s %s but no %s pin: both pins of a bus must be on the same "
                           "controller (add an i2c_%s pin with \"bus\": %d)"
                           % (bus, role == "sda" and "SCL" or "SDA",
                              ", ".join(repr(n) for n in other), role.upper(), role, bus))
            elif len(got) > 1:
                out.append("I2C%d has more than one %s pin: %s"
                           % (bus, role.upper(), ", ".join(repr(n) for n in got)))

    devices = _i2c_devices(pinmap, out)
    seen_names: set[str] = set()
    seen_addr: dict[tuple[int, int], str] = {}
    for k, dev in enumerate(devices):
        if not isinstance(dev, dict):
            out.append("i2c device #%d: must be an object with name, addr, bus, kind" % (k + 1))
            continue
        raw_name = dev.get("name")
        label = raw_name if isinstance(raw_name, str) else "#%d" % (k + 1)
        for key in ("name", "addr", "bus", "kind"):
            if key not in dev:
                out.append("i2c device %r: missing required key %r" % (label, key))
        if "name" in dev:
            if not isinstance(dev["name"], str) or not dev["name"]:
                out.append("i2c device #%d: name must be a non-empty text" % (k + 1))
            elif dev["name"] in seen_names:
                out.append("i2c device %r: name used twice" % label)
            else:
                seen_names.add(dev["name"])
        kind = dev.get("kind")
        if "kind" in dev and not (isinstance(kind, str) and kind):
            out.append("i2c device %r: kind must be a non-empty text such as \"mcp23017\"" % label)
            kind = None
        bus = dev.get("bus")
        if "bus" in dev:
            if not _is_int(bus) or bus not in (0, 1):
                out.append("i2c device %r: bus must be 0 or 1, not %r" % (label, bus))
                bus = None
            elif bus not in buses:
                out.append("i2c device %r: bus I2C%d has no i2c_sda/i2c_scl pins in the map"
                           % (label, bus))
        if "addr" in dev:
            addr = parse_addr(dev["addr"])
            if addr is None:
                out.append("i2c device %r: addr must be a number such as 32 or \"0x20\", not %r"
                           % (label, dev["addr"]))
            elif not (I2C_ADDR_MIN <= addr <= I2C_ADDR_MAX):
                out.append("i2c device %r: address 0x%02X is outside 0x%02X-0x%02X (the other "
                           "7-bit addresses are reserved)" % (label, addr, I2C_ADDR_MIN, I2C_ADDR_MAX))
            else:
                lo_hi = I2C_KIND_ADDR.get(kind.lower()) if isinstance(kind, str) else None
                if lo_hi and not (lo_hi[0] <= addr <= lo_hi[1]):
                    out.append("i2c device %r: a %s answers only at 0x%02X-0x%02X, not 0x%02X"
                               % (label, kind, lo_hi[0], lo_hi[1], addr))
                if _is_int(bus) and bus in (0, 1):
                    first = seen_addr.get((bus, addr))
                    if first is not None:
                        out.append("i2c devices %r and %r both use address 0x%02X on I2C%d"
                                   % (first, label, addr, bus))
                    else:
                        seen_addr[(bus, addr)] = label
        if "int_pin" in dev:
            ip = dev["int_pin"]
            if not isinstance(ip, str) or ip not in pins:
                out.append("i2c device %r: int_pin %r is not a pin of the map" % (label, ip))
            elif not isinstance(pins[ip], dict) or pins[ip].get("kind") != "input":
                out.append("i2c device %r: int_pin %r must be an input pin, but it is %s"
                           % (label, ip, pins[ip].get("kind") if isinstance(pins[ip], dict) else "invalid"))


def _check_pixels(pinmap: dict, pins: dict, out: list[str]) -> None:
    has_np = any(isinstance(s, dict) and s.get("kind") == "neopixel" for s in pins.values())
    px = pinmap.get("pixels")
    if px is None:
        if has_np:
            out.append("a neopixel pin needs a \"pixels\" block with count, max_ma_per_led and "
                       "budget_ma")
        return
    if not isinstance(px, dict):
        out.append("pixels: must be an object with count, max_ma_per_led and budget_ma")
        return
    if not has_np:
        out.append("pixels: block present but no pin has kind \"neopixel\"")
    count = px.get("count")
    if not _is_int(count) or count <= 0:
        out.append("pixels: count must be a positive whole number, not %r" % (count,))
        return
    ok = True
    for key, default in (("max_ma_per_led", DEFAULT_MA_PER_LED), ("budget_ma", DEFAULT_BUDGET_MA)):
        v = px.get(key, default)
        if not _is_num(v) or v <= 0:
            out.append("pixels: %s must be a positive number of mA, not %r" % (key, v))
            ok = False
    if "order" in px and px["order"] not in ("RGB", "GRB", "RGBW", "GRBW", "BRG", "RBG"):
        out.append("pixels: unknown colour order %r" % (px["order"],))
    for key in sorted(px):
        if key.endswith("_from"):
            v = px[key]
            if not _is_int(v) or not (0 <= v < count):
                out.append("pixels: %s = %r is outside the chain (0..%d)" % (key, v, count - 1))
    if not ok:
        return
    cap = implied_cap(px)
    ma = px.get("max_ma_per_led", DEFAULT_MA_PER_LED)
    budget = px.get("budget_ma", DEFAULT_BUDGET_MA)
    for key in ("max_brightness", "brightness"):
        if key not in px:
            continue
        b = px[key]
        if not _is_num(b) or not (0 <= b <= 1):
            out.append("pixels: %s must be within 0..1, not %r" % (key, b))
        elif count * ma * b > budget + 1e-9:
            out.append("pixels: %s %.3g is over the current budget: %d LEDs x %g mA x %.3g = "
                       "%.0f mA > budget_ma %g (cap %.3f)"
                       % (key, b, count, ma, b, count * ma * b, budget, cap))


def _check_servo(pinmap: dict, pins: dict, out: list[str]) -> None:
    sv = pinmap.get("servo")
    if sv is None:
        return
    if not isinstance(sv, dict):
        out.append("servo: must be an object")
        return
    spec = pins.get("servo")
    if not isinstance(spec, dict):
        out.append("servo: block present but the map has no pin named \"servo\"")
    elif spec.get("kind") != "pwm":
        out.append("pin 'servo': must have kind \"pwm\", not %r" % (spec.get("kind"),))
    elif spec.get("freq", SERVO_HZ) != SERVO_HZ:
        out.append("pin 'servo': freq must be %d Hz (the servo drivers always run at %d Hz), "
                   "not %r" % (SERVO_HZ, SERVO_HZ, spec.get("freq")))
    if "type" in sv and sv["type"] not in ("continuous", "ratchet"):
        out.append("servo: type must be \"continuous\" or \"ratchet\", not %r" % (sv["type"],))
    vals = {}
    for key, default in (("min_ns", 1_000_000), ("max_ns", 2_000_000)):
        v = sv.get(key, default)
        if not _is_int(v) or not (SERVO_ABS_MIN_NS <= v <= SERVO_ABS_MAX_NS):
            out.append("servo: %s must be within %d..%d ns (0.5-2.5 ms), not %r"
                       % (key, SERVO_ABS_MIN_NS, SERVO_ABS_MAX_NS, v))
            return
        vals[key] = v
    lo, hi = vals["min_ns"], vals["max_ns"]
    if not lo < hi:
        out.append("servo: min_ns %d must be below max_ns %d" % (lo, hi))
        return
    for key in ("stop_ns", "forward_ns"):
        if key in sv:
            v = sv[key]
            if not _is_int(v) or not (lo <= v <= hi):
                out.append("servo: %s must lie within min_ns..max_ns (%d..%d), not %r"
                           % (key, lo, hi, v))
    if sv.get("type", "continuous") == "continuous" and sv.get("stop_ns") is not None \
            and sv.get("stop_ns") == sv.get("forward_ns"):
        out.append("servo: forward_ns equals stop_ns: the tower would never turn")
    rc = sv.get("ratchet")
    if isinstance(rc, dict):
        for key in ("rest_deg", "push_deg"):
            if key in rc and (not _is_num(rc[key]) or not (0 <= rc[key] <= 180)):
                out.append("servo: ratchet %s must be within 0..180 degrees, not %r"
                           % (key, rc[key]))


def validate(pinmap: Any) -> list[str]:
    """Every problem of a pin map, as clear sentences naming the pin; [] if it is fine."""
    out: list[str] = []
    if not isinstance(pinmap, dict):
        return ["the pin map must be a JSON object"]
    for key in ("build", "board", "pins"):
        if key not in pinmap:
            out.append("missing required top-level key %r" % key)
    if "build" in pinmap and not (isinstance(pinmap["build"], str) and pinmap["build"]):
        out.append("build must be a non-empty text naming the build")
    if "board" in pinmap and pinmap["board"] not in BOARDS:
        out.append("board %r is not supported (the checks are for %s)"
                   % (pinmap["board"], ", ".join(BOARDS)))
    pins = pinmap.get("pins", {})
    if not isinstance(pins, dict) or ("pins" in pinmap and not pins):
        out.append("pins must be a non-empty object of name -> pin")
        pins = pins if isinstance(pins, dict) else {}
    for name, spec in pins.items():
        _check_pin(name, spec, out)
    _check_duplicates(pins, out)
    _check_pwm(pins, out)
    _check_i2c(pinmap, pins, out)
    _check_pixels(pinmap, pins, out)
    _check_servo(pinmap, pins, out)
    return out


# --------------------------------------------------------------------------
# table


def _detail(spec: dict, pinmap: dict) -> str:
    kind = spec.get("kind")
    g = _pin_gpio(spec)
    if kind == "pwm" and g is not None and g in HEADER_GPIOS:
        sl, ch = pwm_slice(g)
        return "PWM slice %d %s, %s Hz" % (sl, ch, spec.get("freq", SERVO_HZ))
    if kind in ("i2c_sda", "i2c_scl"):
        return "I2C%s %s" % (spec.get("bus", "?"), "SDA" if kind == "i2c_sda" else "SCL")
    if kind == "input":
        pull = spec.get("pull")
        bits = ["pull %s" % pull if pull else "no pull",
                "active %s" % ("high" if spec.get("active", 0) == 1 else "low")]
        if spec.get("optional"):
            bits.append("optional")
        return ", ".join(bits)
    if kind == "neopixel":
        px = pinmap.get("pixels")
        if isinstance(px, dict) and _is_int(px.get("count")):
            return "%d pixels, PIO" % px["count"]
        return "PIO"
    if kind == "adc":
        return "ADC%d" % (g - 26) if g in ADC_GPIOS else "ADC"
    return ""


def format_table(pinmap: dict) -> str:
    """A text table of the map's pins, I2C devices and pixel current budget."""
    pins = pinmap.get("pins") if isinstance(pinmap, dict) else None
    if not isinstance(pins, dict):
        return "(no pins)"
    rows = [("name", "GPIO", "pin", "kind", "slice/bus/pull", "part")]
    for name, spec in pins.items():
        if not isinstance(spec, dict):
            rows.append((str(name), "?", "", "?", "", "(invalid)"))
            continue
        g = _pin_gpio(spec)
        rows.append((str(name), gp(g) if g is not None else repr(spec.get("gpio")),
                     str(HEADER_PIN.get(g, "-")) if g is not None else "-",
                     str(spec.get("kind", "?")), _detail(spec, pinmap), str(spec.get("part", ""))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for k, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 4)
    lines = [ln.rstrip() for ln in lines]
    devices = []
    try:
        devices = _i2c_devices(pinmap, [])
    except Exception:  # noqa: BLE001 - the table never fails on a broken map
        devices = []
    if devices:
        lines.append("")
        lines.append("I2C devices:")
        for d in devices:
            if isinstance(d, dict):
                a = parse_addr(d.get("addr"))
                lines.append("  %-10s I2C%s  %-6s  %-10s  INT -> %s"
                             % (d.get("name"), d.get("bus", "?"),
                                "0x%02X" % a if a is not None else repr(d.get("addr")),
                                d.get("kind", "?"), d.get("int_pin", "-")))
    px = pinmap.get("pixels")
    if isinstance(px, dict) and _is_int(px.get("count")) and px["count"] > 0:
        ma = px.get("max_ma_per_led", DEFAULT_MA_PER_LED)
        budget = px.get("budget_ma", DEFAULT_BUDGET_MA)
        if _is_num(ma) and _is_num(budget) and ma > 0 and budget > 0:
            lines.append("")
            lines.append("pixels: %d LEDs x %g mA = %g mA at full white; budget %g mA -> "
                         "brightness cap %.3f" % (px["count"], ma, px["count"] * ma, budget,
                                                  implied_cap(px)))
    return "\n".join(lines)


# --------------------------------------------------------------------------
# command line


def default_files() -> list[Path]:
    return sorted(BOARDS_DIR.glob("*.json"))


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def check_file(path: Path) -> tuple[dict | None, list[str]]:
    """(pin map or None, problems) for one file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        return None, ["cannot read %s: %s" % (path, e.strerror or e)]
    try:
        pm = json.loads(text)
    except json.JSONDecodeError as e:
        return None, ["not valid JSON: %s (line %d, column %d)" % (e.msg, e.lineno, e.colno)]
    return pm, validate(pm)


def main(argv: list[str] | None = None) -> int:
    """`hauntbox pins [FILE ...]`: table and problems of each pin map; 1 if any problem."""
    parser = argparse.ArgumentParser(
        prog="hauntbox pins",
        description="Check the pin maps (default: every firmware/boards/*.json) and print "
                    "their pins.")
    parser.add_argument("files", nargs="*", metavar="FILE", help="pin map JSON files")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only the problems (and one line per map)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    files = [Path(f) for f in args.files] if args.files else default_files()
    if not files:
        print("no pin maps found in %s" % _display(BOARDS_DIR))
        return 1
    bad = 0
    for k, path in enumerate(files):
        pm, problems = check_file(path)
        if k:
            print()
        build = pm.get("build") if isinstance(pm, dict) else None
        print("== %s%s ==" % (_display(path), " (%s)" % build if build else ""))
        if pm is not None and not args.quiet:
            print(format_table(pm))
        if problems:
            bad += 1
            print("%d problem%s:" % (len(problems), "" if len(problems) == 1 else "s"))
            for p in problems:
                print("  - " + p)
        else:
            print("OK: no problems")
    if len(files) > 1:
        print()
        print("%d pin map%s checked, %d with problems"
              % (len(files), "" if len(files) == 1 else "s", bad))
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
