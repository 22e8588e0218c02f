"""This repository's own tooling for its pipeline (not part of the harness): `generate`
writes sample landing-zone deliveries with every at-least-once pathology, `demo` lands them
day by day and builds the project (`make demo`), `show` prints a table's first rows and
`report` writes an HTML page of a warehouse's runs (both read-only), `land` copies one more
day into the demo's landing folder. `python -m pipeline_demo generate|demo|show|report|land`;
the values Make passes come through the environment (pipeline_demo/inputs.py)."""
