"""The installable tool: `pip install .` (not editable) gives a `hauntbox` that works anywhere.

Builds the wheel from a copy of the tracked files, installs it into a fresh
venv and runs the README's commands from another directory, with the
checkout nowhere on the path. The runtime dependencies come from this
project's venv through a .pth line (appended after the new venv's own
site-packages, so the wheel's packages win), which keeps the test offline
and fast; the wheel itself is installed with --no-deps --no-index.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The wheel's top-level names: nothing generic (`sim`, `board`, `app`, ...).
TOP_LEVEL = {"hauntbox", "hauntbox_fw", "hauntbox_sim"}


def _tracked_copy(dst: Path) -> None:
    try:
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                               check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src, dist = tmp / "src", tmp / "dist"
    _tracked_copy(src)
    subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
                    "--no-index", "-q", "-w", str(dist)], cwd=src, check=True,
                   capture_output=True)
    wheel = next(dist.glob("hauntbox-*.whl"))
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "_hauntbox_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps",
                    "--no-index", "-q", str(wheel)], check=True, capture_output=True)
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(tmp / "home"),
           "XDG_CACHE_HOME": str(tmp / "cache")}
    return {"wheel": wheel, "bin": env_dir / "bin", "cwd": elsewhere, "env": env, "purelib": purelib}


def run(inst, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(inst["bin"] / "hauntbox"), *args], cwd=inst["cwd"], env=inst["env"],
                          capture_output=True, text=True, timeout=timeout)


def test_the_wheel_has_no_generic_top_level_names_and_carries_the_firmware(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == TOP_LEVEL
    assert "hauntbox_fw/_firmware/main.py" in names
    assert "hauntbox_fw/_firmware/data/roller-ghoster.json" in names
    assert "hauntbox_sim/vm/lib/mcp23017_model.py" in names


def test_installed_modules_come_from_the_venv_not_the_checkout(installed):
    py = installed["bin"] / "python"
    out = subprocess.run([str(py), "-c", "import hauntbox, hauntbox_sim, hauntbox_fw.paths as p;"
                          "print(hauntbox.__file__, hauntbox_sim.__file__, p.FIRMWARE_DIR, p.CHECKOUT)"],
                         cwd=installed["cwd"], env=installed["env"], capture_output=True, text=True,
                         check=True).stdout.split()
    assert all(o.startswith(installed["purelib"]) for o in out[:3]), out
    assert out[3] == "None"


def test_hauntbox_sim_plays_a_whole_game(installed):
    r = run(installed, "sim", "--seed", "2")
    assert r.returncode == 0, r.stderr
    assert "Winner:" in r.stdout


def test_hauntbox_flash_dry_run_builds_the_packaged_firmware(installed):
    r = run(installed, "flash", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "dry run: no device touched" in r.stdout
    assert "main" in r.stdout


def test_hauntbox_check_beams(installed):
    r = run(installed, "check", "beams", "--rotations", "50")
    assert r.returncode == 0, r.stderr
    assert "RESULT: PASS" in r.stdout


def test_firmware_is_first_on_the_path_even_with_blinka_installed(installed):
    # Adafruit-Blinka (via adafruit-circuitpython-pixelbuf) installs top-level `board`
    # and `micropython`; the simulator must import the firmware's.
    py = installed["bin"] / "python"
    code = ("from hauntbox_sim.fakes import install as i; from hauntbox_sim.core.clock import VirtualClock;"
            "i.install(VirtualClock()); import board, micropython;"
            "print(board.__file__); print(micropython.__name__, micropython.const(3))")
    r = subprocess.run([str(py), "-c", code], cwd=installed["cwd"], env=installed["env"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "/hauntbox_fw/_firmware/board.py" in r.stdout.splitlines()[0]



def test_the_other_offline_subcommands_work_installed(installed):
    r = run(installed, "pins")
    assert r.returncode == 0 and "0 with problems" in r.stdout, r.stdout + r.stderr
    r = run(installed, "stats", "beetlejuice", "--games", "20", "--quiet")
    assert r.returncode == 0 and "game length" in r.stdout, r.stdout + r.stderr
    r = run(installed, "check", "hits", "--launches", "20")
    assert r.returncode == 0 and "RESULT: PASS" in r.stdout, r.stdout + r.stderr
