"""make bench-vm: heap and allocation figures in the MicroPython VM, timing figures on the simulator's virtual clock; make bench-sim (speed.py): simulator and stats speed in CPU time."""
