# Runs in the MicroPython VM (tests/sim/boards/test_notch_stop.py): the notch
# switch's hard IRQ stops the tower's servo (devices/tower.py) and allocates
# nothing doing it (run under micropython.heap_lock()). Prints the IRQ stops,
# whether the servo's pulse is the stop pulse, and whether it still seeks.
import micropython

from devices.tower import Tower
from drivers.debounce import DebouncedInput
from drivers.edges import EdgeRecorder
from drivers.servo import ContinuousServo
from edge_pin import Pin


class PWM:
    def __init__(self):
        self.ns = 0

    def freq(self, f):
        pass

    def duty_ns(self, ns):
        self.ns = ns


def turn(tower, pin, isr):
    tower._seek()
    pin.v = 1          # leaves the notch
    isr(pin)
    pin.v = 0          # the next notch (open for >= 0 us: debounce 0 here)
    isr(pin)


def main():
    pin = Pin(0)
    pwm = PWM()
    servo = ContinuousServo(pwm)
    notch = DebouncedInput(EdgeRecorder(pin, 16), 0, 0)
    tower = Tower(servo, notch, None, None, {})
    isr = pin.handler
    servo.drive(1)
    micropython.heap_lock()
    try:
        turn(tower, pin, isr)
    finally:
        micropython.heap_unlock()
    print(tower.irq_stops, pwm.ns == servo.stop_ns, tower._seeking)
