"""Whole simulated boards: the unmodified firmware, the models of its hardware and simulated players wired together (roller, haunted, companion, pty)."""
