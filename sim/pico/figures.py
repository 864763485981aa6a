"""`python -m hauntbox_sim.pico.figures`: what the emulated Pico costs and shows, measured.

Prints: boot from blank flash to the REPL (wall and emulated time; the first
boot formats the filesystem), `gc.mem_free()` at the REPL, the emulated speed
on a CPU-bound loop, boot of the flashed firmware to the game's `hello`
answer, and with `--flash` how long a full `hauntbox flash` of a blank board
takes over the pty (about two minutes).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hauntbox_sim.pico.emulator import Pico


def repl(p: Pico, line: str, timeout_ms: float = 60_000) -> str:
    return p.repl(line, timeout_ms)


def blank_boot() -> dict:
    t0 = time.monotonic()
    p = Pico()
    p.run_for(50)                     # USB enumerates at ~14 ms
    p.write(b"\r\n")
    p.run_until_output(b">>> ")
    fig = {"repl_wall_s": time.monotonic() - t0, "repl_emulated_ms": p.t_ns / 1e6}
    fig["mem_free"] = int(repl(p, "import gc; gc.collect(); print(gc.mem_free())"))
    fig["freq"] = int(repl(p, "import machine; print(machine.freq())"))
    c0, w0, e0 = p.cycles, time.monotonic(), p.t_ns
    ms = int(repl(p, "exec('import time\\nt = time.ticks_ms()\\nx = 0\\nfor i in range(100000):\\n"
                     " x += i\\nprint(time.ticks_diff(time.ticks_ms(), t))')"))
    wall = time.monotonic() - w0
    fig["loop_emulated_ms"] = ms
    fig["loop_speed_x"] = (p.t_ns - e0) / 1e9 / wall
    fig["cycles_per_s"] = (p.cycles - c0) / wall
    p.close()
    return fig


def game_boot() -> dict:
    from hauntbox_sim.pico.session import RollerPico
    t0 = time.monotonic()
    with RollerPico(players=2, seed=1, noise="none") as s:
        t1 = time.monotonic()
        s.connect()
        return {"hello_emulated_s": s.board.now_us / 1e6, "hello_wall_s": time.monotonic() - t1,
                "start_wall_s": t1 - t0}


def full_flash() -> dict:
    root = Path(__file__).resolve().parents[2]
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as d:
        link = d + "/pico"
        proc = subprocess.Popen([str(bin_dir / "hauntbox"), "sim", "--pico", "--pty", "--blank",
                                 "--quiet", "--link", link], stdout=subprocess.PIPE, text=True,
                                cwd=root)
        try:
            for _ in range(3):
                assert proc.stdout is not None
                proc.stdout.readline()
            t0 = time.monotonic()
            r = subprocess.run([str(bin_dir / "hauntbox"), "flash", "--port", link,
                                "--boot-timeout", "60"], capture_output=True, text=True, cwd=root)
            wall = time.monotonic() - t0
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    m = re.search(r"(\d+) copied", r.stdout)
    return {"flash_ok": r.returncode == 0, "flash_wall_s": wall,
            "flash_files": int(m.group(1)) if m else 0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hauntbox_sim.pico.figures", description=__doc__)
    ap.add_argument("--flash", action="store_true", help="also time a full hauntbox flash (~2 min)")
    a = ap.parse_args(argv)
    b = blank_boot()
    print(f"boot, blank flash, to the REPL: {b['repl_wall_s']:.2f} s wall "
          f"({b['repl_emulated_ms']:.0f} ms emulated, filesystem formatted)")
    print(f"gc.mem_free() at the REPL: {b['mem_free']} B; machine.freq() {b['freq'] // 1_000_000} MHz")
    print(f"CPU-bound loop (100,000 additions, {b['loop_emulated_ms']} ms on the chip): "
          f"{b['loop_speed_x']:.2f}x real time, {b['cycles_per_s'] / 1e6:.1f} M cycles/s")
    g = game_boot()
    print(f"boot of the flashed firmware to the game's hello: {g['hello_wall_s']:.1f} s wall "
          f"({g['hello_emulated_s']:.2f} s emulated; +{g['start_wall_s']:.1f} s to build the image "
          f"and start the emulator)")
    if a.flash:
        f = full_flash()
        print(f"full hauntbox flash of a blank board over the pty: {f['flash_files']} files in "
              f"{f['flash_wall_s']:.0f} s wall ({'verified' if f['flash_ok'] else 'FAILED'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
