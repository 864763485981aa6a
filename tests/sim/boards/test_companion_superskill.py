"""Star Trek: Super-Skill Pinball on the simulated dice companion (games/superskill.py).

Companion mode: the firmware rolls the shared dice and keeps each player's round;
the players' sheets are a "paper" game the simulator plays with host bots on the
dice the firmware shows, and the players report a round over or a Nudge amount
with the buttons. (The full rule engine runs on the host, not on the board.)
Rulebook sections cited per test: "Rounds and Turns", "Step 1: Roll the
Dice", "Nudging", "Tilting", "Losing a Ball and Ending a Round", "Ending the Game"."""
import json

import pytest

from games.superskill import Tracker
from rules.errors import CHANCE, RuleError
from hauntbox_sim.core import runtime
from hauntbox_sim.boards.companion import CompanionSim


def kinds(events, kind):
    return [e for e in events if e[0] == kind]


def play(**kw):
    s = CompanionSim(game="superskill", **kw)
    events = []
    s.app.bus.subscribe(events.append)
    paper_fx = []
    if s.people.paper is None:
        s.people.start_paper(s.players)
    orig = s.people.paper.apply

    def apply(a):
        fx = orig(a)
        paper_fx.extend(fx)
        return fx
    s.people.paper.apply = apply
    winner = s.run()
    return s, events, winner, paper_fx


@pytest.mark.parametrize("players,seed,bots", [
    (2, 1, ["greedy", "lookahead"]), (3, 2, ["lookahead", "greedy", "random"]),
    (4, 8, ["lookahead", "greedy", "random", "random"]), (1, 3, ["greedy"]),
])
def test_ending_the_game_companion_rounds_match_the_paper_sheets(players, seed, bots):
    """Losing a Ball and Ending a Round / Ending the Game: the rounds the firmware keeps
    (from the players' reports and its own tilt checks) match every sheet, roll for roll."""
    s, events, winner, paper_fx = play(players=players, seed=seed, policies=bots)
    g = s.controller.game
    paper = s.people.paper
    assert g.is_over() and paper.is_over()
    for p in range(players):
        assert g.players[p].done
        assert g.players[p].fin == paper.players[p].fin, p
    assert g.roll_no == paper.roll_no
    # Tilts: found by the firmware exactly when the sheets tilted.
    assert [e[1:] for e in kinds(events, "tilt")] == [e[1:] for e in kinds(paper_fx, "tilt")]
    assert winner == paper.winner
    assert ("over", winner) in events
    assert runtime.irq_errors == [] and not kinds(events, "rejected")
    # One completed turn (and one save) per roll.
    assert len(kinds(events, "turn")) == g.roll_no - 1 or len(kinds(events, "turn")) == g.roll_no
    assert s.app.store.writes >= len(kinds(events, "turn"))


def test_step_1_roll_the_dice_pips_match_every_roll():
    """Step 1: Roll the Dice: the two dice are shown as pips (decoded from the frames)."""
    from devices.dice_display import OFF, PIPS, WHITE
    s = CompanionSim(game="superskill", players=2, seed=4, policies=["greedy", "random"])
    seen = []

    def check():
        g = s.controller.game
        f = s.frame()
        for x0, face in ((0, g.dice[0]), (5, g.dice[1])):
            for k in range(9):
                want = WHITE if PIPS[face] >> k & 1 else OFF
                assert f[k // 3][x0 + k % 3] == s.scaled(want), (face, k)
        seen.append(g.dice)

    def watch(ev):
        if ev[0] == "prompt" and ev[1] == "report" and ev[4] == 0:
            s.clock.after_ms(1, check)
    s.app.bus.subscribe(watch)
    s.run()
    assert len(seen) > 30 and len(set(seen)) > 15


def test_tilting_warning_colour_while_a_nudge_is_pending_and_on_the_tilt():
    """Nudging / Tilting: once a Nudge amount is written the matrix shows orange (row 3
    and the player's LED) until the next roll; a tilt shows red."""
    from devices.dice_display import ORANGE, RED
    s = CompanionSim(game="superskill", players=2, seed=1, policies=["greedy", "lookahead"])
    looks = {"orange": 0, "red": 0}

    def check():
        c = s.controller
        g = c.game
        f = s.frame()
        pending = [p for p in range(g.n) if g.players[p].namt]
        for p in range(g.n):
            if c.tilted >> p & 1:
                assert f[4 + p][4] == s.scaled(RED)
            elif g.players[p].namt:
                assert f[4 + p][4] == s.scaled(ORANGE)
        if c.tilted:
            assert f[3] == [s.scaled(RED)] * 8
            looks["red"] += 1
        elif pending:
            assert f[3] == [s.scaled(ORANGE)] * 8
            looks["orange"] += 1
        else:
            assert all(px == (0, 0, 0) for px in f[3])

    def watch(ev):
        if ev[0] == "prompt" and ev[1] in ("report", "roll") and ev[4] == 0:
            s.clock.after_ms(1, check)
    s.app.bus.subscribe(watch)
    events = []
    s.app.bus.subscribe(events.append)
    s.run()
    assert kinds(events, "tilt") and kinds(events, "nudge")
    assert looks["red"] >= 1 and looks["orange"] >= 1


def test_nudging_report_a_nudge_amount_with_the_buttons_then_tilt_on_doubles():
    """Nudging: RIGHT selects player 1's seat, MENU cycles round over / Nudge 1 / Nudge 2 ...,
    ROLL enters it (amber LEDs show the amount); the next roll tilts if its difference
    is smaller than the amount (Tilting)."""
    from devices.dice_display import AMBER, WHITE
    s = CompanionSim(game="superskill", players=2, seed=5, policies=["greedy"])
    events = []
    s.app.bus.subscribe(events.append)
    state = {}
    orig = s.people.handle

    def handle(ev):
        if ev[0] == "prompt" and ev[1] == "report" and ev[4] == 0 and "done" not in state:
            state["done"] = True
            s.people.todo = []
            s.people.schedule(["right", "menu", "menu", "menu"])   # seat 0; round over, 1, 2
            return
        orig(ev)
    s.people.handle = handle

    def watch(ev):
        if ev[0] == "report" and ev[2] == ("nudge", 0, 2) and "look" not in state:
            def look():
                f = s.frame()
                state["look"] = (f[3][:3], f[4][0])
                s.people.schedule(["roll"])
            s.clock.after_ms(1, look)
        if ev[0] in ("tilt", "nudge_clear"):
            state["outcome"] = ev
            runtime.request_reset(hard=True)        # enough: stop the game here
    s.app.bus.subscribe(watch)
    with pytest.raises(runtime.BoardReset):
        s.run()
    assert state["look"] == ([s.scaled(AMBER)] * 2 + [(0, 0, 0)], s.scaled(WHITE))
    assert ("nudge", 0, 2) in events
    roll = kinds(events, "roll")[-1]
    diff = abs(roll[1] - roll[2])
    assert state["outcome"] == (("tilt", 0, 2, diff) if diff < 2 else ("nudge_clear", 0, 2, diff))


def test_losing_a_ball_report_menu_skips_finished_players():
    """Losing a Ball and Ending a Round: LEFT/RIGHT select only players still playing."""
    s = CompanionSim(game="superskill", players=3, seed=2, policies=["greedy"])
    c = s.controller
    c.new_game(3)
    g = c.game
    g.apply(("roll", 3, 4))
    for _ in range(3):
        g.apply(("round_over", 1))
    assert g.players[1].done
    seats = []
    c.seat = -1
    for _ in range(4):
        c._move_seat(1)
        seats.append(c.seat)
    assert seats == [0, 2, -1, 0]
    assert c.report_items(0)[0] == ("round_over", 0) and c.report_items(0)[-1] is None


def test_a_saved_full_engine_game_from_older_firmware_is_set_aside_not_lost(tmp_path):
    """The full engine no longer runs on the board (docs/performance.md): a game it
    saved is reported, kept next to the store as .bad, and a companion game starts."""
    (tmp_path / "superskill.json").write_text(json.dumps(
        {"mode": "engine", "game": {"roll_no": 12}, "rng": {"s": [1, 2]}}))
    s = CompanionSim(game="superskill", players=2, seed=1, state_dir=str(tmp_path))
    events = []
    s.app.bus.subscribe(events.append)
    assert s.app.start_game(2, 0, resume=True) is False
    # (Refused by its missing seal before the mode is read: games/store.py.)
    assert ("fault", "state_bad", "saved state has no format 2 seal (damaged, or older firmware)") \
        in events
    assert json.loads((tmp_path / "superskill.json.bad").read_text())["mode"] == "engine"
    assert s.controller.mode == "companion" and s.controller.game.roll_no == 0


def test_the_board_has_no_engine_mode_setting():
    """Settings: superskill.mode is gone; setting it is refused and changes nothing."""
    s = CompanionSim(game="superskill", players=2, seed=1)
    before = s.app.settings.all()
    assert s.app.settings.set("superskill.mode", "engine") == "unknown setting 'superskill.mode'"
    assert s.app.settings.all() == before


def test_resume_after_a_reset_keeps_rounds_and_nudges(tmp_path):
    """The game is saved after every completed roll: after a power cut the rounds,
    Nudge boxes and pending Nudge amounts come back, and the game ends as on paper."""
    bots = ["greedy", "lookahead"]
    s = CompanionSim(game="superskill", players=2, seed=1, policies=bots, state_dir=str(tmp_path))
    s.people.start_paper(2)
    turns = []

    def cut(ev):
        if ev[0] == "turn":
            turns.append(ev)
            if len(turns) == 30:
                runtime.request_reset(hard=True)
    s.app.bus.subscribe(cut)
    with pytest.raises(runtime.BoardReset):
        s.run()
    saved = json.loads((tmp_path / "superskill.json").read_text())
    assert saved["mode"] == "companion" and saved["game"]["roll_no"] == 30
    s2 = CompanionSim(game="superskill", players=2, seed=77, policies=bots, state_dir=str(tmp_path))
    s2.people.paper = s.people.paper           # the sheets survive the power cut
    events = []
    s2.app.bus.subscribe(events.append)
    assert s2.app.start_game(2, 0, resume=True)
    assert s2.controller.game.to_dict() == saved["game"]
    winner = s2.run()
    g = s2.controller.game
    paper = s.people.paper
    assert g.is_over() and paper.is_over()
    assert [ps.fin for ps in g.players] == [ps.fin for ps in paper.players]
    assert winner == paper.winner


# ---- the companion's tracker (pure rules) --------------------------------------------


def test_tilting_nudge_of_one_tilts_only_on_doubles():
    """Tilting: "Since you wrote a 1 as the Nudge amount, you will only Tilt if the next
    roll is doubles"; the amount is erased after the roll either way."""
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            t = Tracker(2)
            t.apply(("roll", 1, 3))
            t.apply(("nudge", 0, 1))
            t.apply(("next",))
            fx = t.apply(("roll", d1, d2))
            tilted = ("tilt", 0, 1, 0) in fx
            assert tilted == (d1 == d2)
            assert t.players[0].round == (2 if tilted else 1)
            assert t.players[0].namt == 0
            assert t.players[1].round == 1


def test_nudging_boxes_run_out_and_one_nudge_per_roll():
    """Nudging: one double-line box per Nudge; when they are used up, no more Nudges."""
    t = Tracker(1, nudge_boxes=3)
    for _ in range(3):
        t.apply(("roll", 1, 6))
        assert ("nudge", 0, 2) in t.legal_actions()
        t.apply(("nudge", 0, 2))
        assert not any(a[0] == "nudge" for a in t.legal_actions())   # one per roll
        t.apply(("next",))
    t.apply(("roll", 1, 6))
    assert t.players[0].nudges == 3
    with pytest.raises(RuleError):
        t.apply(("nudge", 0, 1))


def test_ending_the_game_third_round_and_the_winner_entry():
    """Ending the Game: after the third round a player is done; when all are done the
    players enter the winner from their sheets (or a tie)."""
    t = Tracker(2, rounds=3)
    t.apply(("roll", 2, 5))
    for _ in range(3):
        t.apply(("round_over", 0))
    assert t.players[0].done and t.players[0].fin == 1
    with pytest.raises(RuleError):
        t.apply(("round_over", 0))
    t.apply(("next",))
    t.apply(("roll", 4, 4))
    for _ in range(2):
        t.apply(("round_over", 1))
    fx = t.apply(("round_over", 1))
    assert ("player_over", 1, 2) in fx and t.phase == "result" and t.to_act == 0
    fx = t.apply(("winner", 1))
    assert t.is_over() and t.winner == 1 and fx[-1] == ("game_over", (1,))
    t2 = Tracker(1)
    t2.apply(("roll", 1, 1))
    for _ in range(3):
        t2.apply(("round_over", 0))
    assert t2.is_over() and t2.winner == 0


def test_tracker_random_playouts_legal_actions_apply_and_illegal_change_nothing():
    from rules.rng import Rng
    for seed in range(1, 60):
        r = Rng(seed)
        t = Tracker(1 + seed % 4)
        steps = 0
        while not t.is_over():
            acts = t.legal_actions()
            if t.to_act == CHANCE:
                assert len(acts) == 36
            a = acts[r.below(len(acts))] if t.phase != "report" or r.below(3) == 0 else ("next",)
            before = json.dumps(t.to_dict())
            for bad in (("nudge", 9, 1), ("roll", 0, 7), ("winner", -1), ("next", 1), ["round_over"]):
                with pytest.raises(RuleError):
                    t.apply(bad)
                assert json.dumps(t.to_dict()) == before
            t.apply(a)
            again = Tracker.from_dict(json.loads(json.dumps(t.to_dict())))
            assert again.to_dict() == t.to_dict()
            steps += 1
            assert steps < 2000
        assert all(s.done for s in t.players)


@pytest.mark.parametrize("patch", [
    {"phase": "dance"}, {"roll_no": -1}, {"players": [[4, False, -1, 0, 0, False]]},
    {"players": [[3, True, -1, 0, 0, False]]}, {"players": [[1, False, -1, 2, 0, False]]},
    {"players": [[1, False, -1, 0, 4, False]]}, {"winners": [0]}, {"dice": [0, 7]},
    {"mode": "engine"},
])
def test_tracker_from_dict_rejects_impossible_states(patch):
    t = Tracker(1)
    t.apply(("roll", 2, 3))
    d = t.to_dict()
    d.update(patch)
    with pytest.raises(RuleError):
        Tracker.from_dict(d)


def test_sim_command_line_plays_a_game_and_exits_0(capsys):
    from hauntbox_sim.cli import main
    assert main(["--game", "superskill", "--players", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "Roll 1:" in out and "Winner:" in out and "paper:" in out
    assert main(["--game", "superskill", "--players", "2", "--seed", "3", "--mode", "engine",
                 "--quiet"]) == 2
    assert main(["--game", "superskill", "--players", "5"]) == 2


@pytest.mark.parametrize("mode", ["engine", "arcade"])
def test_a_request_for_another_mode_is_reported_and_the_companion_started(mode):
    """A host asking for the full engine (or anything else) gets a fault that points
    to the host-side engine; the board still starts the companion."""
    s = CompanionSim(game="superskill", players=2, seed=1)
    events = []
    s.app.bus.subscribe(events.append)
    s.controller.new_game(2, 0, {"mode": mode})
    assert s.controller.mode == "companion" and s.controller.game.roll_no == 0
    faults = [e for e in events if e[:2] == ("fault", "options")]
    assert len(faults) == 1 and "hauntbox play superskill" in faults[0][2]
    events.clear()
    s.controller.new_game(2, 0, {"mode": "companion"})
    assert not [e for e in events if e[0] == "fault"]
