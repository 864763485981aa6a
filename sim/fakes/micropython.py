"""Fake `micropython` module."""
from typing import Any, Callable

heap_lock_depth = 0


def const(x: Any) -> Any:
    return x


def native(f: Callable) -> Callable:
    return f


viper = native


def heap_lock() -> int:
    global heap_lock_depth
    heap_lock_depth += 1
    return heap_lock_depth - 1


def heap_unlock() -> int:
    global heap_lock_depth
    heap_lock_depth = max(0, heap_lock_depth - 1)
    return heap_lock_depth


def alloc_emergency_exception_buf(n: int) -> None:
    return None


def kbd_intr(ch: int) -> None:
    return None


def schedule(fn: Callable[[Any], None], arg: Any) -> None:
    from hauntbox_sim.core import runtime
    runtime.clock().at(runtime.clock().now_us, lambda: fn(arg))


def mem_info(verbose: int = 0) -> None:
    print("mem: simulated")
