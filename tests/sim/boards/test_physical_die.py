"""Roller Ghoster with the physical die (issue 20): the players roll the real
die and enter its face with the buttons; the controller does everything else.
The rulebook's die has six faces (1, 2, 3, 1 and 2 with the arrow, the ghost):
LEFT/RIGHT walk through them, the die row of LEDs shows the one chosen, ROLL
confirms. Driven here through the simulated board's buttons and the host's act."""
import asyncio

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.boards.roller import RollerSim

DIE = ("1", "2", "3", "1a", "2a", "ghost")
PHYSICAL = {"roller-ghoster.die": "physical"}


def board(**kw):
    s = RollerSim(players=2, settings=dict(PHYSICAL), **kw)
    s.app.bus.unsubscribe(s.people.on_event)     # this test's own hands press the buttons
    events = []
    s.app.bus.subscribe(events.append)
    return s, events


def lit_face(s):
    # The face the die row of LEDs shows (exactly one lit), or None.
    frame = s.app.controller.build.strip.np.decoded()
    first = s.pinmap["pixels"]["die_from"]
    lit = [DIE[i] for i in range(6) if frame[first + i] != (0, 0, 0)]
    assert len(lit) <= 1, lit
    return lit[0] if lit else None


async def press(s, name):
    s.people.press(name, runtime.clock().now_us)
    await asyncio.sleep_ms(300)


def test_left_right_choose_the_face_the_leds_show_it_roll_confirms():
    s, events = board()
    seen = []

    async def scenario():
        c = s.app.controller
        c.new_game(2)
        step = asyncio.create_task(c.step())
        await asyncio.sleep_ms(50)
        seen.append(lit_face(s))            # the first face offered: 1
        await press(s, "left")              # wraps round to the ghost
        seen.append(lit_face(s))
        await press(s, "right")
        await press(s, "right")             # 1, then 2
        seen.append(lit_face(s))
        assert not step.done()              # nothing rolled before ROLL
        await press(s, "roll")
        await step
        return c.game

    g = sim_install.run(scenario())
    assert seen == ["1", "ghost", "2"]
    assert g.face == "2" and g.phase == "move"
    assert ("roll", 0, "2") in events
    prompts = [e for e in events if e[0] == "prompt"]
    assert prompts[0][1] == "die" and prompts[0][3] == [("roll", f) for f in DIE]


def test_the_host_can_enter_the_face_through_act():
    s, events = board()

    async def scenario():
        c = s.app.controller
        c.new_game(2)
        step = asyncio.create_task(c.step())
        await asyncio.sleep_ms(50)
        assert c.decider.offer(["roll", "7"]) == "not one of the offered options"
        assert c.decider.offer(["roll", "ghost"]) is None
        await step
        return c.game

    g = sim_install.run(scenario())
    assert g.face == "ghost" and g.phase == "ghost"


def test_a_saved_game_resumes_into_the_die_prompt(tmp_path):
    s, events = board(state_dir=str(tmp_path))

    async def first():
        c = s.app.controller
        c.new_game(2)
        c.game.apply(("roll", "3"))
        c.game.apply(c.game.legal_actions()[0])     # red moved: blue's turn is saved
        c.save()
        return c.game.to_dict()

    saved = sim_install.run(first())
    s2, events2 = board(state_dir=str(tmp_path))

    async def second():
        assert s2.app.start_game(2) is True      # resumed
        c = s2.app.controller
        step = asyncio.create_task(c.step())
        await asyncio.sleep_ms(50)
        await press(s2, "right")
        await press(s2, "roll")
        await step
        return c.game

    g = sim_install.run(second())
    assert g.to_dict()["pos"] == saved["pos"]
    assert ("roll", 1, "2") in events2          # blue entered a 2
    assert [e for e in events2 if e[0] == "prompt"][0][1:3] == ("die", 1)
