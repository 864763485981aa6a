"""Layer 3 and 5: the firmware plays whole Roller Ghoster games on the simulated tower,
with noise and with each fault injected (Hardware and firmware section of the issue)."""
import json

import pytest

from hauntbox_sim.core import runtime
from hauntbox_sim.models.tower import Faults
from hauntbox_sim.boards.roller import RollerSim


def play(**kw):
    s = RollerSim(**kw)
    events = []
    s.app.bus.subscribe(events.append)
    winner = s.run()
    return s, events, winner


def kinds(events, kind):
    return [e for e in events if e[0] == kind]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_full_noisy_game_ends_with_one_winner_and_consistent_events(seed):
    s, events, winner = play(players=4, seed=seed, noise="all")
    g = s.app.controller.game
    assert g.is_over() and g.winner == winner
    assert g.pos[winner] == "top" and kinds(events, "win") == [("win", winner)]
    # Every arrow turned the tower exactly one notch; the model agrees.
    assert len(kinds(events, "rotate")) == s.tower.rotations == s.app.controller.tower.rotations
    # What the firmware handed to the rules equals what the model released.
    total_seen = sum(sum(e[1]) for e in kinds(events, "rotated"))
    assert total_seen == len(s.tower.released)
    assert runtime.irq_errors == []
    assert not kinds(events, "fault")


def test_game_log_reads_well_and_leds_show_the_winner():
    s, events, winner = play(players=3, seed=8, noise="none")
    np = s.app.controller.build.strip.np
    px = s.pinmap["pixels"]
    frame = np.decoded()
    colour = frame[px["players_from"]]
    assert colour != (0, 0, 0)
    assert all(frame[px["players_from"] + i] == colour for i in range(3))
    # LEDs are written only on change: fewer writes than events.
    assert np.writes < len(events)


def test_jammed_tower_pauses_for_a_manual_turn_and_loses_nothing():
    s, events, winner = play(players=2, seed=4, faults=Faults(jammed=True))
    jams = [e for e in kinds(events, "fault") if e[1] == "jam"]
    assert jams, "the jam must be reported"
    manual = [e for e in kinds(events, "prompt") if e[1] == "manual_turn" and e[4] == 0]
    assert len(manual) == len(jams) == len(kinds(events, "rotate"))
    assert s.app.controller.game.winner == winner is not None


def test_stuck_beam_is_reported_and_players_confirm_balls_with_buttons():
    s, events, winner = play(players=2, seed=6, faults=Faults(stuck_beams={2}))
    assert ("fault", "beam_stuck", 2) in events
    asked = [e for e in kinds(events, "prompt") if e[1] == "ball_on_2" and e[4] == 0]
    assert len(asked) == len(kinds(events, "rotate")) > 0
    # Knock-downs on staircase 2 still happen when the players say a ball came down.
    truth2 = {round(t / 1e5) for k, t in s.tower.released if k == 2}
    balls_events = kinds(events, "balls")
    if truth2:
        assert any(2 in e[1] for e in balls_events)
    assert winner is not None


def test_missing_balls_prompt_a_refill_when_the_reservoir_sensor_is_fitted():
    s, events, winner = play(players=2, seed=3, settings={"reservoir": True},
                             faults=Faults(keep_missing_balls=True))
    refills = [e for e in kinds(events, "prompt") if e[1] == "refill"]
    assert ("reservoir", "refill") in events and refills
    assert winner is not None


def test_reset_mid_game_resumes_from_the_last_completed_turn(tmp_path):
    s = RollerSim(players=4, seed=11, state_dir=str(tmp_path))
    turns = []

    def cut(ev):
        if ev[0] == "turn":
            turns.append(ev)
            if len(turns) == 15:
                runtime.request_reset(hard=True)   # the power goes: raise out of the firmware
    s.app.bus.subscribe(cut)
    with pytest.raises(runtime.BoardReset):
        s.run()
    saved = json.loads((tmp_path / "roller-ghoster.json").read_text())
    # The state on flash is the one after the 15th completed turn.
    assert saved["game"]["phase"] == "roll"
    s2 = RollerSim(players=4, seed=99, state_dir=str(tmp_path))
    events = []
    s2.app.bus.subscribe(events.append)
    s2.app.start_game(4, 0, resume=True)
    assert s2.app.controller.game.to_dict() == saved["game"]
    assert events[0][0] == "resumed"
    assert s2.app.controller.rng.state == saved["rng"]["state"]


@pytest.mark.parametrize("content", ["{not json", "[]", json.dumps({"game": {"game": "roller-ghoster", "v": 1,
                         "players": 2, "pos": ["1w1", "1w1"], "turn": 0, "phase": "roll", "face": None,
                         "winner": None}})])
def test_corrupt_save_is_set_aside_and_a_fresh_game_starts(tmp_path, content):
    (tmp_path / "roller-ghoster.json").write_text(content)
    s = RollerSim(players=2, seed=1, state_dir=str(tmp_path))
    events = []
    s.app.bus.subscribe(events.append)
    resumed = s.app.start_game(2, 0, resume=True)
    assert not resumed
    assert any(e[0] == "fault" and e[1] == "state_bad" for e in events)
    assert (tmp_path / "roller-ghoster.json.bad").read_text() == content
    assert s.app.controller.game.pos == ["start", "start"]


def test_host_choice_is_validated_against_the_prompt():
    s = RollerSim(players=2, seed=1)
    d = s.app.controller.decider
    assert d.offer(("roll",)) == "no decision is pending"
    d.current = ("move", 0, [("move", "wall"), ("move", "outer")])
    assert d.offer(["move", "sideways"]) == "not one of the offered options"
    assert d.offer(["move", "outer"]) is None


def test_menu_at_power_up_is_the_service_mode_and_menu_with_roll_safe_boot():
    s = RollerSim(players=2, seed=1)
    assert not s.app.safe_boot_requested()
    from hauntbox_sim.fakes import machine
    machine.pin(s.pinmap["pins"]["btn_menu"]["gpio"]).sim_drive(0)
    assert s.app.boot_buttons() == "service" and not s.app.safe_boot_requested()
    machine.pin(s.pinmap["pins"]["btn_roll"]["gpio"]).sim_drive(0)
    assert s.app.boot_buttons() == "safe" and s.app.safe_boot_requested()


def test_dead_receiver_fails_the_emitter_test_and_players_are_asked_about_it():
    s, events, winner = play(players=2, seed=9, faults=Faults(dead_beams={3}))
    assert ("fault", "beam_dead", 3) in events
    # Healthy receivers pass the emitter test: nobody else is reported.
    assert [e for e in kinds(events, "fault")] == [("fault", "beam_dead", 3)]
    asked = [e for e in kinds(events, "prompt") if e[1] == "ball_on_3"]
    assert asked
    assert winner is not None


def test_without_an_emitter_pin_a_silent_beam_is_suspected_statistically():
    from games.roller import RollerController
    c = RollerController.__new__(RollerController)
    c.quiet = None
    c.suspect = ()
    c.dead = ()
    c.faults = 0
    c.dead_after = 12
    published = []
    c.bus = type("Bus", (), {"publish": lambda self, e: published.append(e)})()
    for _ in range(11):
        c.watch_beams((1, 1, 0, 1))
    assert published == []
    c.watch_beams((1, 0, 0, 1))
    assert published == [("fault", "beam_silent", 3)]
    c.watch_beams((0, 0, 1, 0))           # a ball seen again clears the suspicion
    assert c.suspect == ()


@pytest.mark.parametrize("answer, resumed", [(0, True), (1, False)])
def test_boot_offers_to_resume_the_saved_game(tmp_path, answer, resumed):
    s = RollerSim(players=3, seed=4, state_dir=str(tmp_path))
    cut_at = []

    def cut(ev):
        if ev[0] == "turn" and len(cut_at) < 8:
            cut_at.append(ev)
            if len(cut_at) == 8:
                runtime.request_reset(hard=True)
    s.app.bus.subscribe(cut)
    with pytest.raises(runtime.BoardReset):
        s.run()
    saved = json.loads((tmp_path / "roller-ghoster.json").read_text())["game"]
    s2 = RollerSim(players=3, seed=4, state_dir=str(tmp_path))
    seen = []
    s2.people.choose = lambda kind, player, options, _orig=s2.people.choose: (
        answer if kind == "resume" else _orig(kind, player, options))

    def watch(ev):
        if ev[0] == "prompt" and ev[1] == "resume" and ev[4] == 0:
            seen.append(s2.app.controller.game.to_dict())
        if ev[0] in ("game", "resumed"):
            seen.append(ev[0])
    s2.app.bus.subscribe(watch)
    s2.run()
    assert seen[0] == "resumed" and seen[1] == saved       # asked, with the saved game loaded
    assert ("game" in seen[2:]) == (not resumed)            # "new" starts a fresh game


def test_after_a_game_roll_starts_another_and_the_host_can_too():
    from hauntbox_sim.fakes import install as sim_install
    s = RollerSim(players=2, seed=5)
    events = []
    s.app.bus.subscribe(events.append)

    async def two_games_then_host():
        task = __import__("asyncio").ensure_future(s.app.main_async(2, 0, False, exit_when_over=False))
        # Look often: the bots press ROLL at "play again" 150-600 ms after it
        # shows, and the host's "new" must come at the second game's prompt.
        while sum(1 for e in events if e[0] == "over") < 2:     # bots press ROLL at "play again"
            await __import__("asyncio").sleep(0.02)
        while s.app.controller.decider.current is None or s.app.controller.decider.current[0] != "play_again":
            await __import__("asyncio").sleep(0.02)
        assert s.app.request_new_game("roller-ghoster", 3, 1) is None   # the host's "new"
        while s.app.controller.game.players != 3:
            await __import__("asyncio").sleep(0.1)
        task.cancel()
        try:
            await task
        except BaseException:
            pass
    sim_install.run(two_games_then_host())
    games = [e for e in events if e[0] == "game"]
    assert [g[2] for g in games][:3] == [2, 2, 3]
    assert games[2][3] == 1


def test_physical_die_the_players_enter_every_face_with_the_buttons():
    # The physical die setting: each roll is the face the players entered
    # (LEFT/RIGHT, ROLL), never one the firmware drew; the game plays out.
    s, events, winner = play(players=3, seed=5, noise="all",
                             settings={"roller-ghoster.die": "physical"})
    rolls = [e[2] for e in kinds(events, "roll")]
    assert rolls and rolls == s.people.faces
    asked = [e for e in kinds(events, "prompt") if e[1] == "die" and e[4] == 0]
    assert len(asked) == len(rolls)
    assert not [e for e in kinds(events, "prompt") if e[1] == "roll"]
    assert winner is not None and s.app.controller.game.winner == winner
    assert not kinds(events, "fault")


def test_electronic_die_stays_the_default():
    s, events, winner = play(players=2, seed=5, noise="none")
    assert kinds(events, "roll") and not [e for e in kinds(events, "prompt") if e[1] == "die"]
    assert s.people.faces == []
