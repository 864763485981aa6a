"""Ctrl-C while the tower turns: the same scenario on the CPython fakes and on
the emulated Pico (the official rp2 firmware), with the same outcome.

On MicroPython a KeyboardInterrupt that escapes asyncio.run leaves every other
task suspended, so `Tower.rotate`'s own `finally: servo.off()` never runs; the
fakes now behave the same (sim/fakes/install.py), and the firmware makes the
hardware safe on its way out (app.play: make_safe). Both must show: no servo
pulse after the interrupt, LEDs dimmed.
"""
import asyncio

import pytest

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.pico.session import RollerPico
from hauntbox_sim.boards.roller import RollerSim

SAFE_LEVEL = 6          # brightest channel byte at SAFE_BRIGHTNESS 0.02 (255 * 0.02 = 5.1)


def fakes_ctrl_c_mid_rotation(use_play: bool):
    s = RollerSim(players=2, seed=1, noise="none")
    import app as app_module            # the firmware's, once the fakes are installed
    servo = s.tower.servo_pin.pwm

    async def ctrl_c():
        while servo.duty_ns() == 0:
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.037)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        if use_play:
            app_module.play(s.app, sim_install.run, [ctrl_c()])
        else:
            sim_install.run(s.app.main_async(2, 0, False, extra_tasks=[ctrl_c()]))
    frame = s.app.controller.build.strip.np.last_frame()
    return servo.duty_ns(), max(frame)


def test_on_the_fakes_a_ctrl_c_leaves_the_tasks_suspended_as_on_the_port():
    # Without the firmware's own exit path the servo keeps driving: the fake
    # no longer cancels the tower's task for it (CPython's asyncio.run would).
    duty, _ = fakes_ctrl_c_mid_rotation(use_play=False)
    assert duty != 0


def test_ctrl_c_mid_rotation_stops_the_servo_on_the_fakes_and_on_the_emulated_pico():
    duty, brightest = fakes_ctrl_c_mid_rotation(use_play=True)
    fakes = (duty == 0, brightest <= SAFE_LEVEL)

    with RollerPico(players=2, seed=1, noise="none") as s:
        texts = []
        s.host.on_text = texts.append
        s.connect()
        s.play(max_s=60, until=s.board.servo_on)
        s.board.run(37)
        t_ctrl_c = s.board.now_us
        s.board.pico.write(b"\x03")
        s.board.run(1000)
        assert "KeyboardInterrupt: " in texts
        # The pin measured on the chip: the last pulse began before the Ctrl-C
        # reached the board, so none came within one PWM period after it.
        assert s.board.servo.duty_ns() == 0
        assert s.board.servo_quiet_us < t_ctrl_c + 20_000
        leds = s.board.frames[s.pinmap["pins"]["pixels"]["gpio"]]
        pico = (True, max(leds) <= SAFE_LEVEL)
        # The REPL answers, and a soft reset starts main.py cleanly again.
        s.board.pico.write(b"\r\n")
        s.board.run(200)
        assert texts[-1] == ">>> "
        s.board.pico.write(b"\x04")
        hello = s.host.request("hello", timeout_ms=5000)
        assert hello["ok"]
    assert fakes == pico == (True, True)
