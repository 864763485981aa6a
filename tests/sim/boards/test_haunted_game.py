"""Whole simulated Boxtop Pinball: Haunted House games on the instrumented table.

Layer 3: the unmodified firmware (App, controller, Table, MCP23017 driver)
plays full games against the simulated chips and the dice-launch model; bots
launch, move the pieces and referee through the buttons. Every credited hit is
checked against the model's ground truth, and every round score against the
score the rulebook gives for the true final faces/realms ("Scoring",
"Round End", "Game End").
"""
import asyncio
import json

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.boards.haunted import HauntedSim, HitReport, Outage
from hauntbox_sim.views.haunted import read_monsters_hit, read_scoreboard


def play(**kw):
    s = HauntedSim(**kw)
    events = []
    s.app.bus.subscribe(events.append)
    winner = s.run()
    return s, events, winner


def test_whole_game_ends_with_valid_scores():
    """Game End: three rounds, rounds + clues, most points wins; scores match the truth."""
    s, events, winner = play(players=4, seed=2, noise="all")
    g = s.controller.game
    assert g.is_over() and g.round == 3 and len(g.rounds) == 3
    assert winner == g.winner and (winner in g.winners or winner is None)
    finals = g.final_scores()
    for p in range(4):
        assert finals[p] == sum(g.round_totals(p)) + sum(g.clue_values(p))
        assert all(t >= 0 for t in g.round_totals(p))
    assert max(finals) == finals[g.winners[0]]
    # Round scores = what the rulebook gives for the dice as they really lay.
    assert s.tracker.rounds_checked == 12 and s.tracker.round_mismatches == []
    # The clue reveal happens once, at the end, for every player.
    reveals = [e for e in events if e[0] == "clues_revealed"]
    assert [e[1] for e in reveals] == [0, 1, 2, 3]
    assert not any(e[0] == "clues_revealed" for e in events[:events.index(reveals[0])])
    # The score panel shows the final scores (decoded from the LED bytes).
    np = s.controller.build.score_strip.np
    assert read_scoreboard(np, s.pinmap["pixels"], 4) == finals
    # Nothing went wrong on the way.
    assert runtime.irq_errors == []
    assert not [e for e in events if e[0] in ("fault", "rejected")]
    rep = s.report()
    assert rep.ok, rep
    # Saved after every completed turn; the save is gone once the game is over.
    turns = sum(1 for e in events if e[0] == "window" and e[1] == "closed")
    assert s.app.store.writes >= turns + 3
    assert s.app.store.load(s.controller.save_name) is None


def test_crediting_accuracy_over_a_few_hundred_launches():
    """Monsters / Clues: every true hit credited once, to the player whose turn it was."""
    total = HitReport()
    for seed in (21, 22, 23, 24, 25):
        s = HauntedSim(players=4, seed=seed, noise="all")
        s.run()
        total.add(s.report())
    assert total.launches >= 250
    assert total.true_hits >= 200 and total.glitches > 1000
    assert total.missed == 0 and total.phantom == 0 and total.wrong_player == 0
    assert total.credited == total.true_hits
    assert total.circle_true == total.circle_credited and total.circle_wrong == 0
    assert total.hole_true == total.hole_credited and total.hole_wrong == 0
    assert total.round_mismatches == 0


def test_turn_windows_close_on_quiet_and_on_confirm():
    """Gameplay: each launch is one window; people sometimes press CONFIRM early."""
    s, events, _ = play(players=3, seed=8, noise="none")
    w = s.controller.windows
    assert w["quiet"] > 0 and w["confirm"] > 0 and w["timeout"] == 0
    opened = [e for e in events if e[0] == "window" and e[1] == "open"]
    assert len(opened) == len(s.table.launches)
    assert all(e[3] == "beam" for e in opened)


def test_one_player_game():
    """Solo play (1 player): the game still runs three rounds and ends."""
    s, events, winner = play(players=1, seed=4, noise="all")
    g = s.controller.game
    assert g.is_over() and winner == 0
    assert s.report().ok


def test_round_end_prefills_dice_lost_in_holes():
    """Round End: dice seen falling through holes are not asked for again."""
    s, events, _ = play(players=4, seed=6, noise="none")
    holes = {}
    for e in events:
        if e[0] == "die_lost" and e[2] == "hole":
            holes[e[1]] = holes.get(e[1], 0) + 1
        if e[0] == "enter_dice":
            assert e[3] == holes.get(e[1], 0)
        if e[0] == "round_scored":
            holes = {}
    assert any(e[0] == "enter_dice" and e[3] > 0 for e in events)


def test_expander_outage_does_not_stop_the_game():
    """A chip that stops answering: reported once per outage, the referee fills in, it recovers."""
    s, events, _ = play(players=3, seed=3, noise="all",
                        outages=[Outage("exp_a", 3, 3), Outage("exp_b", 14, 2)])
    g = s.controller.game
    assert g.is_over()
    faults = [e for e in events if e[0] == "fault"]
    assert [(e[1], e[2]) for e in faults] == [("expander", "exp_a"), ("expander_ok", "exp_a"),
                                              ("expander", "exp_b"), ("expander_ok", "exp_b")]
    kinds = {e[1] for e in events if e[0] == "prompt"}
    assert "manual" in kinds                  # the referee adds what the blind chip missed
    assert "launch_press" in kinds            # the launch beam (exp_b) was blind: press, then flick
    assert runtime.irq_errors == []
    assert s.report().ok


def test_resume_after_a_reset_mid_game(tmp_path):
    """Saved after every turn: a board reset resumes the game where it was."""
    s1 = HauntedSim(players=2, seed=5, noise="none", state_dir=str(tmp_path))

    async def until_reset():
        try:
            await asyncio.wait_for(s1.app.main_async(2, 0, True), 60.0)
        except asyncio.TimeoutError:
            pass
    sim_install.run(until_reset())
    saved = json.loads((tmp_path / "haunted-house.json").read_text())
    turns_before = s1.controller.turns
    assert turns_before >= 5 and saved["game"]["phase"] in ("launch", "round_end")
    s2 = HauntedSim(players=2, seed=5, noise="none", state_dir=str(tmp_path))
    s2.table.sync_to(saved["game"])
    events = []
    s2.app.bus.subscribe(events.append)
    s2.run()
    assert events[0][0] == "resumed" or any(e[0] == "resumed" for e in events)
    assert not any(e[0] == "game" for e in events)
    g = s2.controller.game
    assert g.is_over() and len(g.rounds) == 3


def test_scoreboard_shows_monsters_hit_and_writes_only_on_change():
    """Scoring (Monsters): the panel lights each monster a player hit this round."""
    s = HauntedSim(players=4, seed=9, noise="none")
    np = s.controller.build.score_strip.np
    layout = s.pinmap["pixels"]
    monsters = [m["id"] for m in s.data["monsters"]]
    checked = []

    def watch(ev):
        if ev[0] == "window" and ev[1] == "closed":
            g = s.controller.game
            shown = read_monsters_hit(np, layout, 4, monsters)
            assert shown == [g.monsters_hit(p) for p in range(4)]
            checked.append(1)
    s.app.bus.subscribe(watch)
    s.run()
    assert len(checked) > 30
    sb = s.controller.scoreboard
    strip = s.controller.build.score_strip
    before = strip.writes
    assert sb.render(s.controller.game, s.controller) is False      # nothing changed
    assert strip.writes == before
    cap = strip.max_brightness
    assert abs(cap - 1500 / (115 * 60)) < 1e-9 and strip.brightness <= cap


def test_scoreboard_number_encoding():
    """Scores read back from the LEDs: tens row, units row, hundreds LED."""
    sim_install.install()
    import neopixel
    from devices.scoreboard import Scoreboard
    from drivers.pixels import PixelStrip
    from machine import Pin
    from hauntbox_sim.boards.haunted import load_data, load_pinmap
    pm, data = load_pinmap(), load_data()
    layout = pm["pixels"]
    strip = PixelStrip(neopixel.NeoPixel(Pin(22, Pin.OUT), 100), 0.2, 0.25)
    spots = PixelStrip(neopixel.NeoPixel(Pin(21, Pin.OUT), 15), 0.2, 0.25)
    sb = Scoreboard(strip, spots, layout, ["red", "blue", "orange", "yellow"],
                    [m["id"] for m in data["monsters"]], [c["id"] for c in data["clue_spots"]])

    class Game:
        n = 4
        active = 1
        round = 2
        winners = []
        spots = {c["id"]: 1 for c in data["clue_spots"]}

        def __init__(self, scores):
            self.scores = scores

        def is_over(self):
            return False

        def score(self, p):
            return self.scores[p]

        def monsters_hit(self, p):
            return ["bob"] if p == 2 else []

        def has_hit(self, p, m):
            return m in self.monsters_hit(p)

        def monster_spot(self, m):
            return m + "_top"
    for scores in ([0, 7, 40, 99], [123, 250, 10, 1]):
        sb.render(Game(scores))
        assert read_scoreboard(strip.np, layout, 4) == scores
    assert read_monsters_hit(strip.np, layout, 4, ["medusa", "frank", "bob"])[2] == ["bob"]


def test_referee_can_end_a_turn_with_add_and_enter_a_missed_hit():
    """Monsters: a hit the sensors could not see is entered by hand ("add" instead of CONFIRM)."""
    s = HauntedSim(players=2, seed=12, noise="none", p_confirm=0.0)
    people = s.people
    state = {"flight": None, "manual": 0}
    events = []
    s.app.bus.subscribe(events.append)

    def steer(ev):
        if ev[0] != "prompt" or ev[4] != 0:
            return
        if ev[1] == "flight" and state["flight"] is None and people.rec is not None:
            state["flight"] = people.seq
            # After the die has settled: RIGHT, then CONFIRM = "add".
            people.press_option(1, people.rec.settled_us + 200_000, people.seq)
        elif ev[1] == "manual" and state["manual"] == 0:
            state["manual"] = 1
            # Take over the referee once: enter a hit on Frank by hand.
            opts = ev[3]
            people.seq += 1
            people.press_option(opts.index(("monster_hit", "frank")), runtime.clock().now_us + 300_000,
                                people.seq)
    s.app.bus.subscribe(steer)
    s.run()
    prompts = [i for i, e in enumerate(events) if e[0] == "prompt" and e[4] == 0]
    kinds = [events[i][1] for i in prompts]
    k = kinds.index("manual")
    assert kinds[k - 1] == "flight"                 # right after the "add" turn
    closed = [e for e in events[:prompts[k]] if e[0] == "window" and e[1] == "closed"]
    assert closed[-1][2] == "confirm"
    after = events[prompts[k]:]
    end = next(i for i, e in enumerate(after) if e[0] in ("turn", "extra_launch", "round_end"))
    assert any(e[0] == "monster_hit" and e[2] == "frank" for e in after[:end])
    assert s.controller.game.is_over()


def test_score_panel_is_steady_during_a_turn_and_previews_round_end_entries():
    """Round End: the highlighted face shows on the player's units row; turns leave scores alone."""
    s = HauntedSim(players=2, seed=7, noise="none")
    np = s.controller.build.score_strip.np
    layout = s.pinmap["pixels"]
    seen = {"flight": 0, "face": 0}

    def watch(ev):
        if ev[0] != "prompt":
            return
        g = s.controller.game
        shown = read_scoreboard(np, layout, 2)
        if ev[1] == "flight":
            assert shown == [g.score(0), g.score(1)]
            seen["flight"] += 1
        elif ev[1] == "face" and g.round == 2:
            # The units row of the player being entered previews the option
            # just highlighted (published after the LEDs were written).
            p, opt = ev[2], ev[3][ev[4]]
            if opt[0] == "face":
                assert shown[p] % 10 == opt[1] and shown[p] // 10 == g.score(p) // 10
                seen["face"] += 1
    s.app.bus.subscribe(watch)
    s.run()
    assert seen["flight"] > 10 and seen["face"] > 0


def test_long_led_chain_is_not_written_while_a_die_may_move():
    """A 100-LED write runs with interrupts off for ~3 ms: never between launch and quiet."""
    s = HauntedSim(players=3, seed=10, noise="all")
    writes = {"score": [], "spots": []}
    windows = []
    for name, strip in (("score", s.controller.build.score_strip), ("spots", s.controller.build.spot_strip)):
        np = strip.np
        orig = np.write

        def timed(orig=orig, name=name):
            start = runtime.clock().now_us
            orig()          # takes its time, interrupts off (sim/core/runtime.py: irq_off)
            writes[name].append((start, runtime.clock().now_us))
        np.write = timed

    def watch(ev):
        now = runtime.clock().now_us
        if ev[0] == "prompt" and ev[1] in ("launch", "launch_press") and ev[4] == 0:
            windows.append([now, None])
        elif ev[0] == "window" and ev[1] == "closed":
            windows[-1][1] = now
    s.app.bus.subscribe(watch)
    s.run()
    assert len(windows) > 30

    # The frames drawn as the table goes quiet come just before the window's
    # "closed" event: both chains' writes, interrupts off (sim/core/runtime.py).
    closing_us = sum(st.np.write_time_us() for st in (s.controller.build.score_strip,
                                                      s.controller.build.spot_strip))

    def inside(w):
        start, end = w
        return any(a < start and end + closing_us < b for a, b in windows if b is not None)
    assert not [w for w in writes["score"] if inside(w)]    # held back until the table is quiet
    assert [w for w in writes["spots"] if inside(w)]        # the short spot chain shows hits at once
    assert s.report().ok


def test_the_crediting_check_can_fail():
    """The comparison itself: misses, phantoms and hits credited in the wrong turn are caught."""
    from hauntbox_sim.boards.haunted import Credit, compare
    from hauntbox_sim.models.table import Launch
    truth = [Launch(0, 1, 0, monsters=["bob"], clues=["clue_top_left"]),
             Launch(1, 1, 0, monsters=["medusa"]),
             Launch(2, 1, 0, holes=[2])]
    ok = [Credit(0, ["bob"], ["clue_top_left"]), Credit(1, ["medusa"]), Credit(2, holes=[2])]
    assert compare(truth, ok).ok
    missed = [Credit(0, ["bob"]), Credit(1, ["medusa"]), Credit(2, holes=[2])]
    r = compare(truth, missed)
    assert (r.missed, r.phantom, r.wrong_player, r.ok) == (1, 0, 0, False)
    phantom = [Credit(0, ["bob", "frank"], ["clue_top_left"]), Credit(1, ["medusa"]), Credit(2, holes=[2])]
    r = compare(truth, phantom)
    assert (r.missed, r.phantom, r.wrong_player) == (0, 1, 0)
    late = [Credit(0, ["bob"], ["clue_top_left"]), Credit(1), Credit(2, ["medusa"], holes=[2])]
    r = compare(truth, late)
    assert (r.missed, r.phantom, r.wrong_player) == (0, 0, 1)
    wrong_owner = [Credit(0, ["bob"], ["clue_top_left"]), Credit(1, ["medusa"]), Credit(2, holes=[1])]
    r = compare(truth, wrong_owner)
    assert r.hole_wrong == 1 and not r.ok
