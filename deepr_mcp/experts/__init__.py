"""Experts: beliefs, gaps and their store, fed by finished campaigns."""
