# Runs in the MicroPython VM (tests/host/test_link_writer.py): the firmware's
# PollingWriter under a port that takes a random few bytes at a time; prints
# whether it flushed, whether what got out is what was not dropped, and how
# many lines it dropped.
import sys
sys.path.insert(0, "/fw")
from games.link_core import PollingWriter
got = bytearray()
room = [0]
def out(b):
    global got
    got += bytes(b)
    room[0] -= 1
def writable():
    return room[0] > 0
w = PollingWriter(out, writable, cap=300)
sent = bytearray()
seed = [7]
def rnd(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return seed[0] % n
for i in range(500):
    line = b'{"n":%d,"p":"' % i + b"x" * rnd(90) + b'"}\n'
    d = w.dropped
    w.write(line)
    if w.dropped == d:
        sent += line
    room[0] = (0, 0, 1, 3, 50)[rnd(5)]
    w.flush()
room[0] = 10**6
print(w.flush(), got == sent, w.dropped)
