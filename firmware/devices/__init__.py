# The hardware of each build (devices/*_build.py wires it from the pin map).


class Parts:
    # The hardware objects of one build, as attributes (strip, panel, ...; each
    # build function lists its own). Defined here, not in a build module, so
    # that module can be dropped once it has wired everything (ram.py): its
    # code is not needed during play. (__init__.pyi tells the type checker that
    # any attribute may be set: a declaration here would cost RAM on the board.)
    pass
