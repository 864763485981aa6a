"""The Wokwi diagram of the Roller Ghoster tower matches its pin map.

hardware/roller-ghoster/diagram.json must wire every pin of
firmware/boards/roller-ghoster.json that has a GPIO to the Pico pin GP<n>, on a
part whose id is the pin-map name, and must use no Pico GP pin the map does not
list. Editing the pin map without the diagram (or the reverse) fails here.

Part types and pin names are the ones documented by Wokwi (docs.wokwi.com/parts):
wokwi-pi-pico (GP0-GP22, GP26-GP28, GND.1-GND.8, VBUS, VSYS, 3V3), wokwi-servo
(PWM, V+, GND), wokwi-led-strip (DIN, DOUT, VDD, VSS, VDD.2, VSS.2),
wokwi-neopixel (DIN, DOUT, VDD, VSS), wokwi-led-ring (DIN, DOUT, VCC, GND),
wokwi-pushbutton (1.l, 1.r, 2.l, 2.r), wokwi-slide-switch (1, 2, 3), wokwi-led (A, C).
"""

import copy
import json
from pathlib import Path

import pytest

from hauntbox_fw import pinmap as pm

ROOT = Path(pm.__file__).resolve().parents[2]
PINMAP = ROOT / "firmware" / "boards" / "roller-ghoster.json"
DIAGRAM = ROOT / "hardware" / "roller-ghoster" / "diagram.json"

PICO = "pico"
PICO_GP = {"GP%d" % g for g in pm.HEADER_GPIOS}
PICO_GND = {"GND.%d" % k for k in range(1, 9)}
PICO_POWER = {"VBUS", "VSYS", "3V3"}
BUTTON_PINS = {"1.l", "1.r", "2.l", "2.r"}
PART_PINS = {
    "wokwi-pi-pico": PICO_GP | PICO_GND | PICO_POWER,
    "wokwi-servo": {"PWM", "V+", "GND"},
    "wokwi-led-strip": {"VDD", "DIN", "VSS", "VDD.2", "DOUT", "VSS.2"},
    "wokwi-neopixel": {"VDD", "DIN", "VSS", "DOUT"},
    "wokwi-led-ring": {"GND", "VCC", "DIN", "DOUT"},
    "wokwi-pushbutton": BUTTON_PINS,
    "wokwi-pushbutton-6mm": BUTTON_PINS,
    "wokwi-slide-switch": {"1", "2", "3"},
    "wokwi-led": {"A", "C"},
}
# Which part types may stand for a pin-map kind, and the pins of that part
# that take the GPIO.
KIND_PARTS = {
    "pwm": {"wokwi-servo": {"PWM"}},
    "neopixel": {"wokwi-led-strip": {"DIN"}, "wokwi-neopixel": {"DIN"}, "wokwi-led-ring": {"DIN"}},
    "input": {"wokwi-pushbutton": {"1.l", "1.r"}, "wokwi-pushbutton-6mm": {"1.l", "1.r"},
              "wokwi-slide-switch": {"2"}},
    "output": {"wokwi-led": {"A"}},
}
# Supply pins of each part type and what they must reach on the Pico.
SUPPLY = {
    "wokwi-servo": {"V+": {"VBUS", "VSYS"}, "GND": PICO_GND},
    "wokwi-led-strip": {"VDD": {"VBUS", "VSYS"}, "VSS": PICO_GND},
    "wokwi-neopixel": {"VDD": {"VBUS", "VSYS"}, "VSS": PICO_GND},
    "wokwi-led-ring": {"VCC": {"VBUS", "VSYS"}, "GND": PICO_GND},
}


def load(path):
    return json.loads(Path(path).read_text())


def split(endpoint):
    part, _, pin = endpoint.partition(":")
    return part, pin


def diagram_problems(pinmap, diagram):
    """Every way the diagram disagrees with Wokwi's format or with the pin map."""
    out = []
    for key in ("version", "author", "editor", "parts", "connections"):
        if key not in diagram:
            out.append("diagram: missing top-level key %r" % key)
    if out:
        return out
    if diagram["version"] != 1:
        out.append("diagram: version must be 1")
    if diagram["editor"] != "wokwi":
        out.append("diagram: editor must be \"wokwi\"")
    if not isinstance(diagram["author"], str) or not diagram["author"]:
        out.append("diagram: author must be a non-empty text")

    types = {}
    for part in diagram["parts"]:
        if not isinstance(part.get("id"), str) or not isinstance(part.get("type"), str):
            out.append("part %r: needs a text id and type" % (part,))
            continue
        if part["id"] in types:
            out.append("part id %r used twice" % part["id"])
        if part["type"] not in PART_PINS:
            out.append("part %r: type %r is not one of %s"
                       % (part["id"], part["type"], ", ".join(sorted(PART_PINS))))
        types[part["id"]] = part["type"]
    if types.get(PICO) != "wokwi-pi-pico":
        out.append("diagram: needs a wokwi-pi-pico part with id \"pico\"")
        return out

    links = []   # (part_a, pin_a, part_b, pin_b), both directions
    for c in diagram["connections"]:
        if not (isinstance(c, list) and len(c) == 4 and all(isinstance(x, str) for x in c[:3])
                and isinstance(c[3], list)):
            out.append("connection %r: must be [from, to, colour, [route]]" % (c,))
            continue
        ends = [split(c[0]), split(c[1])]
        for part, pin in ends:
            if part not in types:
                out.append("connection %r: no part with id %r" % (c[:2], part))
            elif types[part] in PART_PINS and pin not in PART_PINS[types[part]]:
                out.append("connection %r: %s has no pin %r" % (c[:2], types[part], pin))
        links.append(ends[0] + ends[1])
        links.append(ends[1] + ends[0])

    def pico_pins_of(part, pin):
        return {b_pin for a, a_pin, b, b_pin in links if a == part and a_pin == pin and b == PICO}

    # GP pins: every map pin wired, and nothing else.
    pins = pinmap["pins"]
    mapped = {"GP%d" % s["gpio"]: name for name, s in pins.items() if "gpio" in s}
    gp_links = {}
    for a, a_pin, b, b_pin in links:
        if a == PICO and a_pin.startswith("GP") and b != PICO:
            gp_links.setdefault(a_pin, set()).add((b, b_pin))
    for gpin in sorted(gp_links):
        if gpin not in mapped:
            out.append("diagram wires pico:%s to %s, but the pin map lists no pin on %s"
                       % (gpin, sorted(gp_links[gpin]), gpin))
        elif len({p for p, _ in gp_links[gpin]}) > 1:
            out.append("pico:%s is wired to several parts: %s" % (gpin, sorted(gp_links[gpin])))
    for gpin, name in sorted(mapped.items()):
        kind = pins[name]["kind"]
        if name not in types:
            out.append("pin %r (%s): no diagram part with id %r" % (name, gpin, name))
            continue
        allowed = KIND_PARTS.get(kind, {})
        if types[name] not in allowed:
            out.append("pin %r: kind %s should be drawn as %s, not %s"
                       % (name, kind, " or ".join(sorted(allowed)) or "?", types[name]))
            continue
        if not any((name, p) in gp_links.get(gpin, set()) for p in allowed[types[name]]):
            out.append("pin %r: the map puts it on %s, but the diagram does not wire pico:%s to "
                       "%s:%s" % (name, gpin, gpin, name, "/".join(sorted(allowed[types[name]]))))
        if kind == "input":
            # The other contact closes to GND (active low, pull up) or 3V3 (active high).
            want = PICO_GND if pins[name].get("active", 0) == 0 else {"3V3"}
            other = {"2.l", "2.r"} if types[name].startswith("wokwi-pushbutton") else {"1", "3"}
            if not any(pico_pins_of(name, p) & want for p in other):
                out.append("pin %r: the switch's other contact must go to %s"
                           % (name, "GND" if want is PICO_GND else "3V3"))

    # Supplies and the pixel count.
    for part, ptype in types.items():
        for pin, want in SUPPLY.get(ptype, {}).items():
            if not pico_pins_of(part, pin) & want:
                out.append("part %r: %s must be wired to the Pico's %s"
                           % (part, pin, "GND" if want is PICO_GND else "/".join(sorted(want))))
    px = pinmap.get("pixels")
    if px and "pixels" in types and types["pixels"] in ("wokwi-led-strip", "wokwi-led-ring"):
        attrs = next(p for p in diagram["parts"] if p["id"] == "pixels").get("attrs", {})
        if str(attrs.get("pixels")) != str(px["count"]):
            out.append("part 'pixels': attrs.pixels is %r, the pin map says %d LEDs"
                       % (attrs.get("pixels"), px["count"]))
    return out


@pytest.fixture(scope="module")
def real():
    return load(PINMAP), load(DIAGRAM)


def test_diagram_is_wokwi_json(real):
    _, d = real
    assert d["version"] == 1 and d["editor"] == "wokwi" and d["author"]
    assert isinstance(d["parts"], list) and isinstance(d["connections"], list)
    ids = [p["id"] for p in d["parts"]]
    assert len(ids) == len(set(ids))
    assert {p["type"] for p in d["parts"]} <= set(PART_PINS)


def test_diagram_matches_pin_map(real):
    pinmap, d = real
    assert diagram_problems(pinmap, d) == []


def test_every_gpio_pin_of_the_map_is_wired_to_its_part(real):
    pinmap, d = real
    conns = {frozenset((c[0], c[1])) for c in d["connections"]}
    for name, spec in pinmap["pins"].items():
        if "gpio" not in spec:
            continue
        gpin = "pico:GP%d" % spec["gpio"]
        assert any(gpin in c and any(e.startswith(name + ":") for e in c) for c in conns), name


def test_diagram_uses_no_pico_pin_outside_the_map(real):
    pinmap, d = real
    used = {e.split(":")[1] for c in d["connections"] for e in c[:2]
            if e.startswith("pico:GP")}
    assert used == {"GP%d" % s["gpio"] for s in pinmap["pins"].values() if "gpio" in s}


def free_gpio(m):
    used = {s["gpio"] for s in m["pins"].values() if "gpio" in s}
    return min(g for g in pm.HEADER_GPIOS if g not in used)


def _move(m, name):
    # Move a pin to a free GPIO; returns the text every report must mention.
    old, new = m["pins"][name]["gpio"], free_gpio(m)
    m["pins"][name]["gpio"] = new
    return "GP%d" % new, "GP%d" % old


def _drop(m, name):
    old = m["pins"].pop(name)["gpio"]
    return ("pin map lists no pin on GP%d" % old,)


def _add(m, name):
    m["pins"][name] = {"gpio": free_gpio(m), "kind": "input", "pull": "up", "active": 0,
                       "part": "x"}
    return ("'%s'" % name,)


def _rename(m, name):
    m["pins"][name + "x"] = m["pins"].pop(name)
    return ("'%sx'" % name,)


def _count(m, name):
    m["pixels"]["count"] += 9
    return ("%d LEDs" % m["pixels"]["count"],)


@pytest.mark.parametrize("edit,name", [
    (_move, "beam2"), (_move, "servo"), (_move, "pixels"), (_move, "btn_menu"),
    (_drop, "btn_menu"), (_drop, "notch"), (_add, "extra"), (_rename, "beam4"),
    (_count, "pixels"),
])
def test_editing_the_map_without_the_diagram_fails(real, edit, name):
    pinmap, d = real
    changed = copy.deepcopy(pinmap)
    needles = edit(changed, name)
    found = diagram_problems(changed, d)
    for needle in needles:
        assert any(needle in p for p in found), (needle, found)


@pytest.mark.parametrize("edit,needle", [
    (lambda d: d["connections"].pop(0), "servo"),
    (lambda d: d["connections"].append(["pico:GP20", "beam1:1.l", "yellow", []]), "GP20"),
    (lambda d: d["parts"][0].update(type="wokwi-arduino-uno"), "wokwi-pi-pico"),
    (lambda d: d["connections"].append(["pico:GP99", "beam1:1.l", "yellow", []]), "no pin 'GP99'"),
    (lambda d: d.pop("editor"), "editor"),
])
def test_editing_the_diagram_without_the_map_fails(real, edit, needle):
    pinmap, d = real
    d = copy.deepcopy(d)
    edit(d)
    found = diagram_problems(pinmap, d)
    assert any(needle in p for p in found), found


def test_button_ground_and_supply_checks(real):
    pinmap, d = real
    d = copy.deepcopy(d)
    d["connections"] = [c for c in d["connections"]
                        if not (c[0].startswith("btn_roll:2") or c[1].startswith("btn_roll:2"))
                        and "pixels:VDD" not in c[:2]]
    found = diagram_problems(pinmap, d)
    assert any("'btn_roll'" in p and "GND" in p for p in found), found
    assert any("'pixels'" in p and "VDD" in p for p in found), found
