"""Pin map validator (hauntbox_fw.pinmap, `hauntbox pins`)."""

import ast
import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hauntbox_fw import pinmap as pm

ROOT = Path(pm.__file__).resolve().parents[2]
BOARDS = sorted((ROOT / "firmware" / "boards").glob("*.json"))
ROLLER = ROOT / "firmware" / "boards" / "roller-ghoster.json"


def load(path):
    return json.loads(Path(path).read_text())


def base():
    # A small valid map, independent of the real ones.
    return {
        "build": "test",
        "board": "pico",
        "pins": {
            "servo": {"gpio": 16, "kind": "pwm", "freq": 50, "part": "servo signal"},
            "btn": {"gpio": 2, "kind": "input", "pull": "up", "active": 0, "part": "button"},
            "pixels": {"gpio": 22, "kind": "neopixel", "part": "WS2812B data in"},
        },
        "pixels": {"count": 10, "max_ma_per_led": 60, "budget_ma": 500},
    }


def haunted_house():
    # A pinball map in the generic I2C shape (not the Haunted House build's
    # own, which the firmware checks with its expander inputs): two MCP23017
    # on I2C0 with their INT lines, an HT16K33 display on I2C1, a solenoid PWM
    # at 1 kHz, pixels.
    return {
        "build": "pinball-test",
        "board": "pico",
        "pins": {
            "sda0": {"gpio": 20, "kind": "i2c_sda", "bus": 0, "part": "MCP23017 SDA"},
            "scl0": {"gpio": 21, "kind": "i2c_scl", "bus": 0, "part": "MCP23017 SCL"},
            "sda1": {"gpio": 26, "kind": "i2c_sda", "bus": 1, "part": "HT16K33 SDA"},
            "scl1": {"gpio": 27, "kind": "i2c_scl", "bus": 1, "part": "HT16K33 SCL"},
            "mcp_targets_int": {"gpio": 18, "kind": "input", "pull": "up", "active": 0,
                                "part": "MCP23017 #1 INTA"},
            "mcp_holes_int": {"gpio": 19, "kind": "input", "pull": "up", "active": 0,
                              "part": "MCP23017 #2 INTA"},
            "flipper": {"gpio": 8, "kind": "pwm", "freq": 1000, "part": "flipper solenoid MOSFET"},
            "kicker": {"gpio": 9, "kind": "pwm", "freq": 1000, "part": "kicker solenoid MOSFET"},
            "pixels": {"gpio": 22, "kind": "neopixel", "part": "WS2812B data in"},
            "btn_start": {"gpio": 2, "kind": "input", "pull": "up", "active": 0,
                          "part": "START button"},
        },
        "i2c": {"freq": 400000, "devices": [
            {"name": "mcp_targets", "addr": 0x20, "bus": 0, "kind": "mcp23017",
             "int_pin": "mcp_targets_int"},
            {"name": "mcp_holes", "addr": "0x21", "bus": 0, "kind": "mcp23017",
             "int_pin": "mcp_holes_int"},
            {"name": "score", "addr": 0x70, "bus": 1, "kind": "ht16k33"},
        ]},
        "pixels": {"count": 16, "max_ma_per_led": 60, "budget_ma": 500, "max_brightness": 0.5},
    }


def problems_with(pinmap, needle):
    found = [p for p in pm.validate(pinmap) if needle in p]
    assert found, "no problem containing %r in %r" % (needle, pm.validate(pinmap))
    return found


# --------------------------------------------------------------------------
# the real maps


def test_roller_map_validates_clean():
    assert pm.validate(load(ROLLER)) == []


@pytest.mark.parametrize("path", BOARDS, ids=[p.name for p in BOARDS])
def test_every_board_map_in_the_repo_validates_clean(path):
    assert pm.validate(load(path)) == []


def test_roller_servo_slice_and_cap():
    m = load(ROLLER)
    servo = m["pins"]["servo"]["gpio"]
    assert pm.pwm_slice(servo) == ((servo >> 1) & 7, "AB"[servo & 1])
    assert pm.pwm_slice(16) == (0, "A")
    assert pm.pwm_slice(17) == (0, "B")
    assert pm.pwm_slice(15) == (7, "B")
    # 51 LEDs x 60 mA = 3060 mA at full white, budget 500 mA -> 0.163
    assert pm.implied_cap({"count": 51, "max_ma_per_led": 60, "budget_ma": 500}) == \
        pytest.approx(500 / 3060)
    assert round(pm.implied_cap(m["pixels"]), 3) == round(
        m["pixels"]["budget_ma"] / (m["pixels"]["count"] * m["pixels"]["max_ma_per_led"]), 3)


def _firmware_max_brightness():
    # The firmware's own max_brightness(px), taken from its source (it cannot be
    # imported on CPython without the simulator's fake modules).
    for path in sorted((ROOT / "firmware").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "max_brightness":
                ns = {}
                exec(compile(ast.Module([node], []), str(path), "exec"), ns)  # noqa: S102
                return ns["max_brightness"]
    return None


@pytest.mark.parametrize("px", [
    {"count": 51, "max_ma_per_led": 60, "budget_ma": 500},
    {"count": 51},
    {"count": 4, "max_ma_per_led": 60, "budget_ma": 500},
    {"count": 100, "max_ma_per_led": 20, "budget_ma": 1500},
])
def test_implied_cap_matches_firmware_max_brightness(px):
    fw = _firmware_max_brightness()
    if fw is None:
        pytest.skip("firmware has no max_brightness() any more")
    assert pm.implied_cap(px) == pytest.approx(fw(px))


# --------------------------------------------------------------------------
# synthetic maps


def test_base_and_haunted_house_maps_are_valid():
    assert pm.validate(base()) == []
    assert pm.validate(haunted_house()) == []


def test_duplicate_gpio_names_both_pins():
    m = base()
    m["pins"]["btn2"] = {"gpio": 2, "kind": "input", "pull": "up", "active": 0, "part": "b2"}
    (p,) = problems_with(m, "GP2 is used twice")
    assert p.startswith("pins.btn2.gpio:") and "by btn and btn2" in p


@pytest.mark.parametrize("gpio,reason", [
    (23, "SMPS"), (24, "VBUS"), (25, "LED"), (29, "VSYS"),
])
def test_reserved_gpios_rejected_with_reason(gpio, reason):
    m = base()
    m["pins"]["btn"]["gpio"] = gpio
    (p,) = problems_with(m, "GP%d cannot be used" % gpio)
    assert reason in p and p.startswith("pins.btn.gpio:")


@pytest.mark.parametrize("gpio", [30, 31, 47, -1])
def test_gpio_that_does_not_exist(gpio):
    m = base()
    m["pins"]["btn"]["gpio"] = gpio
    (p,) = problems_with(m, "does not exist")
    assert "GP%d" % gpio in p and p.startswith("pins.btn.gpio:")


def test_every_header_gpio_is_accepted_and_nothing_else():
    for g in range(0, 30):
        m = {"build": "t", "board": "pico",
             "pins": {"x": {"gpio": g, "kind": "input", "pull": "up", "part": "p"}}}
        assert (pm.validate(m) == []) == (g in pm.HEADER_GPIOS), g
    assert sorted(pm.HEADER_GPIOS) == list(range(23)) + [26, 27, 28]
    assert sorted(pm.HEADER_PIN) == sorted(pm.HEADER_GPIOS)


def test_header_pin_numbers_follow_the_pico_pinout():
    # Physical pins 1..40 of the Pico (Raspberry Pi Pico datasheet pinout).
    order = ("GP0 GP1 GND GP2 GP3 GP4 GP5 GND GP6 GP7 GP8 GP9 GND GP10 GP11 GP12 GP13 GND "
             "GP14 GP15 GP16 GP17 GND GP18 GP19 GP20 GP21 GND GP22 RUN GP26 GP27 AGND GP28 "
             "ADC_VREF 3V3 3V3_EN GND VSYS VBUS").split()
    assert len(order) == 40
    assert {g: order.index("GP%d" % g) + 1 for g in pm.HEADER_GPIOS} == pm.HEADER_PIN


def test_pwm_slice_conflict_at_different_freq():
    m = base()
    m["pins"]["buzzer"] = {"gpio": 17, "kind": "pwm", "freq": 2000, "part": "buzzer"}
    (p,) = problems_with(m, "share PWM slice 0")
    assert p.startswith("pins.buzzer:") and "servo (GP16, 50 Hz)" in p and "2000 Hz" in p


def test_pwm_same_slice_same_freq_is_fine():
    m = base()
    m["pins"]["servo2"] = {"gpio": 17, "kind": "pwm", "freq": 50, "part": "second servo"}
    assert pm.validate(m) == []


def test_pwm_freq_defaults_to_50_like_board_py():
    m = base()
    m["pins"]["servo2"] = {"gpio": 17, "kind": "pwm", "part": "second servo"}
    assert pm.validate(m) == []
    m["pins"]["servo2"]["freq"] = 60
    problems_with(m, "share PWM slice 0")


def test_pwm_same_slice_and_channel_conflict_even_at_same_freq():
    # GP0 and GP16 are both slice 0 channel A.
    m = base()
    m["pins"]["other"] = {"gpio": 0, "kind": "pwm", "freq": 50, "part": "other servo"}
    (p,) = problems_with(m, "same signal")
    assert "slice 0 channel A" in p and "servo (GP16)" in p and p.startswith("pins.other:")


def test_input_on_a_pwm_slice_is_no_conflict():
    m = base()
    m["pins"]["notch"] = {"gpio": 17, "kind": "input", "pull": "up", "active": 0, "part": "n"}
    assert pm.validate(m) == []


def test_i2c_pin_on_wrong_bus():
    m = haunted_house()
    m["pins"]["sda0"]["gpio"] = 2     # GP2 is I2C1 SDA, declared bus 0
    (p,) = problems_with(m, "GP2 cannot carry I2C0 SDA")
    assert p.startswith("pins.sda0.gpio:") and "I2C0 SDA pins: GP0, GP4" in p


def test_i2c_scl_on_an_sda_pin():
    m = haunted_house()
    m["pins"]["scl0"]["gpio"] = 0     # GP0 is I2C0 SDA
    (p,) = problems_with(m, "GP0 cannot carry I2C0 SCL")
    assert p.startswith("pins.scl0.gpio:")


def test_i2c_bus_pins_on_different_controllers():
    m = haunted_house()
    del m["pins"]["sda1"], m["pins"]["scl1"]
    m["i2c"]["devices"].pop()
    m["pins"]["scl0"].update(gpio=7, bus=1)   # GP7 is I2C1 SCL: a valid pin, other controller
    found = pm.validate(m)
    assert "pins: I2C0 has no i2c_scl pin: both pins of a bus must be on the same controller " \
        "(add one with \"bus\": 0)" in found, found
    assert any("I2C1 has no i2c_sda pin" in p for p in found), found


def test_i2c_pin_without_bus():
    m = haunted_house()
    del m["pins"]["sda0"]["bus"]
    problems_with(m, "needs \"bus\": 0 or 1")


def test_i2c_duplicate_address_on_one_bus():
    m = haunted_house()
    m["i2c"]["devices"][1]["addr"] = 0x20
    (p,) = problems_with(m, "0x20 on I2C0 is already used by 'mcp_targets'")
    assert p.startswith("i2c.devices[1].addr:")


def test_i2c_same_address_on_two_buses_is_fine():
    m = haunted_house()
    m["i2c"]["devices"][2].update(addr=0x20, kind="mcp23017")
    assert pm.validate(m) == []


@pytest.mark.parametrize("addr", [0x00, 0x07, 0x78, 0x7F, 0x80])
def test_i2c_address_out_of_range(addr):
    m = haunted_house()
    m["i2c"]["devices"][2]["addr"] = addr
    (p,) = problems_with(m, "outside 0x08-0x77")
    assert p.startswith("i2c.devices[2].addr:")


@pytest.mark.parametrize("addr", [0x1F, 0x28, 0x40])
def test_mcp23017_address_range(addr):
    m = haunted_house()
    m["i2c"]["devices"][0]["addr"] = addr
    (p,) = problems_with(m, "0x20-0x27")
    assert p.startswith("i2c.devices[0].addr:") and "mcp23017" in p


@pytest.mark.parametrize("addr", [0x20, 0x23, 0x27, "0x27", "39"])
def test_mcp23017_addresses_accepted(addr):
    m = haunted_house()
    m["i2c"]["devices"][1]["addr"] = 0x26
    m["i2c"]["devices"][0]["addr"] = addr
    assert pm.validate(m) == []


def test_i2c_bad_address_text():
    m = haunted_house()
    m["i2c"]["devices"][0]["addr"] = "twenty"
    problems_with(m, "addr: must be a number")


def test_int_pin_not_an_input():
    m = haunted_house()
    m["i2c"]["devices"][0]["int_pin"] = "flipper"
    (p,) = problems_with(m, "must have kind input")
    assert p.startswith("i2c.devices[0].int_pin:") and "flipper" in p and "pwm" in p


def test_int_pin_not_in_map():
    m = haunted_house()
    m["i2c"]["devices"][1]["int_pin"] = "nowhere"
    (p,) = problems_with(m, "not a pin of the map")
    assert "'nowhere'" in p


def test_i2c_device_on_bus_without_pins():
    m = haunted_house()
    del m["pins"]["sda1"], m["pins"]["scl1"]
    problems_with(m, "devices[2].bus: I2C1 has no i2c_sda/i2c_scl pins")


def test_i2c_device_list_form_and_required_keys():
    m = haunted_house()
    m["i2c"] = m["i2c"]["devices"]
    assert pm.validate(m) == []
    del m["i2c"][0]["kind"]
    problems_with(m, "missing required key 'kind'")


def test_i2c_freq_limit():
    m = haunted_house()
    m["i2c"]["freq"] = 3_400_000
    problems_with(m, "i2c.freq: must be a whole number 1..1000000")


def test_brightness_over_budget():
    m = base()
    m["pixels"] = {"count": 51, "max_ma_per_led": 60, "budget_ma": 500, "max_brightness": 0.5}
    (p,) = problems_with(m, "over the current budget")
    assert "51 LEDs x 60 mA x 0.5 = 1530 mA > budget_ma 500" in p and "cap 0.163" in p


def test_brightness_at_the_cap_is_fine():
    m = base()
    m["pixels"] = {"count": 51, "max_ma_per_led": 60, "budget_ma": 500,
                   "max_brightness": 500 / 3060, "brightness": 0.15}
    assert pm.validate(m) == []
    m["pixels"]["brightness"] = 0.17
    problems_with(m, "pixels.brightness: 0.17 is over the current budget")


@pytest.mark.parametrize("count", [0, -3, 2.5, "51", None])
def test_pixels_count_must_be_positive(count):
    m = base()
    m["pixels"]["count"] = count
    problems_with(m, "pixels.count: must be a whole number 1..256")


def test_pixels_block_required_with_a_neopixel_pin_and_segments_inside():
    m = base()
    del m["pixels"]
    problems_with(m, "needs a \"pixels\" block")
    m = base()
    m["pixels"]["die_from"] = 10
    problems_with(m, "pixels.die_from: must be a whole number 0..9, not 10")


@pytest.mark.parametrize("key", ["gpio", "kind", "part"])
def test_required_pin_keys(key):
    m = base()
    del m["pins"]["btn"][key]
    (p,) = problems_with(m, "missing required key %r" % key)
    assert p.startswith("pins.btn:")


def test_required_top_level_keys_and_kinds():
    for key in ("build", "board", "pins"):
        m = base()
        del m[key]
        problems_with(m, "%s: missing required top-level key" % key)
    m = base()
    m["pins"]["btn"]["kind"] = "button"
    (p,) = problems_with(m, "unknown kind 'button'")
    assert p.startswith("pins.btn.kind:")
    m = base()
    m["board"] = "esp32"
    problems_with(m, "board: 'esp32' is not supported")


def test_pin_field_values():
    m = base()
    m["pins"]["btn"]["pul"] = "up"
    problems_with(m, "unknown key 'pul'")
    m = base()
    m["pins"]["btn"]["pull"] = "sideways"
    problems_with(m, "pins.btn.pull: must be")
    m = base()
    m["pins"]["btn"]["active"] = 2
    problems_with(m, "pins.btn.active: must be 0")
    m = base()
    m["pins"]["btn"]["gpio"] = "GP2"
    problems_with(m, "pins.btn.gpio: must be a whole number")
    m = base()
    m["pins"]["btn"]["gpio"] = True
    problems_with(m, "gpio: must be a whole number")
    m = base()
    m["pins"]["btn"]["part"] = ""
    problems_with(m, "pins.btn.part: must be a non-empty text")


def test_input_pull_against_active_level():
    m = base()
    m["pins"]["btn"].update(pull="down", active=0)
    problems_with(m, "pull down with active low")
    m["pins"]["btn"].update(pull="up", active=1)
    problems_with(m, "pull up with active high")
    m["pins"]["btn"].update(pull="down", active=1)
    assert pm.validate(m) == []


def test_adc_only_on_gp26_to_gp28():
    m = base()
    m["pins"]["pot"] = {"gpio": 26, "kind": "adc", "part": "pot"}
    assert pm.validate(m) == []
    m["pins"]["pot"]["gpio"] = 5
    problems_with(m, "GP5 has no ADC input")


def test_servo_block_limits():
    m = load(ROLLER)
    m["servo"]["min_ns"] = 400000
    problems_with(m, "servo.min_ns: must be a whole number 500000..2500000")
    m = load(ROLLER)
    m["servo"]["forward_ns"] = 2100000
    problems_with(m, "servo.forward_ns: must lie within min_ns..max_ns")
    m = load(ROLLER)
    m["servo"]["forward_ns"] = m["servo"]["stop_ns"]
    problems_with(m, "never turn")
    m = load(ROLLER)
    m["servo"]["min_ns"], m["servo"]["max_ns"] = 2000000, 1000000
    problems_with(m, "must be below max_ns")
    m = load(ROLLER)
    m["pins"]["servo"]["freq"] = 100
    problems_with(m, "pins.servo.freq: must be 50 Hz")
    m = load(ROLLER)
    m["servo"]["ratchet"]["push_deg"] = 200
    problems_with(m, "servo.ratchet.push_deg: must be a whole number 0..180")


def test_pwm_freq_range():
    m = base()
    m["pins"]["servo"]["freq"] = 5
    problems_with(m, "pins.servo.freq: PWM freq must be")


def test_the_real_map_with_a_reserved_pin_fails():
    m = copy.deepcopy(load(ROLLER))
    m["pins"]["pixels"]["gpio"] = 25
    (p,) = problems_with(m, "GP25")
    assert p.startswith("pins.pixels.gpio:") and "on-board LED" in p


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=False)
    | st.sampled_from(["pwm", "input", "i2c_sda", "neopixel", "up", "0x20", "pins", "gpio"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["build", "board", "pins", "gpio", "kind", "part", "pull", "active",
                         "freq", "bus", "i2c", "devices", "addr", "int_pin", "name", "pixels",
                         "count", "servo", "min_ns", "x"]), inner, max_size=5),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_validate_never_raises_on_garbage(doc):
    out = pm.validate(doc)
    assert isinstance(out, list) and all(isinstance(p, str) for p in out)
    if isinstance(doc, dict):
        pm.format_table(doc)


# --------------------------------------------------------------------------
# command line


def test_main_real_map_prints_table(capsys):
    assert pm.main([str(ROLLER)]) == 0
    out = capsys.readouterr().out
    assert "roller-ghoster.json (roller-ghoster)" in out
    assert "OK: no problems" in out
    m = load(ROLLER)
    for name, spec in m["pins"].items():
        line = next(ln for ln in out.splitlines() if ln.startswith(name + " "))
        assert "GP%d " % spec["gpio"] in line
        assert spec["part"] in line
        assert spec["kind"] in line
    servo = m["pins"]["servo"]["gpio"]
    sl, ch = pm.pwm_slice(servo)
    assert "PWM slice %d %s, 50 Hz" % (sl, ch) in out
    assert "brightness cap 0.163" in out


def test_main_defaults_to_every_board_map(capsys):
    assert pm.main([]) == 0
    out = capsys.readouterr().out
    for path in BOARDS:
        assert path.name in out


def test_main_bad_map_exits_1_and_lists_problems(tmp_path, capsys):
    m = base()
    m["pins"]["btn"]["gpio"] = 24
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(m))
    assert pm.main([str(bad)]) == 1
    out = capsys.readouterr().out
    assert "1 problem:" in out and "GP24 cannot be used" in out and "VBUS" in out


def test_main_good_and_bad_summary(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(haunted_house()))
    m = haunted_house()
    m["i2c"]["devices"][1]["addr"] = 0x20
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(m))
    assert pm.main([str(good)]) == 0
    out = capsys.readouterr().out
    assert "I2C devices:" in out and "0x21" in out and "mcp_holes_int" in out
    assert "I2C0 SDA" in out and "PWM slice 4 A, 1000 Hz" in out
    assert pm.main([str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert "2 pin maps checked, 1 with problems" in out


def test_main_invalid_json_and_missing_file(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text('{"pins": {')
    assert pm.main([str(broken)]) == 1
    assert "not valid JSON" in capsys.readouterr().out
    assert pm.main([str(tmp_path / "nope.json")]) == 1
    assert "cannot read" in capsys.readouterr().out


def test_main_quiet_and_bad_option(tmp_path, capsys):
    assert pm.main(["--quiet", str(ROLLER)]) == 0
    out = capsys.readouterr().out
    assert "OK: no problems" in out and "slice" not in out
    assert pm.main(["--no-such-option"]) == 2


# --------------------------------------------------------------------------
# the wiring document agrees with the map


def test_wiring_md_has_a_row_for_every_pin_of_the_roller_map():
    text = (ROOT / "hardware" / "roller-ghoster" / "wiring.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[1].startswith("GP") and cells[2].startswith("`"):
            rows[cells[2].split("`")[1]] = (cells[0], cells[1])
    m = load(ROLLER)
    for name, spec in m["pins"].items():
        assert name in rows, "wiring.md has no row for pin %r" % name
        g = spec["gpio"]
        assert rows[name] == (str(pm.HEADER_PIN[g]), "GP%d" % g), name
    assert set(rows) == set(m["pins"])
