"""Benchmarks of gpuplan (`make bench` = `python -m bench`): numbers of one run, as ratios measured side by
side, written to bench/results.json and bench/RESULTS.md. Never imported by the tests."""
