# Runs in the MicroPython VM (tests/sim/reliability/test_saves_crc.py): the
# firmware's save checksum (games/store.py) of main(data)'s argument, printed,
# for the CPython side to compare (a save sealed by one is read by the other).
from games.store import checksum


def main(data):
    print(checksum(data))
