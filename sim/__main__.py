"""`python -m sim`: run the firmware on a simulated board (same as `hauntbox sim`)."""
from sim.cli import main

raise SystemExit(main())
