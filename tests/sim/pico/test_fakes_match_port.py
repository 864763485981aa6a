"""The CPython fakes against the real rp2 port: the same MicroPython snippet runs
on the emulated Pico and on the fakes, with the same pin edges at the same
instants, and must give the same outcome.

Each case is one way the fakes used to be kinder than the port:
- interrupts are off while a NeoPixel chain is written (machine.bitstream):
  a rise and a fall on a pin inside that window reach the handler once;
- a hard IRQ handler that raises is disabled for good;
- a ThreadSafeFlag has one waiter: a second one takes its place, and the
  first is never woken;
- a one-shot Timer (drivers/alarm.py) counts its period in 1/tick_hz s, a
  new init() replaces the alarm still pending and deinit() cancels it.
"""
import asyncio

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.fakes import machine as fake_machine
from hauntbox_sim.pico.emulator import Pico
from tests.sim.pico.conftest import repl

MARK = 15          # an output the snippet raises just before the NeoPixel write
PIN = 5            # the input whose edges the snippet counts

NEOPIXEL_SNIPPET = (
    "from machine import Pin\n"
    "import neopixel\n"
    "n = bytearray(3)\n"
    "def h(pin):\n"
    "    n[0] += 1\n"
    "    n[1] = pin.value()\n"
    "p = Pin(5, Pin.IN, Pin.PULL_UP)\n"
    "p.irq(h, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)\n"
    "np = neopixel.NeoPixel(Pin(22, Pin.OUT), 100)\n"
    "mark = Pin(15, Pin.OUT, value=0)\n"
    "mark(1)\n"
    "np.write()\n"
)
RAISING_SNIPPET = (
    "from machine import Pin\n"
    "n = bytearray(1)\n"
    "def h(pin):\n"
    "    n[0] += 1\n"
    "    raise ValueError('in the handler')\n"
    "p = Pin(5, Pin.IN, Pin.PULL_UP)\n"
    "p.irq(h, Pin.IRQ_FALLING, hard=True)\n"
)
FLAG_SNIPPET = (
    "import asyncio\n"
    "woke = []\n"
    "f = asyncio.ThreadSafeFlag()\n"
    "async def w(k):\n"
    "    await f.wait()\n"
    "    woke.append(k)\n"
    "async def main():\n"
    "    t1 = asyncio.create_task(w(1))\n"
    "    t2 = asyncio.create_task(w(2))\n"
    "    await asyncio.sleep_ms(10)\n"
    "    f.set()\n"
    "    await asyncio.sleep_ms(10)\n"
    "    f.set()\n"
    "    await asyncio.sleep_ms(10)\n"
    "    t1.cancel()\n"
    "    t2.cancel()\n"
    "asyncio.run(main())\n"
)
ALARM_SNIPPET = (
    "import asyncio, time\n"
    "from machine import Timer\n"
    "woke = []\n"
    "f = asyncio.ThreadSafeFlag()\n"
    "tm = Timer(-1)\n"
    "def ring(t):\n"
    "    f.set()\n"
    "def arm(us):\n"
    "    tm.init(mode=Timer.ONE_SHOT, period=us, tick_hz=1000000, callback=ring, hard=True)\n"
    "async def waited(us):\n"
    "    t0 = time.ticks_us()\n"
    "    arm(us)\n"
    "    await f.wait()\n"
    "    woke.append(time.ticks_diff(time.ticks_us(), t0) // 1000)\n"
    "async def main():\n"
    "    arm(30000)\n"
    "    await waited(5500)\n"           # replaces the 30 ms alarm
    "    await asyncio.sleep_ms(40)\n"   # a 30 ms alarm left pending would set f here
    "    await waited(20000)\n"
    "    arm(5000)\n"
    "    tm.deinit()\n"
    "    await asyncio.sleep_ms(10)\n"   # the cancelled alarm would set f here
    "    await waited(12000)\n"
    "asyncio.run(main())\n"
)
# Edges relative to the mark: low at +0.5 ms, high again at +1.5 ms (inside
# the ~3 ms write of 100 LEDs).
EDGES_US = ((500, 0), (1500, None))


def on_port(snippet: str, edges_after_mark=(), edges=(), result: str = "") -> str:
    with Pico(output_pins=(MARK,)) as p:
        p.run_for(300)
        p.write(b"\r\n")
        p.run_until_output(b">>> ")
        p.write(b"\x05" + snippet.replace("\n", "\r\n").encode() + b"\x04")   # paste mode
        pending = list(edges_after_mark)
        end = p.t_ns + 2_000_000_000
        while p.t_ns < end:
            for e in p.advance(end):
                if e.kind == "out" and e.args == (MARK, 1):
                    t0 = e.t_ns
                    for dt, level in pending:
                        p.run_until(t0 + dt * 1000)
                        p.drive(PIN, level)
                    pending = []
            if b">>> " in p.read():
                break
        for dt, level in edges:
            p.run_for(dt / 1000)
            p.drive(PIN, level)
        p.run_for(20)
        return repl(p, result)


def on_fakes(snippet: str, edges_after_mark=(), edges=(), result: str = "") -> str:
    clock = sim_install.install()
    ns: dict = {}
    fake_machine.pin(PIN).sim_drive(None)

    def marked(pin, level):
        if level:
            for dt, lv in edges_after_mark:
                clock.at(clock.now_us + dt, lambda lv=lv: fake_machine.pin(PIN).sim_drive(lv))
    fake_machine.pin(MARK).observers.append(marked)
    if "asyncio.run" in snippet:
        snippet = snippet.replace("asyncio.run(main())", "")
        exec(snippet, ns)
        sim_install.run(ns["main"]())
    else:
        exec(snippet, ns)
    for dt, level in edges:
        clock.advance_to(clock.now_us + dt)
        fake_machine.pin(PIN).sim_drive(level)
    clock.advance_ms(20)
    runtime.irq_errors.clear()
    return repr(eval(result, ns))


def test_an_edge_pair_inside_a_neopixel_write_reaches_the_handler_once():
    port = on_port(NEOPIXEL_SNIPPET, EDGES_US, result="print(repr((n[0], n[1])))")
    fakes = on_fakes(NEOPIXEL_SNIPPET, EDGES_US, result="(n[0], n[1])")
    assert port == fakes == "(1, 1)"


def test_a_hard_irq_handler_that_raises_is_disabled():
    edges = ((1000, 0), (1000, None), (1000, 0), (1000, None))
    port = on_port(RAISING_SNIPPET, edges=edges, result="print(repr(n[0]))")
    fakes = on_fakes(RAISING_SNIPPET, edges=edges, result="n[0]")
    assert port == fakes == "1"


def test_a_thread_safe_flag_wakes_only_its_last_waiter():
    port = on_port(FLAG_SNIPPET, result="print(repr(woke))")
    fakes = on_fakes(FLAG_SNIPPET, result="woke")
    assert port == fakes == "[2]"           # the first waiter slept through both sets
    asyncio.set_event_loop(None)


def test_a_one_shot_timer_in_microseconds_is_replaced_by_init_and_cancelled_by_deinit():
    # The wake time in whole ms: the port adds ~0.22 ms of its own path to
    # each period (measured on the emulated Pico), the fakes none.
    port = on_port(ALARM_SNIPPET, result="print(repr(woke))")
    fakes = on_fakes(ALARM_SNIPPET, result="woke")
    assert port == fakes == "[5, 20, 12]"
    asyncio.set_event_loop(None)
