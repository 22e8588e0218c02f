"""No vacuous pass: a check that exercised nothing says so and fails `all`, unless skipped."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.cli import main
from harness.results import Status
from tests.harness.helpers import DELIVERIES, PROJECTS, run_fixture_check


def _narrow_glob_project(tmp_path: Path) -> Path:
    """The correct twin, reading only names shaped like `2026-11-01_a.csv`: a copy under any
    other name is never read."""
    project = tmp_path / "project"
    shutil.copytree(PROJECTS / "correct", project, ignore=shutil.ignore_patterns("target", "logs"))
    for model in [*(project / "macros").glob("*.sql"), *(project / "models").glob("*.sql")]:
        model.write_text(model.read_text().replace("/*.csv'", "/????-??-??_?.csv'"))
    return project


def test_a_redelivery_the_rebuild_never_read_is_not_exercised(tmp_path: Path) -> None:
    project = _narrow_glob_project(tmp_path)
    result = run_fixture_check("replay", "correct", tmp_path / "work", project_dir=project)
    assert result.status is Status.NOT_EXERCISED, result.failure_message()
    assert result.reason.startswith("new names: the rebuild read none of the 4 file(s)")
    assert result.exercised["of them read by the rebuild"] == 4  # same names: read
    assert result.exercised["of those read by the rebuild"] == 0


def test_not_exercised_fails_all_unless_skipped(tmp_path: Path, capsys) -> None:
    project = _narrow_glob_project(tmp_path)
    junit = tmp_path / "junit.xml"
    common = ["--project-dir", str(project), "--deliveries", str(DELIVERIES), "--quiet"]
    code = main(["all", *common, "--only", "replay", "--junit", str(junit), "--work-dir", str(tmp_path / "w1")])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "== replay: NOT EXERCISED" in out and "does the model's file pattern match them?" in out
    failure = ET.parse(junit).getroot().find("testsuite/testcase[@name='replay']/failure")
    assert failure is not None and failure.get("message", "").startswith("not exercised: new names")
    code = main(["all", *common, "--only", "keys", "replay", "--skip", "replay", "--work-dir", str(tmp_path / "w2")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "== replay: SKIPPED (0.0 s): skipped by --skip" in out


def test_one_batch_key_skips_batches_with_its_reason(tmp_path: Path, capsys) -> None:
    one = tmp_path / "deliveries"
    one.mkdir()
    for path in DELIVERIES.glob("2026-11-01_*.csv"):
        shutil.copy2(path, one / path.name)
    code = main(
        [
            "all",
            "--project-dir",
            str(PROJECTS / "correct"),
            "--deliveries",
            str(one),
            "--only",
            "batches",
            "--work-dir",
            str(tmp_path / "w"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "== batches: SKIPPED (0.0 s): does not apply: one batch key only" in out


def test_keys_reports_the_figures_finish_built(tmp_path: Path, monkeypatch) -> None:
    # The key check compares no tables: its figures are grains and rows, never "tables
    # judged" / "rows compared". They must be the ones finish() judged with, not edited after
    # the result was built (report, JUnit and Markdown all read result.exercised).
    from harness.checks import keys
    from harness.context import finish

    built: list[dict[str, object]] = []

    def recording_finish(*args, **kwargs):
        result = real_finish(*args, **kwargs)
        built.append(dict(result.exercised))
        return result

    real_finish = finish  # the one keys.py imports and calls
    monkeypatch.setattr(keys, "finish", recording_finish)
    result = run_fixture_check("keys", "correct", tmp_path / "work")
    assert result.status is Status.PASS, result.failure_message()
    assert built == [result.exercised], "the key check changed its figures after finish()"
    assert result.exercised == {
        "grains asserted": 6,
        "rows checked": 54,
        "builds key-checked": 1,
    }  # loaded_events: 1 grain, 11 rows
