"""The README's lateness commands draw the histogram they promise: each names
`--histogram`, and the first, run as written from the repository (its delivery folder and picture
path pointed into a temporary folder), writes the PNG and names it in its result."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.harness.helpers import DELIVERIES

REPO = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _readme_lateness_commands() -> list[list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"`(python -m harness lateness [^`]+)`", text)
    found += re.findall(r"^(rerun-safe lateness .+)$", text, flags=re.M)
    return [shlex.split(command) for command in found]


def test_every_readme_lateness_command_draws_the_histogram() -> None:
    commands = _readme_lateness_commands()
    assert len(commands) >= 2, commands
    for argv in commands:
        assert "--histogram" in argv, f"README.md: {shlex.join(argv)} draws no picture"


def test_the_readme_lateness_command_writes_its_picture(tmp_path: Path) -> None:
    argv = _readme_lateness_commands()[0]
    assert argv[:4] == ["python", "-m", "harness", "lateness"]
    picture = tmp_path / "lateness.png"
    argv[argv.index("--deliveries") + 1] = str(DELIVERIES)
    argv[argv.index("--histogram") + 1] = str(picture)
    done = subprocess.run(
        [sys.executable, *argv[1:], "--work-dir", str(tmp_path / "work")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"histogram: {picture}" in done.stdout
    assert picture.read_bytes()[:8] == PNG
