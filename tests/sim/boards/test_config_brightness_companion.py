"""`config set brightness` on the dice companion redraws the board and answers ok
(it answered "internal error: TypeError" while saving the value: the redraw
called the companion display's render with the Roller signature). Found by the
emulated Pico's reliability run."""
import json

import pytest

from hauntbox_sim.boards.companion import CompanionSim


@pytest.mark.parametrize("game", ["beetlejuice", "superskill"])
def test_brightness_is_set_and_the_board_redrawn(game):
    s = CompanionSim(game=game, players=2, seed=1)
    from protocol import Protocol
    s.controller.new_game(2)
    writes = s.np.writes
    p = Protocol(s.app)
    (reply,) = p.feed(b'{"cmd":"config","op":"set","key":"brightness","value":0.05,"id":1}\n')
    r = json.loads(reply)
    assert r["ok"] is True and r["value"] == 0.05
    assert s.app.settings.get("brightness") == 0.05
    assert s.np.writes > writes
