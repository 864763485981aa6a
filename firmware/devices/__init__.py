# The hardware of each build (devices/*_build.py wires it from the pin map).

# True only for the type checker (mypy treats this name as always true), so the
# block below is never run on the board.
TYPE_CHECKING = False


class Parts:
    # The hardware objects of one build, as attributes (strip, panel, ...; each
    # build function lists its own). Defined here, not in a build module, so
    # that module can be dropped once it has wired everything (unload.py): its
    # code is not needed during play.
    if TYPE_CHECKING:
        def __getattr__(self, name): ...

        def __setattr__(self, name, value): ...
