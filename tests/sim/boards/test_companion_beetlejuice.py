"""Watch Out Beetlejuice on the simulated dice companion (games/beetlejuice.py):
whole games played by bots pressing the buttons, the LED picture, keep/reroll
with the buttons (the "reroll at least two dice" rule), card entry, the host
answering a prompt, and resume after a reset.

Rulebook sections cited per test: "How to Play" (rolls, set aside, the two-dice
reroll rule, Beetlejuice symbols never rerolled), "End of Turn", "Beetlejuice",
"End of the Game"."""
import json

import pytest

from hauntbox_sim.core import runtime
from hauntbox_sim.boards.companion import CompanionSim


def kinds(events, kind):
    return [e for e in events if e[0] == kind]


def play(**kw):
    s = CompanionSim(game="beetlejuice", **kw)
    events = []
    s.app.bus.subscribe(events.append)
    winner = s.run()
    return s, events, winner


def check_finished(s, events, winner):
    from rules.beetlejuice import BeetlejuiceGame
    g = s.controller.game
    assert g.is_over()
    assert ("over", winner) in events
    # The whole state is consistent: every card exactly once, in a zone that can hold it.
    BeetlejuiceGame.from_dict(s.controller.cfg, g.to_dict())
    target = g.target()
    if g.result == "bj":
        assert winner == -2 and len(g.bj_pile) >= target
    else:
        assert max(len(w) for w in g.won) >= target
        best = max(g.points(p) for p in range(g.n))
        assert g.winners == [p for p in range(g.n) if g.points(p) == best]
        assert winner == (g.winners[0] if len(g.winners) == 1 else None)
    # Every turn was saved before it was announced; nothing went wrong on the way.
    assert s.app.store.writes >= len(kinds(events, "turn"))
    assert runtime.irq_errors == []
    assert not kinds(events, "rejected") and not kinds(events, "fault")


@pytest.mark.parametrize("players,seed", [(1, 3), (2, 1), (3, 2), (4, 5), (6, 4)])
def test_end_of_the_game_whole_game_played_with_the_buttons(players, seed):
    """End of the Game: five Residents (or Beetlejuice's five) end a game played
    entirely through the simulated buttons."""
    s, events, winner = play(players=players, seed=seed, bounce=seed % 2 == 1)
    check_finished(s, events, winner)
    assert s.people.presses > 0
    # Every roll of the firmware went through the engine: 8 dice (or fewer with
    # a Remove-dice card) on the first roll of each turn.
    first = [e for e in kinds(events, "rolled") if e[1] == tuple(range(len(e[1])))]
    assert len(first) >= len(kinds(events, "turn")) - 1


def test_how_to_play_led_picture_matches_the_dice_and_the_table():
    """How to Play: the dice symbols, what is kept, whose turn, the Residents collected
    and Beetlejuice's presence are shown on the matrix (decoded from the NeoPixel frames)."""
    from devices.dice_display import (BLUE, CYAN, DIM_RED, GREEN, OFF, PLAYER_COLOURS,
                                      SYMBOL_COLOURS, WHITE)
    s = CompanionSim(game="beetlejuice", players=3, seed=6)
    checked = []

    def check():
        c = s.controller
        g = c.game
        f = s.frame()
        for i, face in enumerate(g.dice):
            want = s.scaled(SYMBOL_COLOURS[face]) if face else s.scaled(OFF)
            assert f[0][i] == want, (i, face)
            if not face:
                continue
            if i == c.cursor:
                mark = CYAN if c.keep >> i & 1 else BLUE
            elif face == "bj" and not g.bjre:
                mark = DIM_RED
            elif c.keep >> i & 1:
                mark = WHITE
            else:
                mark = OFF
            if c.preview is None:
                assert f[1][i] == s.scaled(mark), (i, face, c.keep, c.cursor)
        seat = s.scaled(PLAYER_COLOURS[c.colours[g.cur]])
        assert [x for x in range(6) if f[2][x] != s.scaled(OFF)] == [g.cur] and f[2][g.cur] == seat
        assert f[2][6] == (s.scaled(GREEN) if g.bj_up else s.scaled(OFF))
        for p in range(g.n):
            col = [f[7 - k][p] for k in range(5)]
            n = len(g.won[p])
            colour = s.scaled(PLAYER_COLOURS[c.colours[p]])
            assert col == [colour] * min(n, 5) + [s.scaled(OFF)] * (5 - min(n, 5)), p
        assert [f[7 - k][6] for k in range(5)].count(s.scaled(GREEN)) == min(len(g.bj_pile), 5)
        checked.append(tuple(g.dice))

    def watch(ev):
        if ev[0] == "prompt" and ev[1] == "keep" and ev[4] == 0:
            s.clock.after_ms(1, check)     # after the firmware has drawn the frame
    s.app.bus.subscribe(watch)
    s.run()
    assert len(checked) > 20


def test_leds_are_written_only_when_the_picture_changes():
    """The LED chain is written only when a pixel changed (interrupts are off while it is written)."""
    s = CompanionSim(game="beetlejuice", players=2, seed=9)
    frames = []
    s.app.bus.subscribe(lambda ev: frames.append(s.np.last_frame()))
    s.run()
    written = [b for _, b in s.np.frames]
    assert all(written[i] != written[i - 1] for i in range(1, len(written)))
    assert s.np.writes < len(frames)


def scripted(s, steps):
    """Answer the next prompts of the given kinds with scripted presses; the bots do the rest."""
    orig = s.people.handle
    queue = list(steps)

    def handle(ev):
        if ev[0] == "prompt" and ev[4] == 0 and queue and queue[0][0] == ev[1]:
            kind, fn = queue.pop(0)
            seq = fn(ev)
            if seq:
                s.people.schedule(seq)
            return
        orig(ev)
    s.people.handle = handle
    return queue


def first_keep_seed(pred):
    # A seed whose first "keep" prompt satisfies pred(controller).
    for seed in range(1, 60):
        s = CompanionSim(game="beetlejuice", players=2, seed=seed)
        found = []

        def grab(ev, s=s, found=found):
            if ev[0] == "prompt" and ev[1] == "keep" and not found:
                found.append(pred(s.controller))
                raise runtime.BoardReset("probe done")
        s.app.bus.subscribe(grab)
        try:
            s.run()
        except runtime.BoardReset:
            pass
        if found and found[0]:
            return seed
    raise AssertionError("no seed found")


def toggleable(c):
    return [i for i in range(len(c.game.dice)) if c.toggleable(i)]


def test_how_to_play_reroll_at_least_two_dice_forces_a_kept_die_back():
    """How to Play: "You can never reroll only one die": keeping all but one die and
    rerolling puts the highest kept die back in the cup; the MENU shows it in orange."""
    from devices.dice_display import ORANGE, WHITE
    seed = first_keep_seed(lambda c: len(toggleable(c)) >= 3)
    s = CompanionSim(game="beetlejuice", players=2, seed=seed)
    events = []
    s.app.bus.subscribe(events.append)
    plan = {}

    def keep_all_but_last(ev):
        c = s.controller
        t = toggleable(c)
        assert c.cursor == t[0] and c.keep & sum(1 << i for i in t) == 0
        plan["t"] = t
        seq = []
        for k in range(len(t) - 1):
            seq += ["roll", "right"]
        seq.append("menu")        # the MENU opens on "reroll"
        return seq

    def check_menu(ev):
        if ev[0] == "keep" and ev[4] is not None and "menu" not in plan:
            plan["menu"] = ev[4]

            def look():
                t = plan["t"]
                f = s.frame()
                assert f[1][t[-1]] == s.scaled(ORANGE) and f[1][t[-2]] == s.scaled(ORANGE)
                assert all(f[1][i] == s.scaled(WHITE) for i in t[:-2])
                s.people.schedule(["roll"])
            s.clock.after_ms(1, look)
    s.app.bus.subscribe(check_menu)
    scripted(s, [("keep", keep_all_but_last)])
    winner = s.run()
    t = plan["t"]
    assert plan["menu"] == ("reroll", (t[-2], t[-1]))
    p = kinds(events, "turn")[0][1]
    assert ("forced", p, (t[-2],)) in events
    rerolls = [e for e in kinds(events, "rolled") if len(e[1]) < 8]
    assert rerolls[0][1] == (t[-2], t[-1])
    check_finished(s, events, winner)


def test_how_to_play_set_aside_and_reroll_the_rest_with_the_buttons():
    """How to Play: set aside dice between rolls: the kept dice stay, the others
    (never a Beetlejuice symbol) are rolled again; MENU RIGHT ROLL stops."""
    seed = first_keep_seed(lambda c: len(toggleable(c)) >= 4)
    s = CompanionSim(game="beetlejuice", players=2, seed=seed)
    events = []
    s.app.bus.subscribe(events.append)
    seen = {}

    def keep_two(ev):
        c = s.controller
        t = toggleable(c)
        seen["dice"] = list(c.game.dice)
        seen["kept"] = (t[0], t[2])
        # LEFT wraps to the last die, RIGHT RIGHT back to t[0]: keep t[0] and t[2].
        return ["left", "right", "roll", "right", "right", "roll", "menu", "roll"]

    def stop(ev):
        c = s.controller
        seen["stop_dice"] = list(c.game.dice)
        if c.menu is None:
            return ["menu", "right", "roll"]        # the MENU opens on "reroll"; RIGHT: "stop"
        return s.people.pick(c.menu, ("stop",))
    scripted(s, [("keep", keep_two), ("keep", stop)])
    winner = s.run()
    before = seen["dice"]
    bj = [i for i, f in enumerate(before) if f == "bj"]
    rolled = [e for e in kinds(events, "rolled") if e[1] != tuple(range(len(e[1])))]
    want = tuple(i for i in range(len(before)) if i not in seen["kept"] and i not in bj)
    assert rolled[0][1] == want
    for i in seen["kept"] + tuple(bj):
        assert seen["stop_dice"][i] == before[i]
    check_finished(s, events, winner)


def test_how_to_play_a_beetlejuice_symbol_cannot_be_selected_or_rerolled():
    """How to Play: "You are never allowed to reroll a Beetlejuice symbol": the cursor
    skips those dice, and a full reroll leaves them in place."""
    seed = first_keep_seed(lambda c: 1 <= c.game.dice.count("bj") <= 2 and len(toggleable(c)) >= 2)
    s = CompanionSim(game="beetlejuice", players=2, seed=seed)
    events = []
    s.app.bus.subscribe(events.append)
    seen = {}

    def walk(ev):
        c = s.controller
        seen["dice"] = list(c.game.dice)
        seen["t"] = toggleable(c)
        return ["right"] * len(seen["t"]) + ["menu", "roll"]     # full circle, reroll all
    def cursors(ev):
        if ev[0] == "rolled" and "dice" in seen:
            seen["done"] = True
        if ev[0] == "keep" and ev[4] is None and "done" not in seen:
            seen.setdefault("cursors", []).append(ev[3])
    s.app.bus.subscribe(cursors)
    scripted(s, [("keep", walk)])
    winner = s.run()
    bj = [i for i, f in enumerate(seen["dice"]) if f == "bj"]
    assert bj and not set(seen["cursors"]) & set(bj)
    assert sorted(set(seen["cursors"])) == seen["t"]
    reroll = [e for e in kinds(events, "rolled") if e[1] != tuple(range(len(e[1])))][0]
    assert reroll[1] == tuple(seen["t"])
    check_finished(s, events, winner)


def test_end_of_turn_host_answers_the_keep_prompt_with_an_engine_action():
    """End of Turn: "you may end your turn without using all 3 rolls": the host's
    ("stop",) answers the same prompt the buttons would; a made-up reroll is refused."""
    s = CompanionSim(game="beetlejuice", players=2, seed=3)
    events = []
    s.app.bus.subscribe(events.append)
    answers = []

    def host(ev):
        d = s.controller.decider
        answers.append(s.controller.game.turn)
        answers.append(d.offer(["reroll", [0]]))          # one die: not an option
        answers.append(d.offer(["stop"]))
        return []
    scripted(s, [("keep", host)])
    winner = s.run()
    turn, bad, ok = answers
    assert bad == "not one of the offered options" and ok is None
    rolls = 0
    current = 0
    for e in events:
        if e[0] == "turn":
            current = e[2]
        elif e[0] == "rolled" and current == turn:
            rolls += 1
    assert rolls == 1
    check_finished(s, events, winner)


def test_how_to_play_keep_prompt_lists_the_menu_and_takes_any_legal_reroll():
    """How to Play: "reroll any or all of the dice": the keep prompt lists only what the
    MENU offers (the reroll of the dice not set aside, stop, Handbook effects), yet a host
    may answer with any reroll the rules allow; one die or a Beetlejuice die is refused."""
    from rules.beetlejuice import BJ
    s = CompanionSim(game="beetlejuice", players=2, seed=5)
    events = []
    s.app.bus.subscribe(events.append)
    seen = {}

    def host(ev):
        c = s.controller
        g = c.game
        opts = ev[3]
        if "done" in seen or not g.can_reroll():
            return None
        free = [i for i, f in enumerate(g.dice) if f != BJ]
        if len(free) < 3:
            return None
        seen["done"] = True
        seen["opts"] = list(opts)
        assert opts[0][0] == "reroll" and ("stop",) in opts
        assert all(a[0] in ("reroll", "stop", "handbook") for a in opts) and len(opts) <= 2 + 8
        pick = (free[-1], free[0])                   # not listed: any order, any two dice
        assert ("reroll", pick) not in list(opts) and ("reroll", pick) in opts
        seen["one"] = c.decider.offer(["reroll", [free[0]]])
        bj = [i for i, f in enumerate(g.dice) if f == BJ]
        seen["bj"] = c.decider.offer(["reroll", [free[0], bj[0]]]) if bj else "skip"
        seen["pick"] = pick
        seen["ok"] = c.decider.offer(["reroll", list(pick)])
        return None
    orig = s.people.handle

    def handle(ev):
        if ev[0] == "prompt" and ev[1] == "keep" and ev[4] == 0 and "done" not in seen:
            if host(ev) is None and "done" in seen:
                return
        orig(ev)
    s.people.handle = handle
    winner = s.run()
    assert seen.get("done"), "no keep prompt with three free dice"
    assert seen["one"] == "not one of the offered options"
    assert seen["bj"] in ("skip", "not one of the offered options")
    assert seen["ok"] is None
    rolled = [e for e in kinds(events, "rolled") if e[1] == tuple(sorted(seen["pick"]))]
    assert rolled, "the host's reroll was applied"
    check_finished(s, events, winner)


def test_end_of_turn_collect_prompt_offers_the_best_set_first():
    """End of Turn: collect the Residents scared; ROLL at once takes the most points."""
    s = CompanionSim(game="beetlejuice", players=3, seed=2)
    offered = []

    def watch(ev):
        if ev[0] == "prompt" and ev[1] == "collect" and ev[4] == 0:
            g = s.controller.game
            cfg = g.cfg
            vals = [sum(2 if cfg.is_handbook(g.slots[i]) else cfg.points(g.slots[i]) for i in a[1])
                    for a in ev[3]]
            offered.append(vals)
    s.app.bus.subscribe(watch)
    s.run()
    assert offered
    assert all(v[0] == max(v) and v[-1] == 0 for v in offered)


def test_setup_cards_entered_with_the_buttons():
    """Setup / Beetlejuice: with {"cards": "enter"} every House and Beetlejuice card
    drawn at the table is entered with LEFT/RIGHT/ROLL (amber LED while waiting)."""
    from devices.dice_display import AMBER
    s = CompanionSim(game="beetlejuice", players=3, seed=4, options={"cards": "enter"})
    events = []
    s.app.bus.subscribe(events.append)
    amber = []

    def watch(ev):
        if ev[0] == "prompt" and ev[1] in ("deal", "draw_bj") and ev[4] == 0:
            s.clock.after_ms(1, lambda: amber.append(s.frame()[2][7] == s.scaled(AMBER)))
    s.app.bus.subscribe(watch)
    winner = s.run()
    deals = [e for e in kinds(events, "prompt") if e[1] == "deal" and e[4] == 0]
    assert len(deals) == len(kinds(events, "dealt")) >= 3
    assert amber and all(amber)
    check_finished(s, events, winner)


def test_resume_after_a_reset_continues_from_the_last_completed_turn(tmp_path):
    """The game is saved after every completed turn: a power cut loses nothing
    already played, and the resumed game ends validly."""
    s = CompanionSim(game="beetlejuice", players=3, seed=11, state_dir=str(tmp_path))
    turns = []

    def cut(ev):
        if ev[0] == "turn":
            turns.append(ev)
            if len(turns) == 8:
                runtime.request_reset(hard=True)
    s.app.bus.subscribe(cut)
    with pytest.raises(runtime.BoardReset):
        s.run()
    saved = json.loads((tmp_path / "beetlejuice.json").read_text())
    assert saved["game"]["turn"] == 8 and saved["cards"] == "firmware"
    s2 = CompanionSim(game="beetlejuice", players=3, seed=99, state_dir=str(tmp_path))
    events = []
    s2.app.bus.subscribe(events.append)
    assert s2.app.start_game(3, 0, resume=True)
    assert s2.controller.game.to_dict() == saved["game"]
    assert s2.controller.rng.state == saved["rng"]["state"]
    assert events[0][:2] == ("resumed", "beetlejuice")
    winner = s2.run()
    check_finished(s2, events, winner)
    assert s2.controller.game.turn > 8


def test_corrupt_save_is_set_aside_and_a_fresh_game_starts(tmp_path):
    (tmp_path / "beetlejuice.json").write_text(json.dumps({"game": {"v": 1}, "cards": "firmware"}))
    s = CompanionSim(game="beetlejuice", players=2, seed=1, state_dir=str(tmp_path))
    events = []
    s.app.bus.subscribe(events.append)
    assert not s.app.start_game(2, 0, resume=True)
    assert any(e[0] == "fault" and e[1] == "state_bad" for e in events)
    assert (tmp_path / "beetlejuice.json.bad").exists()
    assert s.controller.game.turn == 1


def test_how_to_play_rerolled_dice_are_no_longer_kept_beetlejuice_symbols_always_are():
    """How to Play: after a reroll the dice that went back in the cup (forced ones too)
    are free again, the dice set aside stay set aside, Beetlejuice symbols stay locked."""
    from rules.beetlejuice import auto_chance, reroll_for_keep
    for seed in range(1, 40):
        s = CompanionSim(game="beetlejuice", players=2, seed=seed)
        c = s.controller
        c.new_game(2)
        g = c.game
        while g.phase != "decide":
            c._apply(auto_chance(g, c.rng))
        t = toggleable(c)
        if len(t) < 3:
            continue
        c.keep |= sum(1 << i for i in t[:-1])             # keep all but one: one is forced back
        idx = c.menu_items(c.keep, g.legal_actions())[0][1]
        assert idx == reroll_for_keep(g, c.kept()) == (t[-2], t[-1])
        c._apply(("reroll", idx))
        c._apply(auto_chance(g, c.rng))
        if g.phase != "decide" or "bj" in (g.dice[t[-2]], g.dice[t[-1]]):
            continue                                      # Beetlejuice ended the turn, or came up
        assert [c.keep >> i & 1 for i in t[:-2]] == [1] * (len(t) - 2)
        assert c.keep >> t[-2] & 1 == 0 and c.keep >> t[-1] & 1 == 0   # rerolled: free again
        assert all(c.keep >> i & 1 for i, f in enumerate(g.dice) if f == "bj")
        assert c.cursor < 0 or c.toggleable(c.cursor)
        return
    raise AssertionError("no seed reached a second decision")


def test_menu_at_power_up_is_the_service_mode_and_menu_with_roll_safe_boot():
    from hauntbox_sim.fakes import machine
    s = CompanionSim(game="superskill", players=2, seed=1)
    assert not s.app.safe_boot_requested()
    machine.pin(s.pinmap["pins"]["btn_menu"]["gpio"]).sim_drive(0)
    assert s.app.boot_buttons() == "service" and not s.app.safe_boot_requested()
    machine.pin(s.pinmap["pins"]["btn_roll"]["gpio"]).sim_drive(0)
    assert s.app.boot_buttons() == "safe" and s.app.safe_boot_requested()


def test_sim_command_line_plays_a_game_and_exits_0(capsys):
    from hauntbox_sim.cli import main
    assert main(["--game", "beetlejuice", "--players", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "New game of Watch Out Beetlejuice: 3 players" in out and "Winner:" in out
    assert main(["--game", "beetlejuice", "--players", "2", "--seed", "3", "--mode", "enter",
                 "--bot", "random", "--quiet"]) == 0
    assert main(["--game", "beetlejuice", "--players", "7"]) == 2
    assert main(["--game", "beetlejuice", "--mode", "sometimes"]) == 2


def test_handbook_reroll_one_beetlejuice_symbol_through_the_dice_cursor():
    """Handbook for the Recently Deceased: "You may reroll one Beetlejuice symbol": after
    that effect the cursor also visits Beetlejuice dice; one left unkept is rerolled."""
    from rules.beetlejuice import auto_chance
    for seed in range(1, 60):
        s = CompanionSim(game="beetlejuice", players=2, seed=seed)
        c = s.controller
        c.new_game(2)
        g = c.game
        while g.phase != "decide":
            c._apply(auto_chance(g, c.rng))
        bj = [i for i, f in enumerate(g.dice) if f == "bj"]
        if not bj or not g.rolls_left():
            continue
        g.books[g.cur].append(g.house.pop())               # as if won earlier
        assert ("handbook", "reroll_bj") in g.legal_actions()
        c._apply(("handbook", "reroll_bj"))
        assert g.phase == "decide" and g.bjre
        assert all(c.toggleable(i) for i in bj) and all(c.keep >> i & 1 for i in bj)
        c.keep &= ~(1 << bj[0])                            # unkeep one Beetlejuice symbol
        item = c.menu_items(c.keep, g.legal_actions())[0]
        assert item[0] == "reroll" and bj[0] in item[1]
        c._apply(item)
        c._apply(auto_chance(g, c.rng))
        assert not g.bjre
        return
    raise AssertionError("no seed with a Beetlejuice symbol on the first roll")
