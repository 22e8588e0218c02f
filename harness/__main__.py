"""`python -m harness <check>`."""

from harness.cli import main

raise SystemExit(main())
