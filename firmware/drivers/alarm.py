# A timed wake for a task that waits on an asyncio.ThreadSafeFlag: a one-shot
# machine.Timer sets the flag when the time is up, so the task waits with
# `await flag.wait()` for "an edge or a timeout" in one.
#
# Why not asyncio.wait_for_ms(flag.wait(), ms): on the rp2 port it builds two
# tasks, a closure and a cancellation on every call, 663 B a wake, and the
# wake comes about 3.1 ms after a 2 ms timeout. Re-arming a Timer allocates
# nothing, and the whole wake (arm, wait, resume) is ~100 B and comes 0.22 ms
# after the period (measured on the emulated Pico, MicroPython v1.28.0; docs/performance.md,
# "Haunted House, third pass").
#
# The timer is hard (its callback runs in the interrupt, not through the
# scheduler's queue, where a full queue would drop it and leave the task
# asleep); ThreadSafeFlag.set is made for that, and the callback is bound
# once so that the interrupt allocates nothing.

from machine import Timer


class Alarm:
    def __init__(self, flag):
        self.flag = flag
        self._timer = Timer(-1)     # -1: the port's virtual timer (the only kind on rp2)
        self._ring = self._fire

    def _fire(self, timer):
        self.flag.set()

    def arm_us(self, us):
        # Sets the flag us from now (at least 1); replaces an alarm still
        # pending. tick_hz=1_000_000: the period in microseconds (rp2), so a
        # decision due in 4.8 ms is not rounded up to 5.
        # (The rp2 stubs' overloads never pair period with tick_hz; the port
        # takes both: tests/sim/pico/test_fakes_match_port.py.)
        self._timer.init(mode=Timer.ONE_SHOT, period=us if us > 0 else 1,  # type: ignore[call-overload]
                         tick_hz=1000000, callback=self._ring, hard=True)

    def cancel(self):
        self._timer.deinit()
