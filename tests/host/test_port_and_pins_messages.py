"""Issue 20, items 7 and 8: a port that does not exist is said once, plainly;
`hauntbox pins` gives each LED chain its own count."""
import json

import pytest

from hauntbox import ports
from hauntbox_fw import pinmap


def test_a_missing_port_is_one_plain_sentence():
    msg = ports.missing_port("/dev/nonexistent")
    assert msg.startswith("no such port /dev/nonexistent") and msg.count("/dev/nonexistent") == 1
    assert ports.missing_port("/dev/null") is None


def test_flash_and_console_say_so(capsys):
    from hauntbox import flash
    from hauntbox.client import Client, Disconnected
    assert flash.main(["--port", "/dev/nonexistent"]) == 1
    err = capsys.readouterr().err
    assert "no such port /dev/nonexistent" in err and "in use" not in err
    with pytest.raises(Disconnected) as e:
        Client("/dev/nonexistent").connect()
    assert str(e.value).count("/dev/nonexistent") == 1


def test_each_led_chain_shows_its_own_count():
    table = pinmap.format_table(json.loads((pinmap.BOARDS_DIR / "haunted-house.json").read_text()))
    score = next(line for line in table.splitlines() if line.startswith("score_pixels"))
    spots = next(line for line in table.splitlines() if line.startswith("spot_pixels"))
    assert "100 pixels, bitstream, 3.05 ms per frame" in score
    assert "15 pixels, bitstream, 0.50 ms per frame" in spots
