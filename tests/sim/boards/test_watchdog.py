"""Reliability: the watchdog resets a board whose task died, the game resumes, and the
REPL stays usable after the game stops (issue: Reliability, Watchdog)."""
import json

import pytest

from hauntbox_sim.core import runtime
from hauntbox_sim.fakes import machine
from hauntbox_sim.boards.roller import RollerSim


def test_watchdog_is_fed_throughout_a_healthy_game():
    s = RollerSim(players=2, seed=2)
    s.run()
    wdt = machine.WDT.active
    assert wdt is not None and wdt.feeds > 10
    assert runtime.take_pending_reset() is None


def test_watchdog_not_started_when_disabled():
    s = RollerSim(players=2, seed=2, settings={"watchdog": False})
    s.run()
    assert machine.WDT.active is None


def test_crashed_task_starves_the_watchdog_and_the_game_resumes(tmp_path):
    s = RollerSim(players=3, seed=5, state_dir=str(tmp_path))
    beams = s.app.controller.tower.beams
    real_run = beams.run

    async def crashing_run():
        # The beam task dies 20 s into the game (a bug, a driver exception...).
        import asyncio
        task = asyncio.ensure_future(real_run())
        await asyncio.sleep(20)
        task.cancel()
        raise RuntimeError("simulated crash in the beam task")
    beams.run = crashing_run
    events = []
    s.app.bus.subscribe(events.append)
    with pytest.raises(runtime.BoardReset) as exc:
        s.run()
    assert exc.value.cause == "watchdog"
    assert ("fault", "unhealthy", "a task stopped: the watchdog will reset the board") in events
    saved = json.loads((tmp_path / "roller-ghoster.json").read_text())
    turns_done = sum(1 for e in events if e[0] == "turn")
    assert turns_done > 0
    # After the reset the board boots again and resumes exactly where it was.
    s2 = RollerSim(players=3, seed=77, state_dir=str(tmp_path))
    assert s2.app.start_game(3, 0, resume=True) is True
    assert s2.app.controller.game.to_dict() == saved["game"]
    winner = s2.run()
    assert winner is not None


def test_after_the_game_stops_a_timer_keeps_the_repl_alive():
    s = RollerSim(players=2, seed=2)
    s.run()
    from games import watchdog
    assert watchdog.running()
    assert watchdog.guard_if_running() is True
    s.clock.advance_ms(60_000)          # a minute at the REPL / in mpremote
    assert runtime.take_pending_reset() is None


def test_without_the_guard_the_board_would_reset():
    # The test above can fail: with nobody feeding, the watchdog fires.
    s = RollerSim(players=2, seed=2)
    s.run()
    s.clock.advance_ms(60_000)
    assert runtime.take_pending_reset() == "watchdog"


def test_boot_py_guards_only_a_running_watchdog():
    RollerSim(players=2, seed=2)
    from games import watchdog
    assert watchdog.running() is False
    assert watchdog.guard_if_running() is False
    assert machine.WDT.active is None        # boot never starts a watchdog by itself


def test_run_resets_the_board_after_a_crash(monkeypatch, tmp_path):
    # The Pico entry point itself: an exception escaping the game is counted and
    # answered with machine.reset() (here: the simulator's BoardReset).
    import app as firmware_app
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    monkeypatch.setattr(firmware_app, "App", lambda: s.app)

    async def broken_main(**kw):
        for coro in kw.get("extra_tasks", []):
            coro.close()
        raise RuntimeError("boom")
    monkeypatch.setattr(s.app, "main_async", broken_main)
    with pytest.raises(runtime.BoardReset):
        firmware_app.run()
    # The reason is on flash for the next boot, which counts the crash
    # (tests/sim/boards/test_crash_accounting.py).
    health = json.loads((tmp_path / "health.json").read_text())
    assert health["armed"] is True and "boom" in health["crashed"]
