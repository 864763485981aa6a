"""Play-again on every build: after a game's end, ROLL ("new" at the
play_again prompt) starts the next game with the same seats. Found on the
emulated Pico (make bench): on Beetlejuice and Haunted House the board
crashed there (app.py read the game's `players`, which those engines lack)."""

import asyncio

import pytest

from hauntbox_sim.boards.companion import CompanionSim
from hauntbox_sim.boards.haunted import HauntedSim
from hauntbox_sim.fakes import install as sim_install

def _with_paper(s):
    s.people.start_paper(s.players)     # the players' score sheets, as CompanionSim.run does
    return s


SIMS = {
    "beetlejuice": lambda: CompanionSim(game="beetlejuice", players=3, seed=4),
    "superskill": lambda: _with_paper(CompanionSim(game="superskill", players=3, seed=4)),
    "haunted-house": lambda: HauntedSim(players=2, seed=4),
}


def _play_again(s, n, until):
    """Play a game with n seats to its end, answer play-again with ROLL, and
    go on until until() is true; then stop the play loop."""
    async def play():
        task = asyncio.ensure_future(s.app.main_async(n, 0, False, exit_when_over=False))
        try:
            d = s.app.controller.decider
            while d.current is None or d.current[0] != "play_again":
                assert not task.done(), task
                await asyncio.sleep(0.05)
            assert d.offer(("new",)) is None        # what ROLL gives at that prompt
            while not until():
                assert not task.done(), task
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - the cancelled play loop
                pass
    sim_install.run(play())


@pytest.mark.parametrize("game", sorted(SIMS))
def test_roll_after_the_end_starts_the_next_game_with_the_same_seats(game):
    s = SIMS[game]()
    events = []
    s.app.bus.subscribe(events.append)
    n = s.players

    _play_again(s, n, lambda: sum(1 for e in events if e[0] == "game") >= 2)
    games = [e for e in events if e[0] == "game"]
    assert [g[2] for g in games[:2]] == [n, n]
    assert not [e for e in events if e[0] == "fault" and e[1] == "crash"]


def test_haunted_house_players_set_the_table_up_again_for_the_next_game():
    # A game's last round ends with no collect_dice: for the next game the
    # board lights the home spots ("place") and the players put the monsters
    # and clues there. Found on the emulated Pico (make bench): the simulated
    # players left the pieces where the last game had them, so the first
    # hits of game 2 landed on spots the board knew empty ("ignored").
    s = HauntedSim(players=2, seed=4)
    events = []
    s.app.bus.subscribe(lambda e: events.append((s.clock.now_us, e)))

    def placed_in_game_2():
        g2 = [i for i, (_t, e) in enumerate(events) if e[0] == "game"][1]
        return [e for _t, e in events[g2:] if e[0] in ("placed", "place_confirmed")]

    _play_again(s, 2, lambda: _first_turn_of_game_2_open(events))
    g2 = [i for i, (_t, e) in enumerate(events) if e[0] == "game"][1]
    place = [e for _t, e in events[g2:] if e[0] == "place"]
    assert place, "the board lit no spots for game 2"
    want = set(place[0][1])
    model = s.table
    held = {model.monster_spot(m) for m in model.monster_spots}
    held |= {c for c in model.clue_ids if model.clue_present[c]}
    assert want <= held, sorted(want - held)
    # The sensors saw every piece arrive: nobody had to CONFIRM over a gap.
    seen = {e[1] for e in placed_in_game_2() if e[0] == "placed"}
    assert want <= seen, sorted(want - seen)
    assert not [e for _t, e in events[g2:] if e[0] == "ignored" and e[1] in want]


def _first_turn_of_game_2_open(events):
    # The pieces are placed before the first launch's window opens.
    starts = [i for i, (_t, e) in enumerate(events) if e[0] == "game"]
    return len(starts) >= 2 and any(e[0] == "window" and e[1] == "open"
                                    for _t, e in events[starts[1]:])
