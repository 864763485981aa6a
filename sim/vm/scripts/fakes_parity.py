# Runs in the MicroPython VM on the lean /lib stand-ins (sim/vm/lib/machine.py,
# neopixel.py) and on CPython on the simulator's fakes (sim/fakes/): the same
# calls must give the same transcript (tests/sim/vm/test_vm_lib_parity.py).
# `drive(pin, level)` is how the outside world sets an input: Pin.drive() on
# the lean stand-in, Pin.sim_drive() on the fake. The scope is what the VM
# runs use: inputs with pull-ups and both-edge IRQs, PWM frequency and pulse
# width, the NeoPixel buffer (GRB order), writes, an empty I2C bus.
import json

import machine
import neopixel


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
    return out


def main():
    print(json.dumps(run(lambda pin, level: pin.drive(level))))
