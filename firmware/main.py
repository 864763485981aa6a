# Pico entry point. Ctrl-C stays enabled so mpremote can always take over;
# holding MENU at power-up enters the service mode, MENU and ROLL skip the
# game (safe boot).
#
# The emergency exception buffer first: an exception raised where the heap
# cannot be used (a hard IRQ handler; drivers/edges.py catches its own, but a
# traceback must still be printable) then carries its message instead of a
# bare MemoryError. 100 bytes is the size MicroPython's docs suggest.
import micropython

micropython.alloc_emergency_exception_buf(100)
del micropython

import app  # noqa: E402 - after the buffer, on purpose

app.run()
