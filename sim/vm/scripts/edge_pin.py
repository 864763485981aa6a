# Used in the MicroPython VM and on CPython (tests/sim/vm/test_vm_firmware.py,
# sim/vm/scripts/vm_firmware.py): the least a firmware edge recorder needs
# from a pin and from asyncio.ThreadSafeFlag, so that its hard IRQ handler can
# be called directly and its allocations seen under heap_lock.


class Flag:
    # Stand-in for asyncio.ThreadSafeFlag (absent from the pyscript VM); its
    # set() stores a bool like the real one, so it allocates nothing either.
    def __init__(self):
        self.state = False

    def set(self):
        self.state = True


class Pin:
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, v=1):
        self.v = v
        self.handler = None

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler

    def value(self):
        return self.v
