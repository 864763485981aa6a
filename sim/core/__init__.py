"""The simulator's core: the virtual clock, the event loop and the runtime the fakes share."""
