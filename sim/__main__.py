"""`python -m hauntbox_sim`: run the firmware on a simulated board (same as `hauntbox sim`)."""
from hauntbox_sim.cli import main

raise SystemExit(main())
