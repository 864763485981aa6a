# Runs in the MicroPython VM on the lean /lib stand-ins (sim/vm/lib/machine.py,
# neopixel.py) and on CPython on the simulator's fakes (sim/fakes/): the same
# calls must give the same transcript (tests/sim/vm/test_vm_lib_parity.py).
# `drive(pin, level)` is how the outside world sets an input: Pin.drive() on
# the lean stand-in, Pin.sim_drive() on the fake. The scope is what the VM
# runs use: inputs with pull-ups, IRQs on both edges, on falling edges only and
# on rising edges only, PWM frequency and pulse
# width, the NeoPixel buffer (GRB order), writes, an empty I2C bus, and
# asyncio.ThreadSafeFlag with one waiter (/lib/tsf_shim.py in the VM, the fake
# in sim/fakes/install.py on CPython; the rp2 port wakes only the last waiter,
# which the fake models and the VM runs never need).
import asyncio
import json

import machine
import neopixel


async def flag_steps():
    f = asyncio.ThreadSafeFlag()
    got = []
    f.set()
    await f.wait()                      # set before the wait: returns at once
    got.append("returned")
    woke = []

    async def waiter():
        await f.wait()
        woke.append(1)

    t = asyncio.create_task(waiter())
    for _ in range(3):
        await asyncio.sleep(0)
    got.append(len(woke))               # nothing set: still waiting
    f.set()
    for _ in range(3):
        await asyncio.sleep(0)
    got.append(len(woke))               # woken once, and the flag cleared itself
    f.set()
    f.clear()
    t = asyncio.create_task(waiter())
    for _ in range(3):
        await asyncio.sleep(0)
    got.append(len(woke))               # cleared before the wait: not woken
    t.cancel()
    return got


def run_coro(coro):
    if hasattr(asyncio, "run"):
        return asyncio.run(coro)
    # The pyscript VM has no asyncio.run, and its loop runs on JavaScript timers
    # that do not fire while a script runs: turn it by hand (as bench_common does).
    from asyncio import core
    box = []

    async def keep():
        box.append(await coro)

    asyncio.create_task(keep())
    for _ in range(1000):
        if box:
            break
        core._run_iter()
    return box[0]


def run(drive):
    out = []
    seen = []
    p = machine.Pin(6, machine.Pin.IN, machine.Pin.PULL_UP)
    out.append(["pull-up level", p.value()])
    p.irq(handler=lambda q: seen.append(q.value()),
          trigger=machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
    for level in (0, 0, 1, 1, 0, 1):
        drive(p, level)
    out.append(["irq on each change", seen, p.value()])
    # One edge only: a handler asked for falling (or rising) edges runs on
    # those and not on the others, as on the rp2 port.
    for name, trigger in (("irq falling only", machine.Pin.IRQ_FALLING),
                          ("irq rising only", machine.Pin.IRQ_RISING)):
        q = machine.Pin(7 if trigger == machine.Pin.IRQ_FALLING else 8, machine.Pin.IN,
                        machine.Pin.PULL_UP)
        edges = []
        q.irq(handler=lambda r, e=edges: e.append(r.value()), trigger=trigger, hard=True)
        for level in (0, 0, 1, 1, 0, 1, 0):
            drive(q, level)
        out.append([name, edges, q.value()])

    pwm = machine.PWM(machine.Pin(15), freq=50, duty_ns=0)
    pwm.duty_ns(1500000)
    out.append(["pwm", pwm.freq(), pwm.duty_ns()])
    pwm.duty_ns(1000000)
    out.append(["pwm again", pwm.freq(), pwm.duty_ns()])

    np = neopixel.NeoPixel(machine.Pin(16), 4)
    np[0] = (10, 20, 30)
    np[3] = (1, 2, 3)
    out.append(["neopixel", len(np), list(np.buf), list(np[0]), list(np[3]), list(np[1])])
    np.fill((5, 6, 7))
    np.write()
    np.write()
    out.append(["neopixel fill", list(np.buf), np.writes])

    out.append(["empty bus", machine.I2C(0).scan()])
    out.append(["thread-safe flag", run_coro(flag_steps())])
    return out


def main():
    import tsf_shim  # noqa: F401  (asyncio.ThreadSafeFlag for the pyscript VM)
    print(json.dumps(run(lambda pin, level: pin.drive(level))))
