"""`python -m sim.pico`: a whole game on the emulated Pico (see sim/pico/cli.py)."""
from sim.pico.cli import main

raise SystemExit(main())
