"""A mutation round can be run in parts and reported once: each finished mutant is appended to
a JSON-lines results file, and the report is written from it. A result recorded for another
text of the mutated file (the code or the mutant changed since) is not used, so a stale verdict
never counts as a kill."""

from __future__ import annotations

import json
from pathlib import Path

from mutation.report import read_tsv
from mutation.runner import MUTANTS_FILE, load_mutants, load_results, main, record_result


def _two() -> list:
    return load_mutants(MUTANTS_FILE)[:2]


def test_a_recorded_verdict_is_read_back_and_an_unrecorded_mutant_is_not_run(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    first, second = _two()
    first.status, first.killed_by, first.seconds = "killed", ["tests/x.py::test_y"], 12.5
    record_result(first, results, "abc1234")
    fresh = load_mutants(MUTANTS_FILE)[:2]
    assert load_results(fresh, results) == []
    assert (fresh[0].status, fresh[0].killed_by, fresh[0].seconds) == ("killed", ["tests/x.py::test_y"], 12.5)
    assert fresh[1].status == "pending" and second.id == fresh[1].id


def test_a_verdict_for_another_text_of_the_file_is_left_out(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    first = _two()[0]
    first.status = "killed"
    record_result(first, results, "abc1234")
    entry = json.loads(results.read_text(encoding="utf-8"))
    entry["file_text_sha"] = "0" * 16  # as if the file had another text when it ran
    results.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    fresh = load_mutants(MUTANTS_FILE)[:2]
    left_out = load_results(fresh, results)
    assert len(left_out) == 1 and left_out[0].startswith(f"{first.id}: recorded at abc1234")
    assert fresh[0].status == "pending"


def test_the_report_from_results_counts_only_what_ran(tmp_path: Path) -> None:
    mutants_file = tmp_path / "round.yml"
    mutants_file.write_text(MUTANTS_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    results, report = tmp_path / "results.jsonl", tmp_path / "report.md"
    first, second = load_mutants(mutants_file)[:2]
    first.status, first.killed_by = "killed", ["tests/x.py::test_y"]
    second.status = "survived"
    record_result(first, results, "abc1234")
    record_result(second, results, "abc1234")
    second.status = "killed"  # a later run of the same mutant: the last line wins
    second.killed_by = ["tests/x.py::test_z"]
    record_result(second, results, "def5678")
    assert (
        main(
            [
                "--mutants",
                str(mutants_file),
                "--results",
                str(results),
                "--report-from-results",
                "--report",
                str(report),
            ]
        )
        == 0
    )
    text = report.read_text(encoding="utf-8")
    everyone = load_mutants(mutants_file)
    assert "**Score: 2/2 mutants killed (100.0 %)**" in text, text[:600]
    assert f"not run: {len(everyone) - 2}." in text
    assert f" {everyone[2].id}, " in text.split("**Not run**", 1)[1]
    assert "### Survived or timed out in an earlier part" in text and f"**{second.id}**: survived at abc1234" in text
    rows = read_tsv(tmp_path / "round-verdicts.tsv")
    assert [row["id"] for row in rows] == [m.id for m in everyone]
    assert [row["result"] for row in rows[:3]] == ["killed", "killed", "not run"]
    assert rows[1]["killed by"] == "test_z"
    assert "[`round-verdicts.tsv`](round-verdicts.tsv)" in text
    assert not (tmp_path / "rules-verdicts.tsv").exists()  # another file's rules are a column of its verdicts


def _page_with_an_old_run(tmp_path: Path) -> Path:
    page = tmp_path / "testing.md"
    page.write_text("# Testing\n\nWritten by hand.\n\n## Last run\n\n| B01 | old row |\n", encoding="utf-8")
    return page


def test_the_page_keeps_its_own_text_and_gets_a_short_generated_section(tmp_path: Path) -> None:
    """For mutants.yml: the text above `## Last run` stays as written, the section below is
    replaced; the Markdown names only survivors and the ids of what did not run, so it stays
    short whatever the number of mutants; every mutant and every rule is one TSV line."""
    from mutation.report import score, write_report
    from mutation.runner import load_rules

    page = _page_with_an_old_run(tmp_path)
    mutants = load_mutants(MUTANTS_FILE)
    for m in mutants:
        m.status, m.killed_by = "killed", ["tests/x.py::test_y"]
    odd = mutants[0]
    odd.status, odd.killed_by, odd.equivalent = "survived", [], "no test can see it"
    odd.description = 'a "quoted"\tdescription\nover two lines'
    mutants[1].status, mutants[1].detail = "not applicable", "original text found 0 times"
    write_report(mutants, score(mutants), "took 1 min.", page, MUTANTS_FILE, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Testing\n\nWritten by hand.\n\n## Last run\n") and "old row" not in text
    assert text.count("## Last run") == 1 and "took 1 min." in text
    assert f"- **{odd.id}** (" in text and "no test can see it" in text
    assert f"**Not applicable or errors** (1; each has its line in the verdicts table): {mutants[1].id}." in text
    assert len(text.splitlines()) < 60, "the Markdown grows with the number of mutants"
    verdicts = read_tsv(tmp_path / "mutants-verdicts.tsv")
    assert [row["id"] for row in verdicts] == [m.id for m in mutants]
    assert verdicts[0]["description"] == 'a "quoted" description over two lines'
    assert verdicts[0]["result"] == "survived (equivalent)" and verdicts[1]["detail"] == "original text found 0 times"
    assert len((tmp_path / "mutants-verdicts.tsv").read_text(encoding="utf-8").splitlines()) == len(mutants) + 1
    rules = read_tsv(tmp_path / "rules-verdicts.tsv")
    assert [row["rule"] for row in rules] == [r.id for r in load_rules()]
    own = next(row for row in rules if row["rule"] == odd.rule)
    assert f"{odd.id}:survived_(equivalent)" in own["mutants"].split()
    write_report(mutants, score(mutants), "took 2 min.", page, MUTANTS_FILE, tmp_path)  # a second run
    again = page.read_text(encoding="utf-8")
    assert again.count("## Last run") == 1 and "took 2 min." in again and "took 1 min." not in again


def test_a_rule_whose_mutants_all_survived_is_a_gap(tmp_path: Path) -> None:
    from mutation.report import score, write_report

    page = _page_with_an_old_run(tmp_path)
    mutants = load_mutants(MUTANTS_FILE)
    rule = mutants[0].rule
    for m in mutants:
        m.status = "survived" if m.rule == rule else "killed"
        m.equivalent = m.equivalent or ("x" if m.rule == rule else None)
    write_report(mutants, score(mutants), "", page, MUTANTS_FILE, tmp_path)
    gaps = page.read_text(encoding="utf-8").split("Gaps (", 1)[1].split("\n", 1)[0]
    assert gaps.endswith(f": {rule}."), gaps
    row = next(r for r in read_tsv(tmp_path / "rules-verdicts.tsv") if r["rule"] == rule)
    assert row["verdict"] == "gap: no mutant killed"
    for m in mutants:  # not run: no gap yet
        m.status = "pending" if m.rule == rule else "killed"
    write_report(mutants, score(mutants), "", page, MUTANTS_FILE, tmp_path)
    assert "all survived): none." in page.read_text(encoding="utf-8")
    row = next(r for r in read_tsv(tmp_path / "rules-verdicts.tsv") if r["rule"] == rule)
    assert row["verdict"] == "not run"


def test_a_mutant_runs_the_longest_matching_area_without_its_own_whole_modules() -> None:
    from mutation.runner import area_of, area_tests

    areas = {"macros/": ["tests/a.py", "tests/b.py"], "macros/audit/": ["tests/c.py", "tests/d.py"]}
    assert area_of("macros/audit/x.sql", areas) == "macros/audit/"
    assert area_of("macros/dedup/x.sql", areas) == "macros/"
    assert area_of("models/x.sql", areas) is None
    mutant = load_mutants(MUTANTS_FILE)[0]
    mutant.file, mutant.tests, mutant.equivalent = "macros/audit/x.sql", ["tests/c.py", "tests/d.py::test_y"], None
    assert area_tests(mutant, areas) == ["tests/d.py"]
    mutant.equivalent = "no test can see it"
    assert area_tests(mutant, areas) == []


def _fake_runs(monkeypatch, outcomes: dict[tuple[str, ...], str]) -> list[tuple[str, ...]]:
    """run_mutant without copies or pytest: each run's outcome by the tests it was given."""
    from mutation import runner

    ran: list[tuple[str, ...]] = []

    def run_tests(project: Path, tests: list[str], workers: int, timeout: float):
        ran.append(tuple(tests))
        unmutated = "area_baseline_" in str(project)  # AreaBaselines' copy: every module passes there
        outcome = "passed" if unmutated else outcomes[tuple(tests)]
        return outcome, (["tests/d.py::test_z"] if outcome == "failed" else []), ""

    monkeypatch.setattr(runner, "copy_project", lambda destination: destination)
    monkeypatch.setattr(runner, "apply", lambda mutant, project: None)
    monkeypatch.setattr(runner, "run_tests", run_tests)
    return ran


def test_a_mutant_its_own_tests_miss_is_killed_by_its_area(monkeypatch, tmp_path: Path) -> None:
    from mutation.runner import AreaBaselines, run_mutant

    ran = _fake_runs(monkeypatch, {("tests/c.py::test_y",): "passed", ("tests/d.py",): "failed"})
    mutant = load_mutants(MUTANTS_FILE)[0]
    mutant.tests = ["tests/c.py::test_y"]
    run_mutant(mutant, tmp_path, 60, ["tests/d.py"], AreaBaselines(tmp_path, 60))
    assert (mutant.status, mutant.killed_by) == ("killed", ["tests/d.py::test_z"])
    assert "area" in mutant.detail
    # the area ran unmutated first (its baseline), then on the mutant
    assert ran == [("tests/c.py::test_y",), ("tests/d.py",), ("tests/d.py",)]


def test_an_area_that_fails_unmutated_kills_nothing(monkeypatch, tmp_path: Path) -> None:
    from mutation.runner import AreaBaselines, run_mutant

    _fake_runs(monkeypatch, {("tests/c.py::test_y",): "passed", ("tests/d.py",): "failed"})
    baselines = AreaBaselines(tmp_path, 60)
    baselines.problems[("tests/d.py",)] = "failed ['tests/d.py::test_z']"  # as if its baseline failed
    mutant = load_mutants(MUTANTS_FILE)[0]
    mutant.tests = ["tests/c.py::test_y"]
    run_mutant(mutant, tmp_path, 60, ["tests/d.py"], baselines)
    assert mutant.status == "error" and "unmutated" in mutant.detail
