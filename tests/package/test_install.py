"""The install commands harness/README.md documents ("Install it into your own CI"), each run into
a fresh virtual environment with no constraint file: `pip install <checkout>` and
`pip install "git+file://<clone>@<commit>"` (the form of the README's git URL). pyproject.toml's
ranges alone must give a working set: `rerun-safe --help` runs, the dbt-core installed is in the
tested range, and the CI template ships as package data (`rerun-safe init-ci` writes it).

Slow: one test, one venv per command, the two installs at once: 3.5 minutes measured on 2 cores
at a load of 10 (about 65 s of CPU; one install alone took 1.6 minutes there), with the machine's
pip cache. The checkout installed is a copy of this working tree, so pip's build/ folder is
never left in the repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness.compat import SUPPORTED_DBT

REPO = Path(__file__).resolve().parents[2]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: int = 400) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _copy_of_the_working_tree(destination: Path) -> None:
    """The files git tracks or would track (ignored ones, such as .venv and target/, left out)."""
    listed = (
        subprocess.run(
            ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)


def test_each_documented_install_command_gives_a_working_rerun_safe(tmp_path: Path) -> None:
    checkout = tmp_path / "rerun_safe"
    _copy_of_the_working_tree(checkout)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_CONSTRAINT"))}
    env.update(GIT_ENV, PIP_CONSTRAINT="")  # no constraint file: pyproject.toml's ranges alone
    env["PIP_NO_COMPILE"] = "1"  # the same packages resolved and installed, without byte-compiling every one
    for step in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "release"]):
        subprocess.run(step, cwd=checkout, env=env, check=True, capture_output=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True
    ).stdout.strip()
    commands = {
        "path": [str(checkout)],
        "git URL": [f"git+file://{checkout}@{commit}"],
    }
    elsewhere = tmp_path / "elsewhere"  # not the repository: nothing of it on the path
    elsewhere.mkdir()
    venvs = {label: tmp_path / f"venv-{label.replace(' ', '-')}" for label in commands}
    installs = {}
    for label, target in commands.items():  # both at once: the installs wait on the network more than on the CPU
        subprocess.run([sys.executable, "-m", "venv", str(venvs[label])], check=True)
        installs[label] = subprocess.Popen(
            [str(venvs[label] / "bin" / "pip"), "install", "--quiet", *target],
            cwd=elsewhere,
            env=env,
            stdout=(tmp_path / f"{venvs[label].name}.log").open("w"),
            stderr=subprocess.STDOUT,
        )
    for label, process in installs.items():
        process.wait(timeout=600)
        log = (tmp_path / f"{venvs[label].name}.log").read_text()
        assert process.returncode == 0, f"pip install from a {label}:\n{log[-4000:]}"
    for label, venv in venvs.items():
        shown = _run([str(venv / "bin" / "rerun-safe"), "--help"], elsewhere, env)
        assert shown.returncode == 0 and "idempotency" in shown.stdout and "init-ci" in shown.stdout, label
        dbt = _run(
            [str(venv / "bin" / "python"), "-c", "import importlib.metadata as m; print(m.version('dbt-core'))"],
            elsewhere,
            env,
        )
        assert Version(dbt.stdout.strip()) in SpecifierSet(SUPPORTED_DBT.specifier), (label, dbt.stdout, dbt.stderr)
        project = elsewhere / label.replace(" ", "-")
        project.mkdir()
        (project / "dbt_project.yml").write_text("name: shop\nprofile: shop\n")
        wrote = _run([str(venv / "bin" / "rerun-safe"), "init-ci", "--project-dir", str(project)], elsewhere, env)
        assert wrote.returncode == 0, wrote.stderr
        assert (project / ".github" / "workflows" / "rerun-safe.yml").read_text() == (
            REPO / "harness" / "templates" / "rerun-safe-pr.yml"
        ).read_text()
