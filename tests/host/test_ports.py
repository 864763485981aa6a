"""Finding a Pico among the serial ports (fake list_ports, no hardware)."""

from types import SimpleNamespace

import pytest

from hauntbox import ports


def fake_port(device, vid=None, pid=None, serial_number=None, description="n/a"):
    return SimpleNamespace(
        device=device, vid=vid, pid=pid, serial_number=serial_number, description=description
    )


@pytest.fixture
def comports(monkeypatch):
    listed = []
    monkeypatch.setattr(ports.list_ports, "comports", lambda: list(listed))
    return listed


def test_single_pico_is_picked(comports):
    comports += [
        fake_port("/dev/ttyS0"),
        fake_port("/dev/ttyUSB0", vid=0x10C4, pid=0xEA60, description="CP2102"),
        fake_port("/dev/ttyACM0", vid=0x2E8A, pid=0x0005, serial_number="E66118"),
    ]
    assert ports.find_pico() == "/dev/ttyACM0"
    assert ports.resolve_port("auto") == "/dev/ttyACM0"
    assert ports.resolve_port(None) == "/dev/ttyACM0"


def test_no_pico_gives_the_plain_hint(comports):
    comports += [fake_port("/dev/ttyUSB0", vid=0x0403, pid=0x6001)]
    with pytest.raises(ports.PortError) as err:
        ports.find_pico()
    assert str(err.value) == (
        "no Pico found: is it plugged in and running MicroPython? try --port /dev/ttyACM0"
    )


def test_several_picos_are_listed(comports):
    comports += [
        fake_port("/dev/ttyACM1", vid=0x2E8A, pid=0x0005, serial_number="BBBB"),
        fake_port("/dev/ttyACM0", vid=0x2E8A, pid=0x0005, serial_number="AAAA"),
    ]
    with pytest.raises(ports.PortError) as err:
        ports.resolve_port("auto")
    msg = str(err.value)
    assert "several Picos" in msg and "--port" in msg
    assert "/dev/ttyACM0 (serial AAAA" in msg and "/dev/ttyACM1 (serial BBBB" in msg
    assert msg.index("/dev/ttyACM0") < msg.index("/dev/ttyACM1")


def test_debug_probe_is_not_a_board(comports):
    comports += [
        fake_port("/dev/ttyACM0", vid=0x2E8A, pid=0x000C, description="Debug Probe"),
        fake_port("/dev/ttyACM1", vid=0x2E8A, pid=0x0005),
    ]
    assert ports.find_pico() == "/dev/ttyACM1"
    assert [p.device for p in ports.list_picos()] == ["/dev/ttyACM1"]


def test_explicit_port_is_used_without_looking(monkeypatch):
    def boom():
        raise AssertionError("list_ports must not be called for an explicit port")

    monkeypatch.setattr(ports.list_ports, "comports", boom)
    assert ports.resolve_port("/dev/ttyACM3") == "/dev/ttyACM3"
    assert ports.resolve_port("COM7") == "COM7"
