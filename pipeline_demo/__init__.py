"""This repository's own tooling for its pipeline (not part of the harness): `generate`
writes sample landing-zone deliveries with every at-least-once pathology, `demo` lands them
day by day and builds the project (`make demo`). `python -m pipeline_demo generate|demo`."""
