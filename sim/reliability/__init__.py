"""Reliability figures: power cuts, injected faults, hostile host input and damaged saves on the simulator."""
