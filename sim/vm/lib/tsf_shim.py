# The pyscript MicroPython VM has no asyncio.ThreadSafeFlag (the rp2 port does);
# install a stand-in with the same interface before importing the firmware.
import asyncio


class ThreadSafeFlag:
    def __init__(self):
        self._ev = asyncio.Event()

    def set(self):
        self._ev.set()

    def clear(self):
        self._ev.clear()

    async def wait(self):
        await self._ev.wait()
        self._ev.clear()


if not hasattr(asyncio, "ThreadSafeFlag"):
    asyncio.ThreadSafeFlag = ThreadSafeFlag
