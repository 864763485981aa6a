"""The emulated Pico boots the official firmware and fills in what rp2040js lacks.

Each gap listed in shared/pico/README.md has a test here that fails without
its fix in sim/pico/pico.mjs: flash writes (the filesystem formats and keeps
files), pad pulls (an undriven input reads its pull), the watchdog (it resets
the chip, keeping the flash), USB back-pressure (host bytes beyond 512 are not
dropped).
"""
import hashlib

import pytest

from hauntbox_sim.pico import emulator, fsimage
from hauntbox_sim.pico.emulator import Pico, PicoError
from tests.sim.pico.conftest import repl


def test_boots_blank_flash_to_the_repl_and_formats_the_filesystem(repl_pico):
    p = repl_pico
    assert repl(p, "import sys; print(sys.implementation._machine)") == \
        "Raspberry Pi Pico with RP2040"
    # The first boot formatted littlefs: 352 blocks of 4 KiB, 2 in use.
    fs = repl(p, "import os; print(os.statvfs('/')[:4])")
    assert fs == "(4096, 4096, 352, 350)"
    free = int(repl(p, "import gc; gc.collect(); print(gc.mem_free())"))
    assert 200_000 < free < 250_000


def test_flash_writes_reach_the_flash_image(repl_pico):
    # rp2040js drops flash programming; the runner applies the boot ROM's
    # erase and program routines to its flash image.
    # Rewriting a file many times makes littlefs erase and reprogram blocks
    # (NOR flash: a program can only clear bits, an erase sets them again).
    p = repl_pico
    repl(p, "exec(\"for i in range(40):\\n f = open('/kept.txt', 'w'); f.write('ghost %d ' % i * 50)"
            "; f.close()\")", timeout_ms=20000)
    files = fsimage.read_files(p.filesystem())
    assert files["/kept.txt"] == b"ghost 39 " * 50
    assert repl(p, "print(open('/kept.txt').read() == 'ghost 39 ' * 50)") == "True"


def test_a_host_made_image_mounts_and_its_files_read_back():
    # (What a board prints before the host opens the port is lost, as on USB.)
    img = fsimage.make_image({"/main.py": b"import time\ntime.sleep_ms(200)\n"
                                          b"print(open('/data/x.json').read())\n",
                              "/data/x.json": b'{"a": 1}'})
    with Pico(flash=img) as p:
        p.run_until_output(b'{"a": 1}', timeout_ms=3000)


def test_an_undriven_input_follows_its_pull(repl_pico):
    p = repl_pico
    repl(p, "from machine import Pin; a = Pin(5, Pin.IN, Pin.PULL_UP); b = Pin(6, Pin.IN, Pin.PULL_DOWN)")
    assert repl(p, "print(a.value(), b.value())") == "1 0"
    p.drive(5, 0)
    assert repl(p, "print(a.value())") == "0"
    p.drive(5, None)            # released: back to its pull-up
    assert repl(p, "print(a.value())") == "1"


def test_the_watchdog_resets_the_chip_and_the_flash_survives(repl_pico):
    p = repl_pico
    repl(p, "f = open('/before.txt', 'w'); f.write('x'); f.close()")
    boots = p.boots
    p.write(b"from machine import WDT; w = WDT(timeout=200)\r\n")
    p.run_for(1000)
    assert p.boots == boots + 1
    p.write(b"\r\n")
    p.run_until_output(b">>> ")
    assert repl(p, "import machine; print(machine.reset_cause() == machine.WDT_RESET)") == "True"
    assert repl(p, "import os; print('before.txt' in os.listdir('/'))") == "True"


def test_host_bytes_wait_for_the_board_instead_of_being_dropped(repl_pico):
    # rp2040js's own CDC helper keeps 512 bytes and drops the rest.
    p = repl_pico
    p.write(b"s = 0\r\n")
    line = b"s += 1; " * 40 + b"\r\n"          # 322 bytes a line
    for _ in range(10):
        p.write(line)
    p.run_for(3000)
    assert repl(p, "print(s)") == "400"


def test_the_vendored_image_is_checked_and_another_uf2_is_accepted(tmp_path):
    assert emulator.check_image(None) == emulator.UF2
    assert hashlib.sha256(emulator.UF2.read_bytes()).hexdigest() == emulator.UF2_SHA256
    bad = tmp_path / "not.uf2"
    bad.write_bytes(b"hello")
    with pytest.raises(PicoError, match="not a UF2 file"):
        emulator.check_image(bad)
    with pytest.raises(PicoError, match="no such UF2 file"):
        emulator.check_image(tmp_path / "missing.uf2")
    own = tmp_path / "own.uf2"
    own.write_bytes(emulator.UF2.read_bytes())
    assert emulator.check_image(own) == own
    assert emulator.firmware_identity(own) == ("v1.28.0", "Raspberry Pi Pico with RP2040")
