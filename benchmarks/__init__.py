"""Benchmarks run by `make bench`; results in benchmarks/results/."""
