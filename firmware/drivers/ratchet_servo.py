# The ratchet option's standard 180-degree servo, apart from drivers/servo.py
# so that a build with the continuous servo never loads it (each resident
# class costs RAM on the board: docs/performance.md).

from drivers.servo import SERVO_HZ, check_limits


class PositionalServo:
    # Standard 180-degree servo for the ratchet option: a push from rest_deg to
    # push_deg advances the tower one notch through a pawl.
    def __init__(self, pwm, min_ns=1000000, max_ns=2000000, rest_deg=0, push_deg=60):
        check_limits(min_ns, max_ns)
        self.pwm = pwm
        self.min_ns = min_ns
        self.max_ns = max_ns
        self.rest_deg = rest_deg
        self.push_deg = push_deg
        self.pulse_ns = 0
        pwm.freq(SERVO_HZ)

    def pulse_for(self, deg):
        if deg < 0:
            deg = 0
        elif deg > 180:
            deg = 180
        return self.min_ns + (self.max_ns - self.min_ns) * deg // 180

    def move(self, deg):
        self.pulse_ns = self.pulse_for(deg)
        self.pwm.duty_ns(self.pulse_ns)

    def off(self):
        self.pulse_ns = 0
        self.pwm.duty_ns(0)
