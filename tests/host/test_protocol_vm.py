"""Parity: firmware/protocol.py gives the same replies and events on MicroPython
(the official WebAssembly VM) as on CPython, for one fixed session: good and
bad requests, split chunks, a too-long line, a roll and a move of Roller
Ghoster through `act`, settings, and the bounded event queue.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

vm = pytest.importorskip("hauntbox_sim.vm.mpvm")

SCRIPT = Path(__file__).resolve().parents[2] / "sim" / "vm" / "scripts" / "protocol_session.py"
RUN = SCRIPT.read_text()


def cpython_transcript() -> list:
    from hauntbox_fw.build import FIRMWARE_DIR
    from hauntbox_sim.fakes import install as sim_install

    sim_install.install()   # time.ticks_*: the file alone must not rely on an earlier test

    ns: dict = {"LAYOUT": str(FIRMWARE_DIR / "data/roller-ghoster.json")}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(RUN, str(SCRIPT), "exec"), ns)
    return json.loads(buf.getvalue())


def test_session_transcript_makes_sense_on_cpython():
    t = cpython_transcript()
    by_id = {r.get("id"): r for r in t if isinstance(r, dict) and "ok" in r and r.get("id")}
    assert by_id[1]["proto"] == 1 and by_id[1]["firmware"] == "9.9.9"
    assert by_id[2]["options"] == []
    assert by_id[3]["prompt"]["kind"] == "roll"
    assert by_id[4]["ok"] is False and by_id[5]["ok"] is True
    assert "still being applied" in by_id[6]["error"]
    assert by_id[7]["ok"] is False and by_id[8]["ok"] is True
    assert by_id[9]["ok"] is False and by_id[10]["ok"] is True and by_id[11]["value"] == 700
    assert by_id[13]["ok"] is False and by_id[14]["ok"] is True
    assert by_id[16]["error"] == "servo must be true or false"
    assert by_id[19]["dropped"] == 4
    assert by_id[20]["ok"] is True
    assert ["requests", [["roller-ghoster", 3, 1]]] in t
    assert ["remote", ["roll"]] in t
    ticks = [r for r in t if isinstance(r, dict) and r.get("ev") == "tick"]
    assert [x["data"][0] for x in ticks] == [4, 5, 6, 7, 8, 9]
    assert not any(isinstance(r, dict) and r.get("ev") == "hidden" for r in t)


@pytest.mark.skipif(not vm.vm_available(), reason="MicroPython VM not installed (make deps)")
def test_protocol_session_identical_on_micropython():
    got = json.loads(vm.run_micropython(RUN))
    assert got == cpython_transcript()


@pytest.mark.skipif(not vm.vm_available(), reason="MicroPython VM not installed (make deps)")
def test_commands_are_not_kept_in_ram_on_micropython():
    """The commands live in protocol_commands.py and protocol_service.py, loaded
    for one request and dropped again: after the session (which used them all)
    both are gone."""
    code = (RUN + "\nimport sys\nprint('protocol_commands' in sys.modules, "
            "'protocol_service' in sys.modules, 'protocol' in sys.modules)\n")
    last = vm.run_micropython(code).strip().splitlines()[-1]
    assert last == "False False True"
