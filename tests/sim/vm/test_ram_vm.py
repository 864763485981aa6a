"""ram.py on MicroPython: what the firmware drops after use really leaves RAM,
and interned game data shares its strings (the figures are `make bench`'s job;
these check that the mechanisms work, in the official WebAssembly VM).

The modules a game needs only while it is wired or started (board factory,
registry, build modules, settings schema, start-up, save checks) and the
protocol's per-request commands must be gone from sys.modules and from their
package once a game is set up and a host has spoken."""
import json
import tempfile
from pathlib import Path

import pytest

from hauntbox_sim.bench.vm_figures import VM_MOUNTS, vm_code
from hauntbox_sim.vm.mpvm import run_micropython, vm_available

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")

DROPPED = ["board", "games.registry", "startup", "games.settings_schema", "protocol_commands",
           "devices.roller_build", "devices.haunted_build", "devices.companion_build",
           "rules.roller_ghoster_state", "rules.haunted_house_state", "rules.haunted_house_load",
           "rules.beetlejuice_load", "rules.beetlejuice_state", "rules.haunted_house_rare",
           "games.haunted_rare", "devices.scoreboard_setup", "rules.beetlejuice_rare",
           "games.beetlejuice_setup"]

_BUILD = {}


def _fw():
    if "fw" not in _BUILD:
        from hauntbox_fw.build import build
        _BUILD["fw"] = build(out=Path(tempfile.mkdtemp(prefix="hauntbox-ram-")) / "fw").out_dir
    return _BUILD["fw"]


@pytest.mark.parametrize("script,setup", [
    ("sim/vm/scripts/bench_roller.py", "G.setup(7)"),
    ("sim/vm/scripts/bench_haunted.py", "G.setup(7)"),
    ("sim/vm/scripts/bench_companion.py", "G.setup('beetlejuice', 7, 4, 'companion')"),
])
def test_one_off_modules_are_dropped_after_setup_and_host_requests(script, setup):
    # The steps are sim/vm/scripts/ram_host.py's (H), on the game's bench module (G).
    steps = ["G.load()", setup, "H.set_setting(G)", "B.connect_host(G, G.S['app'])",
             "H.ask_config(G)", "H.ask_new_game(G)", "H.restart(G)",
             f"H.report_dropped(G, {DROPPED!r})"]
    out = run_micropython(vm_code(script, steps, also={"H": "ram_host"}), mounts=VM_MOUNTS,
                          firmware=_fw(), timeout=300)
    r = json.loads(out.strip().splitlines()[-1])
    assert r["loaded"] == [] and r["attrs"] == [], r


def test_unload_frees_the_module_and_interned_data_shares_its_strings():
    code = (ROOT / "sim" / "vm" / "scripts" / "ram_unload.py").read_text()
    r = json.loads(run_micropython(code, firmware=_fw()).strip().splitlines()[-1])
    assert r["gone"] and r["freed"] > 1000, r       # the layout module's code is freed
    assert r["same"], r
    # 40 interned ids: a json copy is only its list (~4 B an id); string
    # objects would take 32 B each. The text under "name" was not interned.
    assert r["ids"] < 8 * 40, r
    assert r["name"] >= 32, r


def test_ram_helpers_change_nothing_on_cpython():
    from hauntbox_sim.fakes import install as sim_install
    sim_install.install()
    import ram
    import rules.roller_layout  # noqa: F401  (loaded, then asked to be dropped)
    d = {"ids": ["a", "b"], "name": "x"}
    assert ram.interned(d, ("name",)) is d
    ram.unload("rules.roller_layout")
    import sys
    assert "rules.roller_layout" in sys.modules


def test_requests_load_their_code_and_give_the_heap_back():
    # Every batch of requests loads protocol_commands and drops it again: after
    # the first batch, more batches leave the live heap where it was (no leak,
    # no creep from the loads), and the module is not resident in between.
    # H.send_batch: state, legal, hello and a bogus command (sim/vm/scripts/ram_host.py).
    steps = ["G.load()", "G.setup('beetlejuice', 7, 4, 'companion')",
             "B.connect_host(G, G.S['app'])", "H.send_batch(G)", "B.settle()", "H.mark(G, 'a')"]
    for _ in range(6):
        steps += ["H.send_batch(G)", "B.settle()"]
    steps += ["H.mark(G, 'b')", "H.report_batches(G)"]
    out = run_micropython(vm_code("sim/vm/scripts/bench_companion.py", steps, also={"H": "ram_host"}),
                          mounts=VM_MOUNTS, firmware=_fw(), timeout=300)
    r = json.loads(out.strip().splitlines()[-1])
    assert not r["resident"], r
    assert r["lines"] == 4 * 7 + 3 and r["errors"] == 7, r      # connect_host sent 3
    assert abs(r["b"] - r["a"]) <= 64, r
