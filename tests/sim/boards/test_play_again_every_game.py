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


@pytest.mark.parametrize("game", sorted(SIMS))
def test_roll_after_the_end_starts_the_next_game_with_the_same_seats(game):
    s = SIMS[game]()
    events = []
    s.app.bus.subscribe(events.append)
    n = s.players

    async def two_games():
        task = asyncio.ensure_future(s.app.main_async(n, 0, False, exit_when_over=False))
        try:
            d = s.app.controller.decider
            while d.current is None or d.current[0] != "play_again":
                assert not task.done(), task
                await asyncio.sleep(0.05)
            assert d.offer(("new",)) is None        # what ROLL gives at that prompt
            while sum(1 for e in events if e[0] == "game") < 2:
                assert not task.done(), task
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - the cancelled play loop
                pass
    sim_install.run(two_games())
    games = [e for e in events if e[0] == "game"]
    assert [g[2] for g in games[:2]] == [n, n]
    assert not [e for e in events if e[0] == "fault" and e[1] == "crash"]
