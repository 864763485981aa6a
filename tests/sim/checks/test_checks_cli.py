"""`python -m hauntbox_sim.checks.accuracy`: the accuracy checks run, with and without a host on the
serial link, report PASS with exit 0, and refuse nonsense arguments with exit 2."""
from hauntbox_sim.checks.accuracy import main


def test_beams_with_a_host_polling(capsys):
    assert main(["beams", "--rotations", "40", "--no-load", "--host"]) == 0
    out = capsys.readouterr().out
    assert "host polling the serial link" in out
    assert "RESULT: PASS (0 missed, 0 phantom, 0 wrong turn)" in out


def test_beams_under_load_by_default(capsys):
    assert main(["beams", "--rotations", "40"]) == 0
    out = capsys.readouterr().out
    assert "a frame every 50 ms, host polling the serial link, saves blocking 25 ms" in out
    assert "RESULT: PASS (0 missed, 0 phantom, 0 wrong turn)" in out


def test_hits_with_a_host_polling(capsys):
    assert main(["hits", "--launches", "60", "--players", "2", "--no-load", "--host"]) == 0
    out = capsys.readouterr().out
    assert "host polling the serial link" in out
    assert "RESULT: PASS (0 missed, 0 phantom, 0 wrong player)" in out


def test_hits_with_saves_that_take_time(capsys):
    assert main(["hits", "--launches", "60", "--players", "2", "--flash-ms", "25"]) == 0
    out = capsys.readouterr().out
    assert "saves blocking 25 ms" in out and "RESULT: PASS" in out


def test_bad_counts_are_refused(capsys):
    assert main(["beams", "--rotations", "0"]) == 2
    assert main(["hits", "--launches", "0"]) == 2
    assert main(["hits", "--flash-ms", "-1"]) == 2
    assert main(["beams", "--sweep", "--pico"]) == 2
    assert main(["hits", "--sweep", "--param", "no such thing"]) == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_a_short_sweep_prints_its_table_and_draws_it(tmp_path, capsys):
    from hauntbox_sim.checks import sweep as checks_sweep
    assert checks_sweep.run("beams", 8, 1, out_dir=tmp_path, params=["clear beam"]) == 0
    out = capsys.readouterr().out
    assert "| clear beam between two balls | 40 |" in out and "RESULT: PASS" in out
    png = (tmp_path / "sweep-beams.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert "| parameter | value | balls | missed |" in (tmp_path / "sweep-beams.md").read_text()
