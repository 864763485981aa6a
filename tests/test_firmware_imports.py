"""The firmware's import graph, read from the source (every import statement,
at module level or inside a function), against the layer table of
docs/firmware-conventions.md ("Where things go"):

- each layer imports only what its row allows; every exception is listed in
  LAYER_EXCEPTIONS with the reason it exists;
- no import cycle, except through the lazy back-edges in LAZY_BACK_EDGES: a
  module that loads a helper inside a function and drops it again
  (ram.unload), so the helper costs no RAM while it is not needed, where the
  helper imports constants of the module that loads it. Each entry says what
  the helper costs while loaded, measured on the emulated Pico (the parent
  imported, then gc.mem_alloc() around importing the helper at the REPL;
  docs/performance.md);
- no entry of either list is stale: each names an import that exists.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_graph import cycles as components

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"

#: (importer, imported): why this crosses the layer table.
LAYER_EXCEPTIONS = {
    ("devices.roller_build", "board"): "a build turns the pin map (board.py) into driver objects",
    ("devices.haunted_build", "board"): "a build turns the pin map (board.py) into driver objects",
    ("devices.roller_build", "rules.roller_layout"):
        "the LED chain's step segment is as long as the layout's steps: the build makes the one "
        "Layout the rules then use (one per boot, not one per game)",
    ("games.link_core", "protocol"): "the link is the protocol's transport: it makes the Protocol "
                                     "when a host first speaks",
}

#: (importer, imported) lazy imports that close a cycle: why, and the measured cost.
LAZY_BACK_EDGES = {
    ("protocol", "protocol_commands"):
        "requests are answered by code loaded for one chunk of input and dropped: 5056 B while loaded",
    ("protocol_commands", "protocol_service"):
        "the commands that change the board (new, config, selftest, calibrate, service), loaded "
        "for one such request: the code answering every turn's state and act is 5056 B while "
        "loaded instead of 8864; protocol_service adds 5744 B while loaded",
    ("rules.roller_ghoster", "rules.roller_ghoster_state"):
        "a saved game's checks, loaded for a resume: 1808 B while loaded",
    ("rules.roller_layout", "rules.roller_layout_build"):
        "the layout's builder and checks, loaded once per boot: 1616 B while loaded",
    ("rules.beetlejuice", "rules.beetlejuice_state"):
        "a saved game's checks, loaded for a resume: 4400 B while loaded",
    ("rules.beetlejuice", "rules.beetlejuice_rare"):
        "the rare events (a new game, Handbooks, Beetlejuice summoned or banished, 2-skull "
        "passes, the end), loaded for the call: 3520 B while loaded",
    ("games.beetlejuice", "games.beetlejuice_setup"):
        "the board wired, a new game, a resume: loaded once per boot or per game: "
        "1328 B while loaded",
    ("rules.beetlejuice_cards", "rules.beetlejuice_load"):
        "the card data's parser and checks, loaded at setup: 2560 B while loaded",
    ("rules.haunted_house", "rules.haunted_house_host"):
        "the legal actions of the host's full engine, not used by the board's own turn loop: "
        "752 B while loaded",
    ("rules.haunted_house", "rules.haunted_house_rare"):
        "setup, round scoring, the game's end, copies of the state and the refused actions' "
        "messages, loaded for one call: 4608 B while loaded (a resume loads the saved game's "
        "checks from it: 4720 B more)",
    ("devices.scoreboard", "devices.scoreboard_setup"):
        "the scoreboard's set-up and colour tables, loaded once per game load: 1120 B while loaded",
    ("games.haunted", "games.haunted_rare"):
        "building the controller and starting or resuming a game, loaded for one call: "
        "1696 B while loaded",
}

#: Layer of a module (its top-level folder; "top" for the modules at the root).
LAYERS = ("rules", "drivers", "devices", "games")
#: Firmware layers each layer may import (its own always). "ram" is the RAM
#: helpers (unload, interned): every layer may use them.
MAY_IMPORT = {
    "rules": {"ram"},
    "drivers": {"ram"},
    "devices": {"drivers", "ram"},
    "games": {"rules", "drivers", "devices", "ram"},
    "top": {"rules", "drivers", "devices", "games", "ram", "top"},
    "ram": set(),
}
#: MicroPython modules the rules must not use: no I/O, no clock, no randomness.
RULES_FORBIDDEN = {"machine", "time", "asyncio", "os", "select", "neopixel", "rp2", "random", "sys"}


def modules() -> dict[str, Path]:
    out = {}
    for f in FIRMWARE.rglob("*.py"):
        name = ".".join(f.relative_to(FIRMWARE).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = f
    return out


def layer(mod: str) -> str:
    if mod == "ram":
        return "ram"
    head = mod.split(".")[0]
    return head if head in LAYERS else "top"


def imports(mods: dict[str, Path]) -> tuple[dict[tuple[str, str], bool], dict[str, set[str]]]:
    """({(importer, firmware module): lazy?}, {importer: other modules imported})."""
    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[tuple[str, str], bool] = {}
    external: dict[str, set[str]] = {}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        lazy_nodes = {id(n) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                      for n in ast.walk(fn)}
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                           for a in node.names]
            for t in targets:
                r = resolve(t)
                if r is None:
                    external.setdefault(mod, set()).add(t.split(".")[0])
                elif r != mod:
                    lazy = id(node) in lazy_nodes
                    edges[(mod, r)] = edges.get((mod, r), True) and lazy
    return edges, external


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (the package graph's
    Tarjan, tests/test_import_graph.py, on the module edges)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    return components(graph)


MODS = modules()
EDGES, EXTERNAL = imports(MODS)


def test_layers_import_only_what_the_table_allows():
    bad = []
    for (a, b), _lazy in sorted(EDGES.items()):
        la, lb = layer(a), layer(b)
        if la == lb or lb in MAY_IMPORT[la] or (a, b) in LAYER_EXCEPTIONS:
            continue
        bad.append(f"{a} imports {b} ({la} -> {lb})")
    assert not bad, "against the layer table of docs/firmware-conventions.md:\n" + "\n".join(bad)


def test_rules_do_no_io():
    bad = [f"{m} imports {x}" for m, xs in sorted(EXTERNAL.items()) if layer(m) == "rules"
           for x in sorted(xs & RULES_FORBIDDEN)]
    assert not bad, "rules/ must not use I/O, clocks or randomness:\n" + "\n".join(bad)


def test_no_cycle_but_the_listed_lazy_back_edges():
    kept = {e for e in EDGES if e not in LAZY_BACK_EDGES}
    assert not cycles(kept), f"import cycles in firmware/: {cycles(kept)}"


def test_lazy_back_edges_are_lazy_and_close_a_cycle():
    for (a, b), why in LAZY_BACK_EDGES.items():
        assert (a, b) in EDGES, f"stale entry: {a} no longer imports {b}"
        assert EDGES[(a, b)], f"{a} imports {b} at module level: not a lazy back-edge ({why})"
        assert any(a in c and b in c for c in cycles(set(EDGES))), \
            f"{a} -> {b} closes no cycle: drop it from LAZY_BACK_EDGES"


def test_layer_exceptions_exist():
    for a, b in LAYER_EXCEPTIONS:
        assert (a, b) in EDGES, f"stale entry: {a} no longer imports {b}"


def test_the_checker_sees_a_cycle_and_a_layer_breach():
    # The checks themselves: a made-up cycle and a made-up breach are caught.
    assert cycles({("a", "b"), ("b", "a"), ("b", "c")}) == [["a", "b"]]
    assert layer("rules.x") == "rules" and "devices" not in MAY_IMPORT["rules"]
    assert layer("app") == "top" and "top" not in MAY_IMPORT["games"]
