"""One direction, host -> sim -> firmware, read from the source's imports (AST).

The packages: `hauntbox` (host/hauntbox: the host tools), `hauntbox_fw`
(host/hauntbox_fw: finding and building the firmware, shared by host and
simulator), `hauntbox_sim` (sim/: the simulator, by role) and the firmware's
own top-level modules (firmware/). Every import statement counts, lazy ones
inside functions too: a lazy import is still a dependency.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"hauntbox": ROOT / "host" / "hauntbox", "hauntbox_fw": ROOT / "host" / "hauntbox_fw",
            "hauntbox_sim": ROOT / "sim"}
#: Which package may import which (besides itself, the stdlib and third parties).
ALLOWED = {
    "hauntbox": {"hauntbox_fw", "hauntbox_sim", "firmware"},
    "hauntbox_sim": {"hauntbox_fw", "firmware"},
    "hauntbox_fw": set(),
    "firmware": set(),
}
OURS = set(PACKAGES) | {"sim"}   # `sim` is the folder, never an import name


def _module_name(pkg: str, base: Path, path: Path) -> str:
    parts = [pkg, *path.relative_to(base).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, module: str) -> set[str]:
    """Every module name `path` imports, relative imports resolved against `module`."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[:len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
    return out


def source_modules() -> dict[str, tuple[str, Path]]:
    """module name -> (owning package, file) for host, shared, sim and firmware."""
    mods: dict[str, tuple[str, Path]] = {}
    for pkg, base in PACKAGES.items():
        for f in sorted(base.rglob("*.py")):
            if "scripts" in f.relative_to(base).parts or "lib" in f.relative_to(base).parts:
                continue   # sim/vm/{lib,scripts}: MicroPython-side files, checked below
            mods[_module_name(pkg, base, f)] = (pkg, f)
    for f in sorted((ROOT / "firmware").rglob("*.py")):
        mods["firmware:" + _module_name("", ROOT / "firmware", f).lstrip(".")] = ("firmware", f)
    return mods


def owner(name: str) -> str | None:
    top = name.split(".")[0]
    if top in OURS:
        return top
    if top and (ROOT / "firmware" / top).exists() or (ROOT / "firmware" / f"{top}.py").exists():
        return "firmware"
    return None


def sim_unit(name: str) -> str:
    """A package-level node: hauntbox_sim's subpackages (and top-level modules) count apart."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "hauntbox_sim" and len(parts) > 1 else parts[0]


def _show(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def violations(mods: dict[str, tuple[str, Path]]) -> list[str]:
    bad = []
    for mod, (pkg, path) in mods.items():
        name = mod.split(":")[-1]
        for imp in sorted(imports_of(path, name if pkg != "firmware" else "")):
            dst = owner(imp)
            if dst is None or dst == pkg:
                continue
            if dst == "sim":
                bad.append(f"{_show(path)} imports {imp}: the simulator is hauntbox_sim")
            elif dst not in ALLOWED[pkg]:
                bad.append(f"{_show(path)} ({pkg}) imports {imp} ({dst})")
    return bad


def package_graph(mods: dict[str, tuple[str, Path]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for mod, (pkg, path) in mods.items():
        if pkg == "firmware":
            continue   # the firmware's own graph is the lead's test (docs/firmware-conventions.md)
        src = sim_unit(mod)
        for imp in imports_of(path, mod):
            dst_pkg = owner(imp)
            if dst_pkg in PACKAGES:
                dst = sim_unit(imp)
                if dst != src:
                    graph.setdefault(src, set()).add(dst)
            elif dst_pkg == "firmware":
                graph.setdefault(src, set()).add("firmware")
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_one_direction_host_sim_firmware():
    assert violations(source_modules()) == []


def test_no_package_cycle():
    assert cycles(package_graph(source_modules())) == []


def test_the_vm_side_files_import_nothing_of_host_or_sim():
    for f in sorted((ROOT / "sim" / "vm").rglob("*.py")):
        if f.parent.name in ("lib", "scripts"):
            for imp in imports_of(f, ""):
                assert imp.split(".")[0] not in OURS, f"{f.relative_to(ROOT)} imports {imp}"


# --- the checks themselves fail on what they must catch -------------------------------------
@pytest.mark.parametrize("pkg,src,needle", [
    ("hauntbox_sim", "from hauntbox import console\n", "imports hauntbox.console"),
    ("hauntbox_sim", "def f():\n    import hauntbox.client\n", "imports hauntbox.client"),
    ("firmware", "import hauntbox_sim.core.clock\n", "imports hauntbox_sim.core.clock"),
    ("firmware", "from hauntbox_fw import build\n", "imports hauntbox_fw"),
    ("hauntbox_fw", "from hauntbox_sim.boards import roller\n", "imports hauntbox_sim.boards"),
    ("hauntbox", "from sim.core import runtime\n", "the simulator is hauntbox_sim"),
])
def test_a_wrong_way_import_is_reported(tmp_path, pkg, src, needle):
    f = tmp_path / "bad.py"
    f.write_text(src)
    found = violations({f"{pkg}.bad" if pkg != "firmware" else "firmware:bad": (pkg, f)})
    assert any(needle in v for v in found), found


def test_a_cycle_is_reported():
    g = {"hauntbox_sim.core": {"hauntbox_sim.fakes"}, "hauntbox_sim.fakes": {"hauntbox_sim.core"},
         "hauntbox": {"hauntbox_sim.core"}}
    assert cycles(g) == [["hauntbox_sim.core", "hauntbox_sim.fakes"]]
