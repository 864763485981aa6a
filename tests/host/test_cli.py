"""The `hauntbox` command: help for every subcommand, delegation, missing modules."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hauntbox import cli


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_top_level_help_lists_every_subcommand(capsys):
    rc, out, _ = run(capsys, "--help")
    assert rc == 0 and out.startswith("usage: hauntbox")
    for name in ("flash", "console", "monitor", "sim", "pins", "check", "stats", "play"):
        assert f"    {name} " in out, name
    rc, out, _ = run(capsys)
    assert rc == 2 and "usage: hauntbox" in out


def test_version(capsys):
    rc, out, _ = run(capsys, "--version")
    assert rc == 0 and out.strip() == "hauntbox 0.1.0"


@pytest.mark.parametrize("argv, usage", [
    (["flash", "--help"], "usage: hauntbox flash"),
    (["console", "--help"], "usage: hauntbox console"),
    (["monitor", "--help"], "usage: hauntbox monitor"),
    (["sim", "--help"], "usage: hauntbox sim"),
    (["sim", "--pty", "--help"], "usage: hauntbox sim --pty"),
    (["check", "--help"], "usage: hauntbox check"),
])
def test_each_subcommand_has_help(capsys, argv, usage):
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    assert out.startswith(usage), out[:200]


def test_console_and_monitor_help_name_their_options(capsys):
    _, out, _ = run(capsys, "console", "--help")
    assert "--port" in out and "sim" in out and "--plain" in out
    _, out, _ = run(capsys, "monitor", "--help")
    assert "--port" in out and "--json" in out
    _, out, _ = run(capsys, "sim", "--help")
    assert "--pty" in out  # the note about the pty board
    _, out, _ = run(capsys, "sim", "--pty", "--help")
    for opt in ("--bots", "--seed", "--game", "--link", "--fast"):
        assert opt in out


@pytest.mark.parametrize("cmd", ["pins", "stats", "play"])
def test_optional_subcommands_help_or_say_unavailable(capsys, cmd):
    argv = [cmd, "--help"] if cmd == "pins" else [cmd, "beetlejuice", "--help"]
    rc, out, err = run(capsys, *argv)
    if rc == 2:
        assert "not available in this installation" in err
    else:
        assert rc == 0 and "usage:" in out
    rc, out, _ = run(capsys, *argv[:1], "--help") if cmd != "pins" else (0, "usage:", "")
    assert rc == 0 and "usage:" in out


@pytest.mark.parametrize("cmd", ["stats", "play"])
def test_per_game_subcommands_need_a_known_game(capsys, cmd):
    rc, out, _ = run(capsys, cmd)
    assert rc == 2 and "beetlejuice" in out and "superskill" in out
    rc, _, err = run(capsys, cmd, "monopoly")
    assert rc == 2 and "unknown game 'monopoly'" in err


def test_missing_optional_module_gives_a_clear_message(capsys, monkeypatch):
    monkeypatch.setitem(cli.DELEGATES, "pins", ("hauntbox.no_such_pinmap", "pin maps"))
    rc, out, err = run(capsys, "pins", "--help")
    assert rc == 2 and out == ""
    assert err.strip() == ("hauntbox pins: not available in this installation "
                           "(module hauntbox.no_such_pinmap is not installed)")
    monkeypatch.setitem(cli.PER_GAME, "stats", ("hauntbox.no_stats_{game}", "x",
                                                ("beetlejuice", "superskill")))
    rc, _, err = run(capsys, "stats", "superskill")
    assert rc == 2 and "hauntbox stats superskill: not available" in err
    # the other subcommands still work
    rc, out, _ = run(capsys, "monitor", "--help")
    assert rc == 0


def test_a_broken_dependency_inside_a_module_is_not_hidden(monkeypatch, tmp_path):
    (tmp_path / "hb_broken_mod.py").write_text("import no_such_dependency_xyz\n"
                                               "def main(argv):\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        cli.load_main("hb_broken_mod")
    (tmp_path / "hb_no_main.py").write_text("X = 1\n")
    with pytest.raises(cli.Unavailable, match="has no main"):
        cli.load_main("hb_no_main")


def test_unknown_command(capsys):
    rc, _, err = run(capsys, "frobnicate")
    assert rc == 2 and "unknown command 'frobnicate'" in err


def test_flash_dry_run(capsys, monkeypatch, tmp_path):
    from hauntbox import flash
    from hauntbox_fw import build

    monkeypatch.setattr(build, "BUILD_DIR", tmp_path / "firmware")

    def no_device(*a, **k):
        raise AssertionError("a dry run touched a device")
    monkeypatch.setattr(flash, "flash", no_device)
    rc, out, err = run(capsys, "flash", "--dry-run")
    assert rc == 0, err
    assert "dry run: no device touched" in out
    assert "protocol.mpy" in out and "games/link.mpy" in out and "main.py" in out
    assert (tmp_path / "firmware" / "protocol.mpy").is_file()


def test_flash_errors_are_reported(capsys, monkeypatch):
    from hauntbox_fw import build

    def broken(**kw):
        raise build.BuildError("build failed: games/x.py:1: SyntaxError")
    monkeypatch.setattr(build, "build", broken)
    rc, _, err = run(capsys, "flash", "--dry-run")
    assert rc == 1 and err.strip() == "error: build failed: games/x.py:1: SyntaxError"


def test_sim_delegates_to_the_simulator(capsys):
    rc, out, _ = run(capsys, "sim", "--quiet", "--players", "2", "--seed", "3", "--noise", "none")
    assert rc == 0 and out.startswith("Winner: ")
    rc, _, err = run(capsys, "sim", "--players", "9", "--quiet")
    assert rc == 2 and "--players must be 2..4" in err


def test_console_and_monitor_report_a_missing_port(capsys):
    # Said once, plainly (issue 20, item 7).
    rc, _, err = run(capsys, "monitor", "--port", "/nonexistent/tty-hauntbox")
    assert rc == 1 and "no such port /nonexistent/tty-hauntbox" in err
    assert err.count("/nonexistent/tty-hauntbox") == 1
    rc, _, err = run(capsys, "console", "--port", "/nonexistent/tty-hauntbox", "--plain")
    assert rc == 1 and "no such port /nonexistent/tty-hauntbox" in err
    assert err.count("/nonexistent/tty-hauntbox") == 1


def test_the_installed_entry_point():
    exe = Path(sys.executable).with_name("hauntbox")
    if not exe.exists():
        pytest.skip("hauntbox is not installed in this environment (pip install -e .)")
    p = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "console" in p.stdout and "monitor" in p.stdout
    p = subprocess.run([str(exe), "sim", "--pty", "--help"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and "--bots" in p.stdout
