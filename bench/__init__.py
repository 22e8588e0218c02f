"""rerun_safe's benchmarks: `python -m bench` (bench/cli.py), results in results.json, pages rendered from them."""
