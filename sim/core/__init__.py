"""The simulator's core: the virtual clock, the event loop, the runtime the fakes share, and install() that puts the fakes in place of the rp2 modules."""
