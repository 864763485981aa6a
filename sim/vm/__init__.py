"""The official MicroPython WebAssembly VM: the runner (mpvm, run_mp.mjs), its /lib stand-ins (lib/) and the scripts run in it (scripts/)."""
