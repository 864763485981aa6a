"""Accuracy checks of the firmware's sensing (beams, hits) against the simulator's ground truth."""
