# Run on the board by the heap census (sim/pico/heap_census.py): prints the
# addresses (id() on MicroPython) of the types, modules and module dicts that
# the census names heap blocks by, then the heap's block map
# (micropython.mem_info(1)), then CENSUS_END, at which the census copies the
# SRAM. It allocates freely: it runs once, at the end of a bench run, and only
# blocks already in the map are counted.
import gc
import sys

import micropython


def _builtin_types():
    def f():
        pass

    def g():
        yield

    def c():
        x = [1]

        def h():
            return x
        return h

    class K:
        def m(self):
            pass

    out = [("function", type(f)), ("generator", type(g())), ("closure", type(c())),
           ("bound_method", type(K().m)), ("type", type), ("dict", dict), ("list", list),
           ("tuple", tuple), ("str", str), ("bytes", bytes), ("bytearray", bytearray),
           ("memoryview", memoryview), ("set", set), ("bigint", type(1 << 40)),
           ("float", float), ("module", type(sys)), ("property", property),
           ("staticmethod", staticmethod), ("classmethod", classmethod)]
    for mod, names in (("array", ("array",)), ("select", ("poll",)),
                       ("machine", ("Pin", "PWM", "Timer", "WDT", "I2C")),
                       ("rp2", ("StateMachine", "PIO")),
                       ("asyncio.core", ("Task", "TaskQueue", "ThreadSafeFlag", "SingletonGenerator", "IOQueue"))):
        try:
            m = __import__(mod)
            for part in mod.split(".")[1:]:
                m = getattr(m, part)
            for n in names:
                t = getattr(m, n, None)
                if t is not None:
                    out.append((mod + "." + n, t))
        except ImportError:
            pass
    try:
        import select
        out.append(("select.poll_obj", type(select.poll())))
    except ImportError:
        pass
    return out


def run():
    gc.collect()
    for name, t in _builtin_types():
        print("CENSUS_T", name, id(t))
    for name in sorted(sys.modules):
        mod = sys.modules[name]
        print("CENSUS_M", name, id(mod), id(mod.__dict__))
        for k in dir(mod):
            v = getattr(mod, k, None)
            if isinstance(v, type):
                print("CENSUS_T", name + "." + k, id(v))
    gc.collect()
    micropython.qstr_info(1)        # every interned string, one "Q(...)" line each
    micropython.mem_info(1)
    print("CENSUS_END")
