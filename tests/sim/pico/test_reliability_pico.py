"""`make reliability` on the emulated Pico (sim/pico/reliability.py), in small:
a handful of power cuts on the port's littlefs, one Ctrl-C, the JSON summary.

The whole run (hundreds of cuts, Ctrl-Cs, watchdog resets) is `make reliability`;
this one boots a few cut images of one Roller Ghoster turn plus the two
self-check cuts that must fail (a filesystem whose superblocks are wiped, and a
save whose dice generator the expectation changes), so it shows that the
checks can fail and that the summary carries every key.
"""
import json

from hauntbox_sim.reliability import figures as reliability

KEYS = ("pico_cuts", "pico_unmountable", "pico_lost_turns", "pico_resumed_exact",
        "pico_wrong_resumes", "pico_settings_bad", "pico_no_hello", "pico_flash_ops",
        "pico_ctrl_c", "pico_ctrl_c_servo_left_on", "pico_ctrl_c_repl_failed",
        "pico_ctrl_c_soft_reset_failed", "pico_watchdog", "pico_watchdog_resumed",
        "pico_wall_s", "pico_runtime")


def test_a_few_cuts_and_a_ctrl_c_write_the_summary_and_the_checks_can_fail(tmp_path):
    out = tmp_path / "reliability.json"
    rc = reliability.main(["--only-pico", "--pico-game", "roller-ghoster", "--pico-turns", "1",
                           "--pico-cut-limit", "2", "--pico-random-cuts", "0",
                           "--pico-ctrl-c", "1", "--pico-watchdog", "0",
                           "--pico-self-check", "--pico-flood", "0", "--json", str(out)])
    s = json.loads(out.read_text())
    for k in KEYS:
        assert k in s, k
    assert s["pico_runtime"].startswith("MicroPython v1.28.0")
    # 2 real cuts + the 2 self-check ones, each booted on the chip.
    assert s["pico_cuts"] == 4 and s["pico_cuts_by_kind"]["self-check"] == 2
    assert s["pico_flash_ops"] > 3
    # The wiped superblocks: the port formats the flash (main.py gone).
    assert s["pico_unmountable"] == 1
    # The changed dice generator: the board resumed the save, not that.
    assert s["pico_wrong_resumes"] == 1
    # The two real cuts passed: resumed exactly or a fresh game before any save.
    assert s["pico_resumed_exact"] + s["pico_fresh_ok"] == 2
    assert s["pico_lost_turns"] == 0 and s["pico_settings_bad"] == 0 and s["pico_no_hello"] == 0
    assert s["pico_ctrl_c"] == 1 and s["pico_ctrl_c_servo_left_on"] == 0
    assert s["pico_ctrl_c_repl_failed"] == 0 and s["pico_ctrl_c_soft_reset_failed"] == 0
    assert not s["pico_ok"] and not s["ok"] and rc == 1
