# Hobby servos on 50 Hz PWM, driven with duty_ns. Every pulse width goes
# through clamp(), so nothing outside the calibrated hard limits ever reaches
# the servo, whatever the calibration or a command asks for.

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

SERVO_HZ = const(50)
ABS_MIN_NS = const(500000)     # no hobby servo wants less than 0.5 ms
ABS_MAX_NS = const(2500000)    # ... or more than 2.5 ms


def check_limits(min_ns, max_ns):
    if not (ABS_MIN_NS <= min_ns < max_ns <= ABS_MAX_NS):
        raise ValueError("servo limits must satisfy %d <= min < max <= %d ns"
                         % (ABS_MIN_NS, ABS_MAX_NS))


class ContinuousServo:
    # Continuous-rotation servo: stop_ns holds still, forward_ns turns the tower
    # clockwise; speeds in between are interpolated, reverse mirrors forward.
    def __init__(self, pwm, stop_ns=1500000, forward_ns=1300000, min_ns=1000000,
                 max_ns=2000000):
        check_limits(min_ns, max_ns)
        self.pwm = pwm
        self.min_ns = min_ns
        self.max_ns = max_ns
        self.stop_ns = self.clamp(stop_ns)
        self.forward_ns = self.clamp(forward_ns)
        self.pulse_ns = 0
        pwm.freq(SERVO_HZ)
        self.off()

    def clamp(self, ns):
        if ns < self.min_ns:
            return self.min_ns
        if ns > self.max_ns:
            return self.max_ns
        return int(ns)

    def _write(self, ns):
        ns = self.clamp(ns)
        self.pulse_ns = ns
        self.pwm.duty_ns(ns)

    def drive(self, speed):
        # speed in [-1, 1]: 1 = calibrated forward, -1 = the mirror image.
        if speed > 1:
            speed = 1
        elif speed < -1:
            speed = -1
        self._write(self.stop_ns + (self.forward_ns - self.stop_ns) * speed)

    def stop(self):
        self._write(self.stop_ns)

    def off(self):
        # No pulses: the servo relaxes (used when idle, to avoid creep and hum).
        self.pulse_ns = 0
        self.pwm.duty_ns(0)
