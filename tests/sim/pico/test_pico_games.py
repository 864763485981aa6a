"""Each build plays on the emulated Pico (official rp2 firmware), its pins driven
by the project's models, and the defects the real port showed stay fixed.

Whole games run in `make pico` (sim/pico/cli.py); these play a few turns.
"""
from hauntbox_sim.boards.haunted import compare
from hauntbox_sim.pico import fsimage
from hauntbox_sim.pico import image as pico_image
from hauntbox_sim.pico.session import CompanionPico, HauntedPico, RollerPico


def turns(s, n):
    return lambda: s.result.turns >= n


def test_roller_ghoster_turns_and_balls_seen_match_the_tower_model():
    with RollerPico(players=2, seed=2, noise="all") as s:
        rotated = []
        s.host.subscribe(lambda ev: rotated.append(ev[1]) if ev[0] == "rotated" else None)
        hello = s.connect()
        assert hello["game"] == "roller-ghoster"
        # Until balls have fallen in several rotations and the last turn is over.
        s.play(max_s=300, until=lambda: len(s.tower.released) >= 4 and
               s.result.events[-1][0] == "turn")
        assert s.result.turns >= 2 and s.tower.rotations >= 1
        # Every ball the model released reached its beam and was counted on
        # the chip, staircase by staircase (switch bounce, glitches and chatter on).
        seen = [sum(c[k] for c in rotated) for k in range(4)]
        truth = [sum(1 for k, _ in s.tower.released if k == j + 1) for j in range(4)]
        assert seen == truth


def test_haunted_house_hits_are_credited_through_the_expanders_on_the_chips_i2c():
    with HauntedPico(players=2, seed=1, noise="none") as s:
        s.connect()
        s.play(max_s=120, until=turns(s, 5))
        assert s.board.i2c.transfers > 50
        r = compare(s.table.launches[:len(s.tracker.credits)], s.tracker.credits)
        assert r.launches >= 4 and r.true_hits >= 2
        assert (r.missed, r.phantom, r.wrong_player) == (0, 0, 0)


def test_the_beetlejuice_companion_plays_turns():
    with CompanionPico(game="beetlejuice", players=2, seed=1) as s:
        s.connect()
        s.play(max_s=120, until=turns(s, 3))
        assert s.result.turns >= 3
        assert s.board.frame_count > 10          # the matrix was drawn


def save_after_turns(n):
    """The flash of a Roller board after n completed turns (its save on it)."""
    with RollerPico(players=3, seed=4, noise="none") as s:
        s.connect()
        s.play(max_s=120, until=turns(s, n))
        s.board.run(300)
        return s.board.pico.filesystem(), s.result.turns


def test_new_during_the_resume_prompt_is_carried_out_and_the_save_is_not_played():
    fs, _ = save_after_turns(2)
    assert "/roller-ghoster.json" in fsimage.read_files(fs)
    with RollerPico(players=3, seed=4, noise="none", flash=fs) as s:
        s.bots_off()                      # nobody at the table answers the prompt
        s.connect()
        state = s.host.request("state")
        assert state["prompt"]["kind"] == "resume"
        r = s.host.request("new", players=2)
        assert r["ok"]
        s.board.run(1500)
        games = [ev for ev in s.result.events if ev[0] == "game"]
        assert games and games[-1][2] == 2            # the new game, with 2 players
        state = s.host.request("state")
        assert state["state"]["players"] == 2 and state["state"]["turn"] == 0
        assert not any(ev[0] == "resumed" for ev in s.result.events)


HANG_MAIN = b"""# main.py for the watchdog test: the real app, plus one task that hangs
# (blocks the loop and never yields) some seconds into the first boot after
# /hang was written. A blocking sleep idles the chip, so the emulator can skip
# ahead to the watchdog's reset instead of executing a busy loop for 8 s.
import asyncio, os, time
import app

def stuck():
    async def hang():
        await asyncio.sleep_ms(%d)
        time.sleep(60)
    return hang()

extra = []
try:
    os.remove('/hang')
    extra.append(stuck())
except OSError:
    pass
a = app.App()
from games.link import serve_stdio
app.play(a, asyncio.run, [serve_stdio(a)] + extra)
"""


def test_a_hung_task_makes_the_watchdog_reset_the_board_and_the_saved_game_resumes():
    img = pico_image.image({"game": "roller-ghoster", "players": 2},
                           extra={"/main.py": HANG_MAIN % 6000, "/hang": b"1"})
    with RollerPico(players=2, seed=3, noise="none", flash=img) as s:
        s.connect()
        before = []
        s.host.on_reply.append(lambda m: before.append(m["state"]) if m.get("cmd") == "state" else None)
        s.play(max_s=60, until=lambda: len(s.board.resets) > 1)
        assert s.board.resets[-1][1] == "watchdog"
        assert s.result.turns >= 1 and before
        saved = before[-1]                       # what the players last saw
        # A host reconnects after the reset: the board offers the saved game.
        s.connect()
        after = s.host.request("state")
        assert after["prompt"]["kind"] == "resume"
        assert (after["state"]["pos"], after["state"]["turn"]) == (saved["pos"], saved["turn"])
        # The players answer "resume" (ROLL) and the game goes on from there.
        n = s.result.turns
        s.play(max_s=60, until=turns(s, n + 1))
        assert s.result.turns > n


def test_a_flood_of_requests_in_one_write_gets_one_reply_each_in_order():
    # 60 here, more than the board's 512-byte reply backlog holds; make reliability
    # sends 1,000 (`python -m hauntbox_sim.pico.flood`).
    from hauntbox_sim.pico.flood import flood
    f = flood(60)
    assert (f.replies, f.in_order, f.duplicates) == (60, True, 0)
