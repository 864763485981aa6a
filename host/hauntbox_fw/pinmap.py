"""Check the machine-readable pin maps (``firmware/boards/*.json``) of the builds.

``validate(pinmap, build=None)`` returns a list of problems (empty when the map
is fine), each ``"<key>: <problem>"`` naming the key as the file spells it
(``pins.beam3``, ``pixels.count``); ``main(argv)`` is ``hauntbox pins [FILE
...]``: it prints a table of every pin (name, GPIO, header pin, kind, PWM
slice/channel or I2C role, part) and the problems, and exits 1 if any map has
a problem. ``hauntbox flash`` (through ``hauntbox_fw.build``) refuses to build
firmware whose maps have a problem.

One source of the rules: the rules the firmware itself depends on are in
``firmware/pinmap_check.py``, which the board runs at boot before it touches
a pin (a bad map there keeps the game off with a fault naming the key, see
docs/flashing.md); this module loads that same file and adds the wiring
advice only a person needs:

* shared (firmware/pinmap_check.py): required keys and types of every pin
  (``gpio``, ``kind``; ``pull``, ``active``, ``freq``, ``bus`` where they
  apply), GPIOs the RP2040 has and the Pico does not wire to itself (GP23,
  GP24, GP25 and GP29 are refused with the reason), each GPIO used once, I2C
  pins on GPIOs that can carry their controller and one SDA/SCL per bus, ADC
  pins, the pins each build opens (beams, notch, servo, buttons, the LED
  chains, the expanders' INT lines), numbers within limits (at most 256 LEDs
  a chain, no negative or zero times, servo pulses within 0.5-2.5 ms with
  min < stop/forward < max), LED segments inside their chain, I2C devices
  (addresses 0x08-0x77, unique per bus) and the Haunted House expander inputs
  and sensor table; a file nested more than 8 levels deep is refused unread;
* here: a ``part`` text for every pin, pull against active level, PWM pins on
  one slice (``(gpio >> 1) & 7``, channel A for even GPIOs, B for odd: one
  counter, so one frequency; the same slice *and* channel would output the
  same signal), the address range of known I2C chips (MCP23017/MCP23008:
  0x20-0x27), a brightness the map asks for within the LED current budget
  (``count * max_ma_per_led * brightness <= budget_ma``; the cap is computed
  as the firmware's ``max_brightness`` does).

Shape of the I2C parts (the Haunted House build)::

    "pins": {"sda": {"gpio": 4, "kind": "i2c_sda", "bus": 0, "part": "..."},
             "scl": {"gpio": 5, "kind": "i2c_scl", "bus": 0, "part": "..."},
             "mcp1_int": {"gpio": 6, "kind": "input", "pull": "up", "active": 0, ...}},
    "i2c": {"buses": [{"bus": 0, "sda": "sda", "scl": "scl", "freq": 400000}],
            "devices": [{"name": "mcp1", "addr": 32, "bus": 0, "kind": "mcp23017",
                         "int_pin": "mcp1_int", "inputs": {"line": "A0"}}]}

(For a map of another build ``"i2c"`` may also be the device list itself or
``{"freq", "devices"}``; ``addr`` may be an int or a hex string such as
``"0x20"``.)

Run it as ``hauntbox pins`` or ``python -m hauntbox_fw.pinmap`` (with
``PYTHONPATH=host``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, TypeGuard

from hauntbox_fw.paths import CHECKOUT, FIRMWARE_DIR
from hauntbox_fw.sanitize import clean, clean_lines

#: The repository (None when installed): file names are shown relative to it.
REPO_ROOT = CHECKOUT
#: Folder of the pin maps checked by default.
BOARDS_DIR = FIRMWARE_DIR / "boards"
#: The rules the firmware checks at boot: the one source of the shared checks.
RULES_PATH = FIRMWARE_DIR / "pinmap_check.py"


def _load_rules() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hauntbox_pinmap_rules", RULES_PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


#: firmware/pinmap_check.py, loaded from its file (the firmware is not a package here).
RULES = _load_rules()

#: Boards with the Pico's 40-pin header (same GPIO numbering and header pins).
BOARDS = RULES.BOARDS
#: Builds the firmware has (each checked with its own required pins and blocks).
BUILDS = tuple(sorted(RULES.BUILDS))

#: GPIOs the Pico brings out on its header.
HEADER_GPIOS = frozenset(list(range(0, 23)) + [26, 27, 28])

#: GPIOs of the chip the Pico uses on the board itself, with the reason.
RESERVED_GPIOS = RULES.RESERVED

#: Physical header pin of each GPIO (pin 1 is GP0, next to the USB socket).
HEADER_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12,
    10: 14, 11: 15, 12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22,
    18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34,
}

#: Pin kinds understood by firmware/board.py and the drivers.
KINDS = RULES.KINDS

#: GPIOs that can carry each I2C controller's SDA / SCL.
I2C_SDA = dict(enumerate(RULES.I2C_SDA))
I2C_SCL = dict(enumerate(RULES.I2C_SCL))

#: Address ranges fixed by a device's address pins.
I2C_KIND_ADDR = {
    "mcp23017": (0x20, 0x27),
    "mcp23008": (0x20, 0x27),
    "ht16k33": (0x70, 0x77),
    "ssd1306": (0x3C, 0x3D),
}

#: GPIOs with an ADC input on the header.
ADC_GPIOS = RULES.ADC_GPIOS

#: The servo drivers always run their PWM at this frequency (drivers/servo.py).
SERVO_HZ = 50

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
    return RULES.parse_addr(v)


def _pin_gpio(spec: Any) -> int | None:
    if isinstance(spec, dict) and _is_int(spec.get("gpio")):
        return spec["gpio"]
    return None


# --------------------------------------------------------------------------
# checks


def _name(n: Any) -> str:
    return str(RULES.key("pins", n))


def _check_pin_docs(pins: dict, out: list[str]) -> None:
    # For people: what each pin is wired to, and pulls that read as active.
    for name, spec in pins.items():
        if not isinstance(spec, dict):
            continue
        path = _name(name)
        if "part" not in spec:
            out.append("%s: missing required key 'part' (what the pin is wired to)" % path)
        elif not (isinstance(spec["part"], str) and spec["part"].strip()):
            out.append("%s.part: must be a non-empty text naming the part it is wired to" % path)
        if spec.get("kind") != "input":
            continue
        pull, active = spec.get("pull"), spec.get("active", 0)
        if pull == "down" and active == 0:
            out.append("%s: pull down with active low (active 0) reads as active whenever "
                       "nothing drives the line" % path)
        if pull == "up" and active == 1:
            out.append("%s: pull up with active high (active 1) reads as active whenever "
                       "nothing drives the line" % path)


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
                    out.append("%s: PWM pins %s (%s) and %s (%s) are both on PWM slice %d "
                               "channel %s: they would output the same signal; move one to "
                               "another slice" % (_name(b[0]), a[0], gp(a[1]), b[0], gp(b[1]),
                                                  sl, a[2]))
                elif a[3] != b[3]:
                    out.append("%s: PWM pins %s (%s, %s Hz) and %s (%s, %s Hz) share PWM slice "
                               "%d (channels %s and %s), which has one frequency; use the same "
                               "frequency or another slice"
                               % (_name(b[0]), a[0], gp(a[1]), a[3], b[0], gp(b[1]), b[3], sl,
                                  a[2], b[2]))


def _i2c_devices(pinmap: dict) -> list:
    block = pinmap.get("i2c")
    if isinstance(block, list):
        return block
    if isinstance(block, dict) and isinstance(block.get("devices"), list):
        return block["devices"]
    return []


def _check_i2c_kinds(pinmap: dict, out: list[str]) -> None:
    # Chips answer only at the addresses their address pins can select.
    for k, dev in enumerate(_i2c_devices(pinmap)):
        if not isinstance(dev, dict):
            continue
        kind, addr = dev.get("kind"), parse_addr(dev.get("addr"))
        lo_hi = I2C_KIND_ADDR.get(kind.lower()) if isinstance(kind, str) else None
        if lo_hi and addr is not None and 0x08 <= addr <= 0x77 \
                and not lo_hi[0] <= addr <= lo_hi[1]:
            out.append("i2c.devices[%d].addr: a %s answers only at 0x%02X-0x%02X, not 0x%02X"
                       % (k, kind, lo_hi[0], lo_hi[1], addr))


def _check_budget(pinmap: dict, pins: dict, out: list[str]) -> None:
    has_np = any(isinstance(s, dict) and s.get("kind") == "neopixel" for s in pins.values())
    px = pinmap.get("pixels")
    if not isinstance(px, dict):
        return
    if not has_np:
        out.append("pixels: block present but no pin has kind \"neopixel\"")
    count = px.get("count")
    ma = px.get("max_ma_per_led", DEFAULT_MA_PER_LED)
    budget = px.get("budget_ma", DEFAULT_BUDGET_MA)
    if not (_is_int(count) and count > 0 and _is_num(ma) and _is_num(budget) and ma > 0
            and budget > 0 and math.isfinite(ma) and math.isfinite(budget)):
        return  # reported by the shared rules
    cap = implied_cap(px)
    for key in ("max_brightness", "brightness"):
        b = px.get(key)
        if _is_num(b) and 0 <= b <= 1 and count * ma * b > budget + 1e-9:
            out.append("pixels.%s: %.3g is over the current budget: %d LEDs x %g mA x %.3g = "
                       "%.0f mA > budget_ma %g (cap %.3f)"
                       % (key, b, count, ma, b, count * ma * b, budget, cap))


def expected_build(path: Path) -> str | None:
    """The build a board loads ``path`` for (by its file name), or None for another name."""
    name = path.stem
    return name if name in RULES.BUILDS else None


def validate(pinmap: Any, build: str | None = None) -> list[str]:
    """Every problem of a pin map, each "<key>: <problem>"; [] if it is fine.

    ``build``: the build the map is for (``hauntbox flash`` and the board take
    it from the file name); None: the map's own ``build`` key.
    """
    out = [str(p) for p in RULES.check(pinmap, build)]
    if not isinstance(pinmap, dict) or not RULES.depth_ok(pinmap):
        return out
    pins = pinmap.get("pins")
    pins = pins if isinstance(pins, dict) else {}
    _check_pin_docs(pins, out)
    _check_pwm(pins, out)
    _check_i2c_kinds(pinmap, out)
    _check_budget(pinmap, pins, out)
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
        # machine.bitstream drives the pin (interrupts off while a frame goes
        # out). A map with several chains gives each its own block naming its
        # pin ({"pin": ..., "count": ...}); "count" at the top is their total.
        px = pinmap.get("pixels")
        n = None
        if isinstance(px, dict):
            name = next((k for k, v in (pinmap.get("pins") or {}).items() if v is spec), None)
            own = [b.get("count") for b in px.values()
                   if isinstance(b, dict) and b.get("pin") == name]
            n = own[0] if own else px.get("count")
        if _is_int(n):
            return "%d pixels, bitstream, %.2f ms per frame" % (n, (n * 30 + 50) / 1000)
        return "bitstream"
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
    devices = _i2c_devices(pinmap)
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
        return str(path.resolve().relative_to(REPO_ROOT or FIRMWARE_DIR.parent))
    except ValueError:
        return str(path)


def check_file(path: Path) -> tuple[dict | None, list[str]]:
    """(pin map or None, problems) for one file; never raises on what the file holds."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        return None, ["cannot read %s: %s" % (path, e.strerror or e)]
    except UnicodeDecodeError as e:
        return None, ["not UTF-8 text (%s at byte %d)" % (e.reason, e.start)]
    try:
        pm = json.loads(text)
    except json.JSONDecodeError as e:
        return None, ["not valid JSON: %s (line %d, column %d)" % (e.msg, e.lineno, e.colno)]
    except RecursionError:
        return None, ["the pin map nests more than %d levels deep" % RULES.MAX_DEPTH]
    except ValueError as e:  # e.g. a number too long to convert
        return None, ["not valid JSON: %s" % e]
    return pm, validate(pm, expected_build(path))


def first_problem(problems: list[str]) -> str:
    """One line for a map with problems: the first, and how many more."""
    more = len(problems) - 1
    return problems[0] + (" (+%d more: run hauntbox pins)" % more if more > 0 else "")


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
        print(clean("== %s%s ==" % (_display(path), " (%s)" % build if build else "")))
        if pm is not None and not args.quiet and RULES.depth_ok(pm):
            print(clean_lines(format_table(pm)))
        if problems:
            bad += 1
            print("%d problem%s:" % (len(problems), "" if len(problems) == 1 else "s"))
            for p in problems:
                print("  - " + clean(p))
        else:
            print("OK: no problems")
    if len(files) > 1:
        print()
        print("%d pin map%s checked, %d with problems"
              % (len(files), "" if len(files) == 1 else "s", bad))
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
