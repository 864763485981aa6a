"""Simulated players: hands on the buttons, and the bots that decide for Beetlejuice and Super-Skill seats (the host's play and stats use them too)."""
