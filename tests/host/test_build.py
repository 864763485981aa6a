"""Compiling the firmware tree to mpy 6.3 (hauntbox_fw.build)."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hauntbox import __version__
from hauntbox_fw import build as hb

SUBPROC_ENV_PATH = str(Path(hb.__file__).resolve().parents[1])


def make_tree(root: Path, files: dict) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


SMALL_TREE = {
    "main.py": "import games.loop\ngames.loop.run()\n",
    "boot.py": "x = 1\n",
    "games/__init__.py": "",
    "games/loop.py": "def run():\n    return 42\n",
    "games/main.py": "# not top level: compiled\nX = 3\n",
    "rules/rng.py": "class Rng:\n    __slots__ = ('s',)\n",
    "data/table.json": '{"a": [1, 2, 3]}\n',
    "boards/pico.json": '{"build": "test", "board": "pico",\n'
                        ' "pins": {"led": {"gpio": 2, "kind": "output", "part": "LED"}}}\n',
    "games/tests/test_loop.py": "assert False\n",
    "rules/test_rng.py": "assert False\n",
    "rules/__pycache__/rng.cpython-311.pyc": "junk",
    ".hidden.py": "x = 1\n",
    "README.txt": "notes\n",
}


@pytest.fixture(scope="module")
def real_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("real") / "firmware"
    return hb.build(out=out)


def test_real_tree_every_py_becomes_mpy_except_main_and_boot(real_build):
    src = hb.FIRMWARE_DIR
    shipped = {f.path for f in real_build.files}
    sources = [
        p.relative_to(src).as_posix()
        for p in src.rglob("*.py")
        if "__pycache__" not in p.parts
        and "tests" not in p.parts
        and "test" not in p.parts
        and not p.name.startswith(("test_", "."))
    ]
    assert sources, "the firmware tree has Python files"
    for rel in sources:
        if hb.host_only(rel):
            assert rel[:-3] + ".mpy" not in shipped and rel not in shipped, rel
        elif rel in ("main.py", "boot.py"):
            assert rel in shipped
            assert (real_build.out_dir / rel).read_bytes() == (src / rel).read_bytes()
        else:
            assert rel[:-3] + ".mpy" in shipped, rel
            assert rel not in shipped, rel
    for p in src.rglob("*.json"):
        rel = p.relative_to(src).as_posix()
        if "__pycache__" in p.parts or "tests" in p.parts:
            continue
        if hb.host_only(rel):
            assert not (real_build.out_dir / rel).exists(), rel
            continue
        # minified: the same value, no whitespace between tokens
        shipped_json = (real_build.out_dir / rel).read_bytes()
        assert json.loads(shipped_json) == json.loads(p.read_bytes()), rel
        assert shipped_json == json.dumps(json.loads(p.read_bytes()), separators=(",", ":"),
                                          ensure_ascii=False).encode(), rel
        assert len(shipped_json) <= len(p.read_bytes()), rel
    assert not any("__pycache__" in p for p in shipped)


def test_host_only_code_stays_off_the_board(real_build):
    """The Super-Skill engine runs on the host; the board's companion keeps its one
    table file. Everything the board imports is still there (the VM tests run the
    games from this build)."""
    shipped = {f.path for f in real_build.files}
    assert not [p for p in shipped if p.startswith("rules/superskill/")]
    assert [p for p in shipped if p.startswith("data/superskill/")] == [
        "data/superskill/starfleet_academy.json"]
    assert "games/superskill.mpy" in shipped and "rules/haunted_house_host.mpy" in shipped
    assert hb.host_only("rules/superskill/engine.py") and not hb.host_only("rules/superskill.py")


def test_real_tree_sizes_hashes_and_total_agree(real_build):
    out = real_build.out_dir
    on_disk = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert set(on_disk) == {f.path for f in real_build.files} | {hb.MANIFEST_NAME}
    for f in real_build.files:
        data = on_disk[f.path]
        assert f.size == len(data)
        assert f.sha256 == hashlib.sha256(data).hexdigest()
    assert real_build.total == sum(len(d) for d in on_disk.values())
    manifest = json.loads(on_disk[hb.MANIFEST_NAME])
    assert manifest["build"] == real_build.build_id
    assert manifest["mpy"] == "6.3"
    assert manifest["files"] == [f.manifest_entry() for f in real_build.files]
    assert real_build.manifest_size == len(on_disk[hb.MANIFEST_NAME])


def test_real_tree_mpy_headers_are_v6_3_for_the_pico(real_build):
    mpys = [f for f in real_build.files if f.path.endswith(".mpy")]
    assert mpys
    for f in mpys:
        head = (real_build.out_dir / f.path).read_bytes()[:4]
        assert head[0:1] == b"M"
        assert head[1] == 6
        # bytecode only: 0; native code: sub-version 3 | armv6m (4) << 2
        assert head[2] in (0, 3 | 4 << 2)
        assert head[3] == 31


def test_build_json_carries_the_build_id(real_build):
    info = json.loads((real_build.out_dir / "data/build.json").read_text())
    assert info == {"build": real_build.build_id, "version": __version__}
    assert len(real_build.build_id) == 12
    int(real_build.build_id, 16)


def test_mpy_cross_emits_the_pinned_version():
    assert hb.MPY_VERSION == (6, 3)
    assert hb.mpy_cross_version() == hb.MPY_VERSION


def test_rules_for_what_is_shipped(tmp_path):
    src = make_tree(tmp_path / "fw", SMALL_TREE)
    res = hb.build(src=src, out=tmp_path / "out")
    paths = {f.path: f for f in res.files}
    assert sorted(paths) == [
        "boards/pico.json",
        "boot.py",
        "data/build.json",
        "data/pinmaps_checked.json",
        "data/table.json",
        "games/__init__.mpy",
        "games/loop.mpy",
        "games/main.mpy",
        "main.py",
        "rules/rng.mpy",
    ]
    assert paths["main.py"].kind == "py" and paths["games/main.mpy"].kind == "mpy"
    assert res.skipped == ["README.txt"]
    # tracebacks on the Pico name the module (an interned name already), not
    # this machine's path
    assert b"games.loop" in (res.out_dir / "games/loop.mpy").read_bytes()
    assert b"games/loop.py" not in (res.out_dir / "games/loop.mpy").read_bytes()
    assert str(tmp_path).encode() not in (res.out_dir / "games/loop.mpy").read_bytes()
    assert hb.module_name("games/__init__.py") == "games"


def test_build_id_is_stable_and_follows_content(tmp_path):
    src = make_tree(tmp_path / "fw", SMALL_TREE)
    a = hb.build(src=src, out=tmp_path / "a")
    b = hb.build(src=src, out=tmp_path / "b")
    assert a.build_id == b.build_id
    assert (tmp_path / "a/manifest.json").read_bytes() == (
        tmp_path / "b/manifest.json"
    ).read_bytes()
    # rebuilding into the same folder replaces it
    (src / "games/loop.py").write_text("def run():\n    return 43\n")
    c = hb.build(src=src, out=tmp_path / "a")
    assert c.build_id != a.build_id
    changed = {f.path for f in c.files} - {f.path for f in a.files}
    assert not changed
    diff = [f.path for f, g in zip(a.files, c.files) if f.sha256 != g.sha256]
    assert diff == ["data/build.json", "games/loop.mpy"]
    # the version is part of the id too
    d = hb.build(src=src, out=tmp_path / "d", version="9.9.9")
    assert d.build_id != c.build_id


def test_compile_error_names_file_and_line(tmp_path):
    src = make_tree(tmp_path / "fw", {**SMALL_TREE, "games/bad.py": "x = 1\n\ndef f(:\n    pass\n"})
    with pytest.raises(hb.BuildError) as err:
        hb.build(src=src, out=tmp_path / "out")
    assert str(err.value).startswith("games/bad.py:3: SyntaxError")
    assert not (tmp_path / "out").exists()


def test_compile_error_in_main_py_is_caught_too(tmp_path):
    src = make_tree(tmp_path / "fw", {**SMALL_TREE, "main.py": "import x\nreturn 5\n"})
    with pytest.raises(hb.BuildError, match=r"^main.py:2: SyntaxError"):
        hb.build(src=src, out=tmp_path / "out")


def test_compile_error_exits_non_zero(tmp_path, capsys):
    src = make_tree(tmp_path / "fw", {"games/bad.py": "def f(:\n"})
    assert hb.main(["--src", str(src), "--out", str(tmp_path / "out")]) == 1
    assert "games/bad.py:1" in capsys.readouterr().err


def test_json_data_is_minified_with_sizes_and_hashes_of_what_ships(tmp_path):
    text = '{\n  "z": [1, 2.5, {"b": true, "a": null}],\n  "name": "Café \\u00e9t\\u00e9",\n  "n": -3\n}\n'
    src = make_tree(tmp_path / "fw", {**SMALL_TREE, "data/layout.json": text})
    res = hb.build(src=src, out=tmp_path / "out")
    shipped = (res.out_dir / "data/layout.json").read_bytes()
    assert shipped == '{"z":[1,2.5,{"b":true,"a":null}],"name":"Café été","n":-3}'.encode()
    assert json.loads(shipped) == json.loads(text)
    assert list(json.loads(shipped)) == ["z", "name", "n"]            # key order kept
    f = res.by_path()["data/layout.json"]
    assert f.kind == "json" and f.size == len(shipped) < len(text.encode())
    assert f.sha256 == hashlib.sha256(shipped).hexdigest()
    manifest = hb.load_manifest(res.manifest_path)
    assert {"path": "data/layout.json", "size": len(shipped), "sha256": f.sha256} in manifest["files"]
    assert res.total == sum(x.size for x in res.files) + res.manifest_size


def test_broken_json_names_the_file(tmp_path):
    src = make_tree(tmp_path / "fw", {**SMALL_TREE, "data/oops.json": '{"a": 1,\n "b": }\n'})
    with pytest.raises(hb.BuildError, match=r"^data/oops.json:2: invalid JSON"):
        hb.build(src=src, out=tmp_path / "out")


def test_failed_build_keeps_the_previous_output(tmp_path):
    src = make_tree(tmp_path / "fw", SMALL_TREE)
    good = hb.build(src=src, out=tmp_path / "out")
    (src / "rules/rng.py").write_text("def (\n")
    with pytest.raises(hb.BuildError):
        hb.build(src=src, out=tmp_path / "out")
    assert json.loads((tmp_path / "out/manifest.json").read_text())["build"] == good.build_id
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fw", "out"]


def test_refuses_to_clear_a_foreign_folder(tmp_path):
    src = make_tree(tmp_path / "fw", SMALL_TREE)
    (tmp_path / "out").mkdir()
    (tmp_path / "out/precious.txt").write_text("keep me")
    with pytest.raises(hb.BuildError, match="not a hauntbox build"):
        hb.build(src=src, out=tmp_path / "out")
    assert (tmp_path / "out/precious.txt").read_text() == "keep me"


def test_game_choice_goes_into_build_json(tmp_path):
    # --game takes the games of the tree's registry, never its module names.
    registry = 'GAMES = {"loop-game": "games.loop"}\n'
    src = make_tree(tmp_path / "fw", {**SMALL_TREE, "games/registry.py": registry})
    res = hb.build(src=src, out=tmp_path / "out", game="loop-game")
    info = json.loads((res.out_dir / "data/build.json").read_text())
    assert info == {"build": res.build_id, "version": __version__, "game": "loop-game"}
    with pytest.raises(hb.BuildError, match=r"unknown game 'nope' \(games: loop-game\)"):
        hb.build(src=src, out=tmp_path / "out", game="nope")
    with pytest.raises(hb.BuildError, match="unknown game 'loop'"):
        hb.build(src=src, out=tmp_path / "out", game="loop")     # a module, not a game


def test_generated_build_json_may_not_exist_in_the_source(tmp_path):
    src = make_tree(tmp_path / "fw", {**SMALL_TREE, "data/build.json": "{}"})
    with pytest.raises(hb.BuildError, match="generated"):
        hb.build(src=src, out=tmp_path / "out")


@pytest.mark.parametrize(
    "head, problem",
    [
        (b"C\x06\x00\x1f", "not an .mpy"),
        (b"M\x05\x00\x1f", "major version 5"),
        (b"M\x06\x00\x1e", "small-int bits 30"),
        (b"M\x06\x12\x1f", "sub-version 2"),
        (b"M\x06\x1b\x1f", "arch 6"),
    ],
)
def test_header_check_rejects(head, problem):
    with pytest.raises(hb.BuildError, match=problem):
        hb.check_mpy_header(head + b"\x00" * 8, "x.mpy")


def test_header_check_rejects_a_truncated_file():
    with pytest.raises(hb.BuildError, match="not an .mpy"):
        hb.check_mpy_header(b"M\x06", "x.mpy")


def test_header_check_accepts_bytecode_and_armv6m_native():
    hb.check_mpy_header(b"M\x06\x00\x1f....", "a.mpy")
    hb.check_mpy_header(b"M\x06\x13\x1f....", "b.mpy")


def test_native_functions_compile_for_armv6m(tmp_path):
    src = make_tree(
        tmp_path / "fw",
        {
            "drivers/fast.py": "import micropython\n@micropython.native\ndef f(x):\n    return x + 1\n"
        },
    )
    res = hb.build(src=src, out=tmp_path / "out")
    assert (res.out_dir / "drivers/fast.mpy").read_bytes()[:4] == b"M\x06\x13\x1f"


def test_listing_sums_to_the_total(real_build):
    lines = hb.format_listing(real_build)
    sizes = [int(ln.split()[-2]) for ln in lines if ln.startswith("  ") and ln.endswith(" B")]
    assert sum(sizes) == real_build.total
    assert f"total: {real_build.total} B" in "\n".join(lines)
    assert any(ln.startswith("budget:") and "262144" in ln for ln in lines)


def test_module_runs_as_a_script(tmp_path):
    src = make_tree(tmp_path / "fw", SMALL_TREE)
    cp = subprocess.run(
        [sys.executable, "-m", "hauntbox_fw.build", "--src", str(src), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SUBPROC_ENV_PATH, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert cp.returncode == 0, cp.stderr
    assert "games/loop.mpy" in cp.stdout and "total:" in cp.stdout


def test_line_numbers_are_left_out_unless_asked_for(tmp_path):
    # Default builds use -O3 (no line-number tables: less heap on the Pico);
    # --line-numbers keeps them. The traceback from the MicroPython VM shows it.
    from hauntbox_sim.vm import mpvm
    src = make_tree(tmp_path / "src", {
        "games/__init__.py": "",
        "games/oops.py": "X = 1\n\n\ndef boom():\n    raise ValueError('boom')\n",
    })
    lean = hb.build(src=src, out=tmp_path / "lean")
    full = hb.build(src=src, out=tmp_path / "full", line_numbers=True)
    size = {r.path: r.size for r in lean.files}["games/oops.mpy"]
    assert size < {r.path: r.size for r in full.files}["games/oops.mpy"]
    if not mpvm.vm_available():
        pytest.skip("MicroPython VM not installed (make deps)")
    # Lean tracebacks name the module (interned anyway), full ones the file.
    for res, where in ((lean, 'File "games.oops", line 1,'), (full, 'File "games/oops.py", line 5,')):
        with pytest.raises(mpvm.MicroPythonError) as e:
            mpvm.run_micropython("import games.oops\ngames.oops.boom()\n", firmware=res.out_dir)
        assert where in str(e.value)
