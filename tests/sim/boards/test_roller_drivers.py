"""Layer 2: drivers and devices of the Roller Ghoster build against the fakes, virtual clock."""

import pytest


def make_tower(clock, faults=None, cfg=None, seed=1):
    from hauntbox_sim.boards.roller import RollerSim
    from hauntbox_sim.models.tower import Faults
    s = RollerSim(players=2, seed=seed, faults=faults or Faults(), tower_cfg=cfg)
    return s


# ---- servo ---------------------------------------------------------------

def test_servo_pulses_stay_within_calibrated_limits(clock):
    from machine import PWM, Pin
    from drivers.servo import ContinuousServo
    pwm = PWM(Pin(16))
    s = ContinuousServo(pwm, stop_ns=1500000, forward_ns=900000, min_ns=1100000, max_ns=1900000)
    assert pwm.freq() == 50
    for speed in (-10, -1, -0.5, 0, 0.3, 1, 7, 1e9):
        s.drive(speed)
        assert 1100000 <= pwm.duty_ns() <= 1900000
    s.stop()
    assert pwm.duty_ns() == 1500000
    s.off()
    assert pwm.duty_ns() == 0
    widths = [ns for _, ns in pwm.history if ns]
    assert widths and min(widths) >= 1100000 and max(widths) <= 1900000
    # forward_ns outside the limits was clamped at construction.
    assert s.forward_ns == 1100000


@pytest.mark.parametrize("lo, hi", [(400000, 2000000), (1000000, 2600000), (1500000, 1500000)])
def test_servo_rejects_limits_outside_hard_range(clock, lo, hi):
    from machine import PWM, Pin
    from drivers.servo import ContinuousServo
    with pytest.raises(ValueError):
        ContinuousServo(PWM(Pin(16)), min_ns=lo, max_ns=hi)


def test_positional_servo_maps_degrees_inside_limits(clock):
    from machine import PWM, Pin
    from drivers.ratchet_servo import PositionalServo
    pwm = PWM(Pin(15))
    s = PositionalServo(pwm, 1000000, 2000000)
    for deg, ns in ((-20, 1000000), (0, 1000000), (90, 1500000), (180, 2000000), (400, 2000000)):
        s.move(deg)
        assert pwm.duty_ns() == ns


# ---- pixels --------------------------------------------------------------

def test_pixel_strip_writes_only_on_change_and_caps_brightness(clock):
    import neopixel
    from machine import Pin
    from drivers.pixels import PixelStrip
    np = neopixel.NeoPixel(Pin(22), 10)
    strip = PixelStrip(np, brightness=0.9, max_brightness=0.25)
    assert strip.brightness == 0.25
    strip[3] = (255, 0, 0)
    assert strip.show() is True
    assert strip.show() is False
    strip[3] = (255, 0, 0)
    assert strip.show() is False
    strip.fill((0, 0, 255))
    assert strip.show() is True
    assert np.writes == 2
    # GRB order on the wire, brightness applied: 255 * 64 >> 8 = 63.
    assert np.last_frame()[:3] == bytes([0, 0, 63])
    assert np.decoded()[0] == (0, 0, 63)


def _frame_after_full_show(colours, brightness=0.2):
    # What show() of the whole frame puts on the wire: the reference for the
    # one-LED path.
    import neopixel
    from machine import Pin
    from drivers.pixels import PixelStrip
    np = neopixel.NeoPixel(Pin(21), len(colours))
    strip = PixelStrip(np, brightness=brightness)
    for i, c in enumerate(colours):
        strip[i] = c
    strip.show()
    return np.last_frame()


def test_show_led_writes_the_frame_a_full_show_would(clock):
    import neopixel
    from machine import Pin
    from drivers.pixels import PixelStrip
    np = neopixel.NeoPixel(Pin(22), 8)
    strip = PixelStrip(np)
    # Before any frame was written show_led() must still send the whole frame.
    assert strip.show_led(2, (255, 0, 0)) is True
    assert np.last_frame() == _frame_after_full_show([(0, 0, 0)] * 2 + [(255, 0, 0)] + [(0, 0, 0)] * 5)
    # In sync: only LED 5 changes.
    assert strip.show_led(5, (0, 60, 255)) is True
    want = [(0, 0, 0)] * 8
    want[2] = (255, 0, 0)
    want[5] = (0, 60, 255)
    assert np.last_frame() == _frame_after_full_show(want)
    # The same colour again: nothing to write.
    assert strip.show_led(5, (0, 60, 255)) is False
    assert np.writes == 2
    # Another LED changed since the last show: both must reach the wire.
    strip[0] = (0, 255, 40)
    assert strip.show_led(7, (255, 255, 255)) is True
    want[0] = (0, 255, 40)
    want[7] = (255, 255, 255)
    assert np.last_frame() == _frame_after_full_show(want)
    assert strip.show() is False


def test_a_ball_lights_its_trench_led_as_a_full_render_would(clock):
    # The ball fast path (flash_ball) must leave the strip exactly as a full
    # render with that ball flagged, and as a full re-encode of that picture.
    from hauntbox_sim.boards.roller import RollerSim
    sim = RollerSim(players=3, seed=4)
    c = sim.app.controller
    c.new_game(3)
    strip = c.display.strip
    writes = strip.np.writes
    c.on_ball(2, 1)
    assert strip.np.writes == writes + 1
    assert c.display.balls == 0b10
    frame = strip.np.last_frame()
    c.render()                          # the same picture: nothing to write
    assert strip.np.writes == writes + 1
    strip._force = True                 # re-encode every LED from scratch
    assert strip.show() is True
    assert strip.np.last_frame() == frame
    assert frame != b"\0" * len(frame)


# ---- beam decoding -------------------------------------------------------

def beam_on(clock, **kw):
    from machine import Pin
    from drivers.beam import Beam
    from drivers.edges import EdgeRecorder
    pin = Pin(10, Pin.IN, Pin.PULL_UP)
    return pin, Beam(EdgeRecorder(pin, 32), 0, **kw)


def pulse(clock, pin, start_us, width_us):
    clock.at(start_us, lambda: pin.sim_drive(0))
    clock.at(start_us + width_us, lambda: pin.sim_drive(None))


def test_beam_counts_one_ball_per_interruption_and_rejects_glitches(clock):
    pin, beam = beam_on(clock)
    pulse(clock, pin, 10_000, 500)        # glitch
    pulse(clock, pin, 12_000, 800)        # glitch 1.5 ms later: must not add up to a ball
    pulse(clock, pin, 50_000, 25_000)     # ball
    pulse(clock, pin, 75_300, 200)        # chatter at the trailing edge: same ball
    pulse(clock, pin, 200_000, 3_900)     # just under min_pulse (4 ms)
    pulse(clock, pin, 300_000, 4_100)     # just over
    clock.advance_ms(400)
    beam.poll()
    assert beam.balls == 2
    assert beam.glitches == 2   # the two-glitch interruption and the 3.9 ms pulse
    assert beam.odd == 0        # the default odd_us is min_pulse: nothing in between


def test_beam_counts_a_pulse_longer_than_any_ball_as_long(clock):
    # hardware/sensing-envelope.md: one ball blocks a beam for at most ~137 ms;
    # long_us (250 ms) and more, but less than stuck_ms, is two balls run
    # together or a hand: counted once, and marked so the game can ask.
    pin, beam = beam_on(clock)
    pulse(clock, pin, 10_000, 140_000)        # slowest ball: not long
    pulse(clock, pin, 400_000, 300_000)       # impossible for one ball
    clock.advance_ms(1000)
    beam.poll()
    assert beam.balls == 2 and beam.odd == 1 and not beam.stuck


def test_beam_counts_a_pulse_between_glitch_and_ball_as_odd(clock):
    # Glitches stack to 2.5 ms at most, the shortest ball is 5.5 ms: 3-4 ms is
    # neither, so it is rejected as a ball but marked for the players' answer.
    pin, beam = beam_on(clock, odd_us=3000)
    pulse(clock, pin, 10_000, 2_500)          # the worst glitch stack: a glitch
    pulse(clock, pin, 100_000, 3_500)         # odd
    clock.advance_ms(200)
    beam.poll()
    assert beam.balls == 0 and beam.glitches == 2 and beam.odd == 1


def test_beam_reports_stuck_then_recovers(clock):
    pin, beam = beam_on(clock, stuck_ms=2000)
    pin.sim_drive(0)
    clock.advance_ms(1990)
    beam.poll()
    assert not beam.stuck and beam.balls == 1
    clock.advance_ms(20)
    beam.poll()
    assert beam.stuck
    pin.sim_drive(None)
    clock.advance_ms(10)
    beam.poll()
    assert not beam.stuck


def test_beam_deadline_tells_the_task_when_to_look_again(clock):
    pin, beam = beam_on(clock)
    assert beam.next_deadline_us(0) == -1
    pin.sim_drive(0)
    beam.poll()
    d = beam.next_deadline_us(clock.ticks_us())
    assert 0 < d <= 4000


def test_a_beams_state_is_falsy_exactly_when_it_is_idle(clock):
    # BeamBank.poll reads `not b._state` for b.idle() (no method call per
    # beam and poll on the port): every state but idle must be truthy.
    import random
    pin, beam = beam_on(clock, stuck_ms=50)
    rng = random.Random(4)
    t = 0
    seen = set()
    for _ in range(400):
        t += rng.choice((100, 1500, 3000, 6000, 60_000))
        level = rng.choice((0, None))
        clock.at(t, lambda lv=level: pin.sim_drive(lv))
        clock.advance_to(t + rng.choice((0, 500, 2500)))
        beam.poll()
        assert (not beam._state) == beam.idle()
        seen.add(beam._state)
    beam.discard()
    assert (not beam._state) == beam.idle()
    assert len(seen) == 3


# ---- debounced inputs ----------------------------------------------------

def test_bouncing_button_gives_one_press(clock):
    from machine import Pin
    from drivers.debounce import DebouncedInput
    from drivers.edges import EdgeRecorder
    pin = Pin(2, Pin.IN, Pin.PULL_UP)
    btn = DebouncedInput(EdgeRecorder(pin, 8), 0, 20)
    t = clock.now_us
    for i in range(6):                    # 6 bounces within 3 ms
        clock.at(t + 1000 + i * 500, lambda i=i: pin.sim_drive(0 if i % 2 == 0 else None))
    clock.at(t + 4000, lambda: pin.sim_drive(0))
    clock.at(t + 100_000, lambda: pin.sim_drive(None))
    for _ in range(200):
        clock.advance_ms(1)
        btn.update()
    assert btn.presses == 1
    assert btn.edges >= 7


def test_a_press_inside_a_stall_still_counts_once(clock):
    """The loop was busy for 500 ms (a USB write waiting for the host, a flash save):
    a bouncy 80 ms press happened entirely inside it. Replaying the recorded edges
    settles the press anyway; bounce inside it is still one press."""
    from machine import Pin
    from drivers.debounce import DebouncedInput
    from drivers.edges import EdgeRecorder
    pin = Pin(2, Pin.IN, Pin.PULL_UP)
    btn = DebouncedInput(EdgeRecorder(pin, 8), 0, 20)
    btn.update()
    t = clock.now_us
    clock.at(t + 10_000, lambda: pin.sim_drive(0))
    clock.at(t + 10_500, lambda: pin.sim_drive(None))      # a bounce
    clock.at(t + 11_000, lambda: pin.sim_drive(0))
    clock.at(t + 90_000, lambda: pin.sim_drive(None))      # released after 79 ms
    clock.advance_ms(500)                                   # ... and nobody looked
    assert btn.update() is True
    assert btn.take_presses() == 1 and not btn.active()
    for _ in range(50):
        clock.advance_ms(1)
        btn.update()
    assert btn.presses == 0


def test_a_glitch_inside_a_stall_is_not_a_press(clock):
    from machine import Pin
    from drivers.debounce import DebouncedInput
    from drivers.edges import EdgeRecorder
    pin = Pin(2, Pin.IN, Pin.PULL_UP)
    btn = DebouncedInput(EdgeRecorder(pin, 8), 0, 20)
    btn.update()
    t = clock.now_us
    clock.at(t + 10_000, lambda: pin.sim_drive(0))
    clock.at(t + 15_000, lambda: pin.sim_drive(None))      # 5 ms: shorter than 20 ms
    clock.advance_ms(500)
    btn.update()
    assert btn.take_presses() == 0 and not btn.active()


# ---- tower ---------------------------------------------------------------

def test_tower_turns_exactly_one_notch_despite_switch_bounce(clock, run):
    from hauntbox_sim.models.tower import TowerConfig
    cfg = TowerConfig(bounce=True, release_p=0.0)
    s = make_tower(clock, cfg=cfg)
    tower = s.app.controller.tower

    async def turns():
        out = []
        for _ in range(12):
            out.append(await tower.rotate())
        return out
    results = run(turns())
    assert [r[0] for r in results] == ["ok"] * 12
    assert s.tower.rotations == 12
    assert s.tower.notch_index == 12 % 8
    # The servo never saw a width outside its limits, and is off between turns.
    pwm = s.tower.servo_pin.pwm
    assert all(ns == 0 or 1000000 <= ns <= 2000000 for _, ns in pwm.history)
    assert pwm.duty_ns() == 0


def test_jammed_servo_backs_off_retries_once_then_reports(clock, run):
    from hauntbox_sim.models.tower import Faults
    s = make_tower(clock, faults=Faults(jammed=True))
    clock = s.clock
    tower = s.app.controller.tower
    t0 = clock.now_us
    status, _ = run(tower.rotate())
    assert status == "jam"
    assert tower.jams == 1
    widths = [ns for _, ns in s.tower.servo_pin.pwm.history]
    forward = [w for w in widths if w and w < 1500000]
    backward = [w for w in widths if w > 1500000]
    assert len(forward) == 2 and len(backward) == 1        # try, back off, retry
    elapsed_ms = (clock.now_us - t0) / 1000
    assert 2 * 2500 <= elapsed_ms < 2 * 2500 + 1000
    assert s.tower.servo_pin.pwm.duty_ns() == 0            # servo released after the fault


def test_dead_notch_switch_is_reported_as_jam(clock, run):
    from hauntbox_sim.models.tower import Faults
    s = make_tower(clock, faults=Faults(dead_notch=True))
    status, _ = run(s.app.controller.tower.rotate())
    assert status == "jam"


def test_tower_counts_the_balls_the_model_released(clock, run):
    from hauntbox_sim.models.tower import TowerConfig
    s = make_tower(clock, cfg=TowerConfig(release_p=0.6, bounce=True, chatter=True, glitches_per_s=5))
    clock = s.clock
    tower = s.app.controller.tower

    async def turns():
        await s.app._start_tasks()
        seen = []
        for _ in range(60):
            s.tower.refill()
            start = clock.now_us
            status, counts = await tower.rotate()
            seen.append((counts, s.tower.balls_per_staircase(start, clock.now_us)))
        await s.app.stop_tasks()
        return seen
    seen = run(turns())
    assert sum(sum(t) for _, t in seen) > 50
    for counts, truth in seen:
        assert counts == truth


def test_ratchet_drive_turns_exactly_one_notch_per_push(clock, run):
    # The positional-servo ratchet option: each push moves the tower one notch and
    # the notch switch confirms it while the arm is still pushing.
    from hauntbox_sim.models.tower import TowerConfig
    from hauntbox_sim.boards.roller import RollerSim
    cfg = TowerConfig(ratchet=True, bounce=True, release_p=0.0)
    s = RollerSim(players=2, seed=1, tower_cfg=cfg, settings={"servo.type": "ratchet"})
    tower = s.app.controller.tower
    assert tower.ratchet is not None and tower.servo is None

    async def turns():
        return [await tower.rotate() for _ in range(10)]
    results = run(turns())
    assert [r[0] for r in results] == ["ok"] * 10
    assert s.tower.rotations == 10
    pwm = s.tower.servo_pin.pwm
    assert all(ns == 0 or 1000000 <= ns <= 2000000 for _, ns in pwm.history)


def test_jammed_ratchet_is_reported(clock, run):
    from hauntbox_sim.models.tower import Faults, TowerConfig
    from hauntbox_sim.boards.roller import RollerSim
    s = RollerSim(players=2, seed=1, tower_cfg=TowerConfig(ratchet=True), faults=Faults(jammed=True),
                  settings={"servo.type": "ratchet"})
    status, _ = run(s.app.controller.tower.rotate())
    assert status == "jam"


def test_whole_game_on_the_ratchet_build():
    from hauntbox_sim.models.tower import TowerConfig
    from hauntbox_sim.boards.roller import RollerSim
    s = RollerSim(players=3, seed=2, tower_cfg=TowerConfig(ratchet=True, bounce=True),
                  settings={"servo.type": "ratchet"})
    events = []
    s.app.bus.subscribe(events.append)
    assert s.run() is not None
    assert sum(1 for e in events if e[0] == "rotate") == s.tower.rotations > 0
    assert not [e for e in events if e[0] == "fault"]


def test_a_notch_after_the_game_stopped_does_not_start_the_servo_again(clock):
    # The notch IRQ stops a turning tower with a stop pulse, from a hard IRQ,
    # and IRQ handlers outlive the program (Ctrl-C leaves them armed at the
    # REPL). Once the app has made the hardware safe, a notch reached while
    # the tower coasts must not put pulses on the servo pin again: on the
    # emulated Pico it did, 30-150 ms after a Ctrl-C (docs/reliability.md).
    from hauntbox_sim.boards.roller import RollerSim
    sim = RollerSim(players=2, seed=3)
    tower = sim.app.controller.build.tower
    tower._seek()                               # turning towards the next notch
    assert tower.servo.pwm.duty_ns() != 0
    sim.app.make_safe()                         # what app.play does on Ctrl-C
    assert tower.servo.pwm.duty_ns() == 0
    # The switch opens as the tower leaves the notch, then closes at the next.
    active = tower._active_level
    tower._notch_irq(1 - active)
    sim.clock.advance_ms(tower._leave_us / 1000 + 1)
    tower._notch_irq(active)
    assert tower.servo.pwm.duty_ns() == 0
