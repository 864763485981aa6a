"""The service mode (issue 20): a new build brought up with its own buttons and
LEDs, on the simulated boards. The maker's hands are this test's: they press
the simulated buttons, break the simulated beams, hit the table's sensors."""
import asyncio

import pytest

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.fakes import machine
from hauntbox_sim.boards.roller import RollerSim

ROLLER_STEPS = ["beam1", "beam2", "beam3", "beam4", "buttons", "notch", "jog", "stop_pulse",
                "leds"]


class Hands:
    """Presses the board's buttons the way people do (held 80 ms, then a gap)."""

    def __init__(self, s):
        self.s = s
        pins = s.pinmap["pins"]
        self.pins = {n: machine.pin(pins["btn_" + n]["gpio"]) for n in ("roll", "left", "right", "menu")}

    async def press(self, name, gap_ms=200):
        p = self.pins[name]
        p.sim_drive(0)
        await asyncio.sleep_ms(80)
        p.sim_drive(None)
        await asyncio.sleep_ms(gap_ms)


def roller(**kw):
    s = RollerSim(players=2, **kw)
    s.app.bus.unsubscribe(s.people.on_event)
    events = []
    s.app.bus.subscribe(events.append)
    return s, events, Hands(s)


def service_events(events):
    return [e for e in events if e[0] == "service"]


def results(events):
    return {e[1]: e[2] for e in service_events(events) if e[1] not in ("enter", "leave")}


def frame(s):
    return s.app.controller.build.strip.np.decoded()


def white(s):
    # White as the chain shows it: scaled to the brightness (drivers/pixels.py).
    v = 255 * s.app.controller.build.strip._scale >> 8
    return (v, v, v)


def servo_duty(s):
    return machine.pin(s.pinmap["pins"]["servo"]["gpio"]).pwm.duty_ns()


async def with_hands(app, maker):
    # The service mode and the maker's hands side by side; a failed check in
    # the hands ends the mode and is raised.
    err = []

    async def guarded():
        try:
            await maker()
        except Exception as e:
            err.append(e)
            if app.service is not None:
                app.service.request("leave")

    hands = asyncio.create_task(guarded())
    try:
        await app.run_service()
    finally:
        hands.cancel()
    if err:
        raise err[0]


def test_roller_every_step_walked_with_the_buttons_beams_and_notch():
    s, events, h = roller()
    seen = {}

    async def maker():
        await asyncio.sleep_ms(50)
        assert s.app.service.names() == ROLLER_STEPS
        for k in range(4):                      # each beam: break it, its LED lights
            await h.press("roll")
            s.tower._beam(k, True)
            await asyncio.sleep_ms(100)
            seen["beam%d" % (k + 1)] = frame(s)[k]
            s.tower._beam(k, False)
            await asyncio.sleep_ms(900)         # the result shows, then the cursor
            await h.press("right")
        await h.press("roll")                   # buttons: ROLL, LEFT, RIGHT, MENU
        for b in ("roll", "left", "right", "menu"):
            await h.press(b)
        await asyncio.sleep_ms(900)
        await h.press("right")
        await h.press("roll")                   # notch: the switch opens and closes
        notch = machine.pin(s.pinmap["pins"]["notch"]["gpio"])
        notch.sim_drive(None)
        await asyncio.sleep_ms(100)
        notch.sim_drive(0)
        await asyncio.sleep_ms(900)
        await h.press("right")
        await h.press("roll")                   # jog: RIGHT turns the tower, ROLL ends
        await h.press("right", gap_ms=50)
        seen["jog_duty"] = servo_duty(s)        # driven during the jog
        await asyncio.sleep_ms(600)
        await h.press("roll")
        await asyncio.sleep_ms(900)
        await h.press("right")
        await h.press("roll")                   # stop pulse: two LEFT (-10 us), ROLL saves
        await h.press("left")
        await h.press("left")
        seen["stop_duty"] = servo_duty(s)
        await h.press("roll")
        await asyncio.sleep_ms(900)
        await h.press("right")
        writes = s.app.controller.build.strip.np.writes
        await h.press("roll")                   # LED chain: each LED in turn
        await asyncio.sleep_ms(51 * 80 + 1500)
        seen["led_writes"] = s.app.controller.build.strip.np.writes - writes
        await h.press("menu")                   # leave

    sim_install.run(with_hands(s.app, maker))
    assert results(events) == {n: "ok" for n in ROLLER_STEPS}
    # White (at the game's brightness) on the beam's own step LED while broken.
    assert all(seen["beam%d" % k] == white(s) for k in range(1, 5)), seen
    assert seen["jog_duty"] == s.app.controller.tower.servo.forward_ns
    assert seen["stop_duty"] == 1490000
    assert s.app.settings.get("servo.stop_ns") == 1490000          # saved
    assert s.app.controller.tower.servo.stop_ns == 1490000         # and in use
    assert seen["led_writes"] >= 51
    assert servo_duty(s) == 0                                      # servo off
    assert service_events(events)[0] == ("service", "enter", ROLLER_STEPS)
    leave = service_events(events)[-1]
    assert leave[1] == "leave" and leave[2]["failed"] == {} and leave[2]["untested"] == []
    assert not [e for e in events if e[0] == "fault"]


def test_a_beam_never_broken_fails_into_the_fault_log():
    s, events, h = roller()

    async def maker():
        await asyncio.sleep_ms(50)
        await h.press("roll")                   # beam1, and nobody breaks it
        await asyncio.sleep_ms(21000)
        await h.press("menu")

    sim_install.run(with_hands(s.app, maker))
    assert results(events) == {"beam1": "never broken within 20 s"}
    assert ("fault", "service", "beam1: never broken within 20 s") in events
    assert s.app.fault_last[:2] == ["service", "beam1: never broken within 20 s"]
    # The fault log on flash has it (written on leaving the mode).
    import faultlog
    h_, problem = faultlog.read(s.app)
    assert problem is None and any(f[0] == "service" for f in h_["faults"])


@pytest.mark.parametrize("way", ["menu", "host", "cancel"])
def test_servo_off_on_every_way_out_of_the_stop_pulse_step(way):
    # MENU in the step (not saved), the host's leave, and the mode cancelled
    # (the board stopping): the servo gets no pulses afterwards, every time.
    s, events, h = roller()
    driven = []

    async def maker():
        await asyncio.sleep_ms(50)
        s.app.service.i = ROLLER_STEPS.index("stop_pulse")
        await h.press("roll")
        await h.press("right")
        driven.append(servo_duty(s))
        if way == "menu":
            await h.press("menu")
            await asyncio.sleep_ms(900)
            await h.press("menu")
        elif way == "host":
            assert s.app.service.request("leave") is None

    async def run():
        t = asyncio.create_task(with_hands(s.app, maker))
        if way == "cancel":
            await asyncio.sleep_ms(800)
            t.cancel()
            try:
                await t
            except asyncio.CancelledError:
                pass
        else:
            await t

    sim_install.run(run())
    assert driven == [1505000]
    assert servo_duty(s) == 0
    assert s.app.settings.get("servo.stop_ns") is None      # nothing saved
    assert s.app.service is None
    if way != "cancel":
        assert results(events) == {"stop_pulse": "skipped"}


def test_menu_held_at_power_up_runs_the_service_mode_before_the_game():
    # MENU held at power-up: the service mode first; after MENU the saved or
    # new game starts as usual (the simulated players then play it through).
    s = RollerSim(players=2, seed=3)
    events = []
    s.app.bus.subscribe(events.append)
    h = Hands(s)
    h.pins["menu"].sim_drive(0)
    assert s.app.boot_buttons() == "service"
    s.app.service_requested = True

    async def maker():
        await asyncio.sleep_ms(300)
        h.pins["menu"].sim_drive(None)          # let go of MENU
        await asyncio.sleep_ms(200)
        await h.press("right")
        await h.press("right")
        await h.press("menu")

    async def go():
        hands = asyncio.create_task(maker())
        w = await s.app.main_async(2, 0, True)
        hands.cancel()
        return w

    winner = sim_install.run(go())
    kinds = [e[0] for e in events]
    assert kinds.index("service") < kinds.index("prompt")
    assert service_events(events)[-1][1] == "leave"
    assert winner is not None and s.app.controller.game.winner == winner


def test_the_host_enters_runs_a_step_and_leaves_during_a_game():
    # The protocol's `service` request: the game waits, unchanged, and goes on.
    s, events, h = roller()
    seen = {}

    async def host():
        await asyncio.sleep_ms(500)             # the game waits at its first prompt
        seen["turns"] = s.app.controller.game.to_dict()
        assert s.app.request_service() is None
        await asyncio.sleep_ms(100)
        m = s.app.service
        assert m is not None and s.app.controller.tasks and not s.app.tasks
        assert m.request("run", "beam9") == "no step 'beam9' on this build (steps: %s)" % (
            ", ".join(ROLLER_STEPS))
        assert m.request("run", "beam2") is None
        await asyncio.sleep_ms(100)
        s.tower._beam(1, True)
        await asyncio.sleep_ms(100)
        s.tower._beam(1, False)
        await asyncio.sleep_ms(1000)
        seen["during"] = s.app.controller.game.to_dict()
        s.app.bus.subscribe(s.people.on_event)  # the players play the game from here
        assert m.request("leave") is None

    async def go():
        t = asyncio.create_task(host())
        w = await s.app.main_async(2, 0, True)
        await t
        return w

    winner = sim_install.run(go())
    assert results(events) == {"beam2": "ok"}
    assert seen["during"] == seen["turns"]      # the game did not move meanwhile
    assert winner is not None
    assert runtime.irq_errors == []


def test_haunted_house_expanders_sensors_and_both_chains():
    from hauntbox_sim.boards.haunted import HauntedSim
    s = HauntedSim(players=2, seed=1)
    s.app.bus.unsubscribe(s.people.on_event)
    events = []
    s.app.bus.subscribe(events.append)
    lines = s.table.lines

    def flip(name):
        lines[name].base = not lines[name].base
        lines[name].update()

    async def maker():
        await asyncio.sleep_ms(50)
        m = s.app.service
        names = m.names()
        assert names[0] == "buttons" and names[1] == "expander.exp_a"
        assert names[-2:] == ["leds.score", "leds.spot"]
        assert len([n for n in names if n.startswith("sensor.")]) == 20
        for step, act in (("expander.exp_a", None), ("sensor.attic_hole", "attic_hole"),
                          ("sensor.medusa_top", "medusa_top"), ("leds.spot", None)):
            assert m.request("run", step) is None
            if act:
                while m.running != step:
                    await asyncio.sleep_ms(10)
                flip(act)                       # a hit (or a standee lifted off) ...
                await asyncio.sleep_ms(100)
                flip(act)                       # ... and back
            for _ in range(200):
                if step in results(events):
                    break
                await asyncio.sleep_ms(50)
            await asyncio.sleep_ms(800)         # its result shown
        s.chips["exp_b"].responding = False     # a loose cable
        assert m.request("run", "expander.exp_b") is None
        await asyncio.sleep_ms(1000)
        assert m.request("run", "sensor.launch") is None
        await asyncio.sleep_ms(1000)
        assert m.request("leave") is None

    sim_install.run(with_hands(s.app, maker))
    assert results(events) == {
        "expander.exp_a": "ok", "sensor.attic_hole": "ok", "sensor.medusa_top": "ok",
        "leds.spot": "ok", "expander.exp_b": "no answer at 0x21",
        "sensor.launch": "its expander exp_b does not answer"}
    faults = [e[2] for e in events if e[0] == "fault" and e[1] == "service"]
    assert faults == ["expander.exp_b: no answer at 0x21",
                      "sensor.launch: its expander exp_b does not answer"]


def test_companion_buttons_and_leds():
    from hauntbox_sim.boards.companion import CompanionSim
    s = CompanionSim(game="superskill", players=2, seed=1)
    s.app.bus.unsubscribe(s.people.on_event)
    events = []
    s.app.bus.subscribe(events.append)
    h = Hands(s)

    async def maker():
        await asyncio.sleep_ms(50)
        assert s.app.service.names() == ["buttons", "leds"]
        await h.press("roll")
        for b in ("roll", "left", "right"):
            await h.press(b)
        await asyncio.sleep_ms(21000)           # MENU never pressed: a broken button
        await h.press("right")
        await h.press("roll")                   # leds: 64 in turn
        await asyncio.sleep_ms(64 * 80 + 1500)
        await h.press("menu")

    sim_install.run(with_hands(s.app, maker))
    assert results(events) == {"buttons": "menu: no press within 20 s", "leds": "ok"}


def test_haunted_house_game_goes_on_after_the_host_used_the_service_mode():
    # Entered between turns from the host, a sensor hit in it: afterwards the
    # table task counts hits again and the simulated players finish the game.
    from hauntbox_sim.boards.haunted import HauntedSim
    s = HauntedSim(players=2, seed=2)
    events = []
    s.app.bus.subscribe(events.append)
    lines = s.table.lines
    done = {}

    async def host():
        while True:
            await asyncio.sleep_ms(20)
            if s.app.controller.sensors_live() is None and s.app.request_service() is None:
                break
        while s.app.service is None:
            await asyncio.sleep_ms(10)
        m = s.app.service
        assert m.request("run", "sensor.attic_hole") is None
        while m.running != "sensor.attic_hole":
            await asyncio.sleep_ms(10)
        lines["attic_hole"].base = True
        lines["attic_hole"].update()
        await asyncio.sleep_ms(100)
        lines["attic_hole"].base = False
        lines["attic_hole"].update()
        await asyncio.sleep_ms(1000)
        done["turns"] = s.app.controller.turns
        assert m.request("leave") is None

    async def go():
        t = asyncio.create_task(host())
        w = await s.app.main_async(2, 0, False)
        await t
        return w

    sim_install.run(go())
    assert results(events) == {"sensor.attic_hole": "ok"}
    assert s.app.controller.game.is_over()
    assert s.app.controller.turns > done["turns"]
    assert not [e for e in events if e[0] == "fault" and e[1] != "service"]
