"""Benchmarks: one command each (`python -m bench.NAME`), medians and ratios against a baseline."""
