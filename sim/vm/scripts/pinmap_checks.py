# Runs in the MicroPython VM (tests/host/test_pinmap_boot.py): the firmware's
# pin-map check (pinmap_check.py) on every (build, map) pair of main(maps),
# one JSON line of problems each, for the CPython side to compare.
import json

import pinmap_check


def main(maps):
    for build, m in maps:
        print(json.dumps(pinmap_check.check(m, build)))
