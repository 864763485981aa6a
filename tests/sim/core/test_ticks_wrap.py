"""Issue 17, defect 9: ticks_us wraps at 2**30 us on the rp2 port (about 17.9
minutes) and ticks_diff is right only for times less than 2**29 us (about 8.9
minutes) apart. A time stamp the firmware keeps across a long break (the table's
last activity, a line's last edge, a beam's start) must not read as the future
afterwards. Each test idles the simulated board across three full wraps of
ticks_us and more (about 64 minutes of virtual time, the board running all along) in the
middle of a game, then checks the game plays on as without the break."""
import collections

from hauntbox_sim.core import runtime
from hauntbox_sim.core.clock import TICKS_PERIOD_MS

# Three wraps and 0.6 of a fourth (about 64 minutes): a whole number of wraps
# would hide the bug (a stamp exactly one period old reads as new again); 0.6
# of a period reads as 0.4 of a period in the future.
BREAK_US = 3 * TICKS_PERIOD_MS + TICKS_PERIOD_MS * 6 // 10


def test_the_fake_clock_wraps_ticks_like_the_rp2_port(clock):
    clock.advance_to(TICKS_PERIOD_MS - 5)
    a = clock.ticks_us()
    clock.advance_to(TICKS_PERIOD_MS + 5)
    b = clock.ticks_us()
    assert a == 2**30 - 5 and b == 5 and clock.ticks_diff(b, a) == 10
    # Half a period apart and more: ticks_diff reads the past as the future.
    assert clock.ticks_diff(clock.ticks_add(a, 2**29 + 1), a) < 0


def _haunted(break_us):
    from hauntbox_sim.boards.haunted import HauntedSim

    s = HauntedSim(players=2, seed=1)
    before = collections.Counter()
    after = collections.Counter()
    launches = [0]

    def sink(ev):
        if ev[0] == "prompt" and ev[1] == "launch" and ev[4] == 0:
            launches[0] += 1
            if launches[0] == 3 and break_us:
                # The players take a break before the third launch.
                s.table.chores_until = runtime.clock().now_us + break_us
        if ev[0] == "window" and ev[1] == "closed":
            (after if launches[0] >= 3 else before)[ev[2]] += 1
    s.app.bus.subscribe(sink)
    s.run()
    return s, s.sim_seconds(), before, after


def test_haunted_house_turn_windows_close_on_quiet_after_a_long_break():
    """Boxtop Pinball: Haunted House, a turn ends when the table is quiet: after
    the break the windows close on quiet exactly as in the same game without a
    break (before the fix 13 of 33 turns after a 10-minute break ran to the 30 s
    timeout)."""
    _, t0, before0, after0 = _haunted(0)
    s, t, before, after = _haunted(BREAK_US)
    assert t - t0 >= BREAK_US / 1e6 - 60 and t > 64 * 60
    assert after["timeout"] == 0 and after == after0 and before == before0
    assert s.controller.game.is_over() and s.report().ok


def test_roller_ghoster_plays_normally_after_a_long_break():
    from hauntbox_sim.boards.roller import RollerSim

    s = RollerSim(players=3, seed=4)
    rolls = [0]
    think = s.people.think_ms

    def before_people(ev):
        # Subscribed ahead of the players: the fifth roll waits for the break.
        if ev[0] == "prompt" and ev[1] == "roll" and ev[4] == 0:
            rolls[0] += 1
            if rolls[0] == 5:
                s.people.think_ms = (BREAK_US // 1000, BREAK_US // 1000)
            else:
                s.people.think_ms = think
    s.app.bus.sinks.insert(0, before_people)
    events = []
    s.app.bus.subscribe(events.append)
    winner = s.run()
    assert winner is not None and s.app.controller.game.is_over()
    assert s.sim_seconds() > 64 * 60
    assert not [e for e in events if e[0] == "fault"]
    balls = sum(sum(e[1]) for e in events if e[0] == "rotated")
    assert balls == len(s.tower.released) > 5


def test_a_switch_left_unsettled_before_a_break_settles_at_once_after_it(clock):
    """The notch switch bounced once more after the tower's last turn (nobody
    looks at it between turns). At the next turn, after a break of 0.6 of a wrap,
    its level must count as settled: before, the debouncer waited up to 2**29 us
    (the tower's notch timeout ran out first: a jam)."""
    from machine import Pin
    from drivers.debounce import DebouncedInput
    from drivers.edges import EdgeRecorder
    pin = Pin(7, Pin.IN, Pin.PULL_UP)
    sw = DebouncedInput(EdgeRecorder(pin, 16), 0, 5)
    pin.sim_drive(0)
    clock.advance_ms(20)
    sw.update()
    assert sw.active()
    pin.sim_drive(None)            # one bounce open ...
    sw.update()                    # ... read at once, not settled yet
    clock.advance_to(clock.now_us + TICKS_PERIOD_MS * 6 // 10)
    assert sw.settle_wait_ms() <= 1
    sw.update()
    assert not sw.active()
