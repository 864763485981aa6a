"""Fake `rp2` module: only what the firmware touches."""

_bootsel = 0


def bootsel_button() -> int:
    return _bootsel


def sim_set_bootsel(pressed: bool) -> None:
    global _bootsel
    _bootsel = 1 if pressed else 0
