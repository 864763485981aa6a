"""Crash accounting that cannot be defeated (issue 17, defect 4): every reset of
a running game counts, an exception or a watchdog reset alike, until a turn
has been completed and saved after that boot; after MAX_CRASHES in a row the
board goes into safe mode (game off, LEDs, host told) instead of looping."""
from __future__ import annotations

import asyncio
import json

import pytest

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.fakes import machine
from hauntbox_sim.boards.roller import RollerSim


@pytest.fixture(autouse=True)
def _power_up_after():
    yield
    machine.set_next_reset_cause(machine.PWRON_RESET)


def boot(state_dir, sabotage=None, sim_s=120.0, people=True, settings=None):
    """One boot of the simulated board, as app.run() does it: returns (outcome, sim).
    outcome: "crash" (exception: handle_crash, then machine.reset), "watchdog",
    "over" (the game finished) or "waiting" (still running after sim_s)."""
    import crash

    s = RollerSim(players=2, seed=3, state_dir=str(state_dir), settings=settings or {})
    if not people:
        s.app.bus.unsubscribe(s.people.on_event)
    if sabotage is not None:
        sabotage(s)
    s.events = []
    s.app.bus.subscribe(s.events.append)
    s.seen = {}

    async def probe():
        # What the board looks like just before the bounded run ends.
        await asyncio.sleep(sim_s - 1)
        d = s.app.controller.decider
        s.seen = {"prompt": d.current and d.current[0], "tasks": len(s.app.tasks),
                  "wdt": machine.WDT.active is not None}

    async def bounded():
        return await asyncio.wait_for(s.app.main_async(2, 0, True, extra_tasks=[probe()]),
                                      sim_s)
    try:
        sim_install.run(bounded())
        return "over", s
    except runtime.BoardReset as e:
        return e.cause, s
    except asyncio.TimeoutError:
        return "waiting", s
    except Exception as e:  # noqa: BLE001 - what app.run() catches
        crash.handle_crash(s.app, e)
        try:
            machine.reset()
        except runtime.BoardReset:
            pass
        return "crash", s


def crash_in_first_save(s):
    # The game's own first save (new_game) raises: before the fix, the new
    # game's first "turn" event cleared the count before that save.
    real = s.app.store.save

    def save(name, data, sealed=True):
        if name == "roller-ghoster":
            raise RuntimeError("flash full")
        return real(name, data, sealed)
    s.app.store.save = save


def dead_beam_task(s):
    beams = s.app.controller.tower.beams

    async def dies():
        raise RuntimeError("the beam task died")
    beams.run = dies


@pytest.mark.parametrize("sabotage,outcome", [(crash_in_first_save, "crash"),
                                              (dead_beam_task, "watchdog")])
def test_a_reset_loop_ends_in_safe_mode(tmp_path, sabotage, outcome):
    from startup import MAX_CRASHES
    seen = []
    for _ in range(MAX_CRASHES + 3):
        what, s = boot(tmp_path, sabotage, people=False)
        seen.append(what)
        if what == "waiting":
            break
    # MAX_CRASHES resets, then a boot that stays up: no endless loop.
    assert seen == [outcome] * MAX_CRASHES + ["waiting"], seen
    app = s.app
    assert app.safe_mode is not None and app.crashes == MAX_CRASHES
    # Waiting for ROLL or a host; the game's device tasks and the watchdog off.
    assert s.seen == {"prompt": "safe_mode", "tasks": 0, "wdt": False}
    assert app.fault_last[:2] == ["safe_mode", app.safe_mode]
    # The LEDs say why: one red LED per crash, every other one dark.
    leds = [app.controller.build.strip[i] for i in range(len(app.controller.build.strip))]
    assert leds[:MAX_CRASHES] == [(255, 0, 0)] * MAX_CRASHES
    assert set(leds[MAX_CRASHES:]) == {(0, 0, 0)}


def test_safe_mode_is_told_to_a_host_and_roll_starts_a_fresh_game(tmp_path):
    from protocol import Protocol
    from startup import MAX_CRASHES
    for _ in range(MAX_CRASHES):
        assert boot(tmp_path, crash_in_first_save, people=False)[0] == "crash"
    # The saved game of the crashing run is set aside once safe mode begins.
    what, s = boot(tmp_path, people=False, sim_s=30)
    assert what == "waiting"
    proto = Protocol(s.app)
    hello = json.loads(proto.handle_line(b'{"cmd":"hello"}')[0])
    assert hello["safe_mode"] and hello["crashes"] == MAX_CRASHES
    faults = json.loads(proto.handle_line(b'{"cmd":"faults"}')[0])
    kinds = [f["kind"] for f in faults["faults"]]
    assert "safe_mode" in kinds and "reset" in kinds and "crash" in kinds
    assert faults["safe_mode"] == hello["safe_mode"]
    # A person presses ROLL: a fresh game starts and plays to the end; its
    # first completed, saved turn clears the count.
    what, s = boot(tmp_path, sim_s=3600)
    assert what == "over"
    assert s.app.crashes == 0 and s.app.safe_mode is None
    assert json.loads((tmp_path / "health.json").read_text())["crashes"] == 0


def test_a_new_game_own_first_save_does_not_clear_the_count(tmp_path):
    # One crash, then a boot whose game saves (new game) but completes no turn
    # before crashing again: the count goes on (2), it is not reset to 1.
    assert boot(tmp_path, crash_in_first_save, people=False)[0] == "crash"

    def crash_at_first_roll(s):
        async def boom():
            raise RuntimeError("boom at the first roll")
        s.app.controller.step = boom
    what, s = boot(tmp_path, crash_at_first_roll, people=False)
    assert what == "crash"
    what, s = boot(tmp_path, people=False, sim_s=5)
    assert s.app.crashes == 2


def test_a_power_up_is_not_a_crash_and_a_completed_turn_clears_the_count(tmp_path):
    assert boot(tmp_path, dead_beam_task, people=False)[0] == "watchdog"
    # Switched off and on while the game is waiting: not counted.
    what, s = boot(tmp_path, people=False, sim_s=5)
    assert s.app.crashes == 1
    machine.set_next_reset_cause(machine.PWRON_RESET)
    what, s = boot(tmp_path, people=False, sim_s=5)
    assert s.app.crashes == 1
    what, s = boot(tmp_path, sim_s=3600)
    assert what == "over" and s.app.crashes == 0


def test_ctrl_c_and_safe_boot_are_not_crashes(tmp_path):
    # mpremote stops the game with Ctrl-C, copies files and resets the board
    # (WDT_RESET on rp2): that reset is not counted.
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    s.app.write_health(False)       # what app.run() does on KeyboardInterrupt
    machine.set_next_reset_cause(machine.WDT_RESET)
    s2 = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    assert s2.app.crashes == 0
    assert s2.app.boot == s.app.boot + 1
