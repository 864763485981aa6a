"""`python -m hauntbox_sim.pico`: a whole game on the emulated Pico (see sim/pico/cli.py)."""
from hauntbox_sim.pico.cli import main

raise SystemExit(main())
