"""The harness's --split-source / --by / --batches: every value is data. A name is a seed's name or
a file path taken literally (never a pattern), its deliveries stay inside the output folder, no
link is read or written through, every number is bounded; a bad value is one line naming the
flag and the value, and nothing is written. The split runs in-process (DuckDB): no dbt build."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.deliveries import discover_batches
from harness.split import MAX_BATCHES, split_sources
from tests.harness.helpers import PROJECTS

CORRECT = PROJECTS / "correct"  # one seed: currencies (currency_code, minor_units)
ROOT = Path(__file__).resolve().parents[2]


def _csv(path: Path, rows: int = 4) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["id", "at"])
        writer.writerows([f"{path.stem}-{n}", f"2026-11-0{n}T00:00:00Z"] for n in range(1, rows + 1))
    return path


def _refused(project: Path, names: list[str], by: list[str], batches: int, out: Path) -> str:
    """The one-line error of a refused split; nothing was written."""
    with pytest.raises(ValueError) as info:
        split_sources(project, names, by, batches, out)
    message = str(info.value)
    assert "\n" not in message, message
    assert not out.exists() or not any(out.iterdir()), sorted(out.rglob("*"))
    return message


def _project(tmp_path: Path, seeds: dict[str, int]) -> Path:
    """A project folder with only what the split reads: dbt_project.yml and its seeds."""
    project = tmp_path / "project"
    (project / "seeds").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: p\nseed-paths: [seeds]\n", encoding="utf-8")
    for name, rows in seeds.items():
        _csv(project / "seeds" / f"{name}.csv", rows)
    return project


def test_a_name_is_never_a_pattern_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    """`curr*` once split seeds/currencies.csv into a folder named `curr*`; close names are only
    suggested, never used."""
    for name in ("curr*", "currencie", "currenc?es", "[c]urrencies", "Currencies"):
        message = _refused(CORRECT, [name], ["currency_code"], 2, tmp_path / "out")
        assert message.startswith(f"--split-source {name!r}: no seed of that name"), message
    assert "close seed names: currencies" in _refused(CORRECT, ["curr*"], ["currency_code"], 2, tmp_path / "out")
    message = _refused(CORRECT, [str(tmp_path / "currencies.csv")], ["currency_code"], 2, tmp_path / "out")
    assert "no such CSV/Parquet file; the project has a seed named 'currencies'" in message, message


def test_a_file_name_with_pattern_characters_is_read_literally(tmp_path: Path) -> None:
    """`x*.csv` beside `xy.csv`: only the file named so is read (DuckDB would glob its path), and a
    `name=value` folder on its path adds no column."""
    folder = tmp_path / "k=1"
    star, _ = _csv(folder / "x*.csv", 2), _csv(folder / "xy.csv", 3)
    brackets = _csv(folder / "[br].csv", 2)
    out = split_sources(CORRECT, [str(star), str(brackets)], ["at"], 2, tmp_path / "out")
    rows = {
        f.relative_to(out).parts[0]: list(csv.DictReader(f.open(newline="")))
        for b in discover_batches(out)
        for f in b.files
    }
    assert set(rows) == {"x_", "_br_"}
    read = [row for b in discover_batches(out) for f in b.files for row in csv.DictReader(f.open(newline=""))]
    assert sorted(r["id"] for r in read) == ["[br]-1", "[br]-2", "x*-1", "x*-2"]
    assert all(set(r) == {"id", "at"} for r in read)


def test_deliveries_stay_inside_the_output_folder_whatever_the_name(tmp_path: Path, monkeypatch) -> None:
    """`../esc` is no seed name (the seed search once found `seeds/../esc.csv`); a file's stem or a
    seed's name becomes one safe folder (`..` -> `__`, `a=b` -> `a_b`, never a Hive partition)."""
    project = _project(tmp_path, {"..": 4, "a=b": 4, ".hidden": 4})
    _csv(project / "esc.csv")
    _refused(project, ["../esc"], ["at"], 2, tmp_path / "out")
    work = tmp_path / "cwd" / "sub"
    work.mkdir(parents=True)
    _csv(tmp_path / "cwd" / "esc.csv")
    monkeypatch.chdir(work)
    out = tmp_path / "out"
    split_sources(project, ["..", "a=b", ".hidden", "../esc.csv"], ["at"], 2, out)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == [
        f"{folder}/batch={n:03d}/part-0.csv" for folder in ("__", "_hidden", "a_b", "esc") for n in (1, 2)
    ], written
    assert all(p.resolve().is_relative_to(out.resolve()) for p in out.rglob("*"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cwd", "out", "project"]


def test_two_names_that_would_share_a_folder_are_refused(tmp_path: Path) -> None:
    one, other = _csv(tmp_path / "a b.csv"), _csv(tmp_path / "a_b.csv")
    message = _refused(CORRECT, [str(one), str(other)], ["at"], 2, tmp_path / "out")
    assert f"--split-source {str(one)!r} and {str(other)!r}: both would be delivered as 'a_b'" in message
    assert "both would be delivered" in _refused(CORRECT, [str(one), str(one)], ["at"], 2, tmp_path / "out")


def test_no_link_is_read_or_written_through(tmp_path: Path) -> None:
    real = _csv(tmp_path / "real.csv")
    (tmp_path / "link.csv").symlink_to(real)
    message = _refused(CORRECT, [str(tmp_path / "link.csv")], ["at"], 2, tmp_path / "out")
    assert "a symbolic link, not read; name the file it points to" in message
    project = _project(tmp_path, {})
    (project / "seeds" / "linked.csv").symlink_to(real)
    assert "is a symbolic link, not read" in _refused(project, ["linked"], ["at"], 2, tmp_path / "out")
    _csv(tmp_path / "outside" / "behind.csv")
    (project / "seeds" / "sub").symlink_to(tmp_path / "outside", target_is_directory=True)
    assert "no seed of that name" in _refused(project, ["behind"], ["at"], 2, tmp_path / "out")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out_link").symlink_to(elsewhere, target_is_directory=True)
    message = _refused(CORRECT, [str(real)], ["at"], 2, tmp_path / "out_link")
    assert "is a symbolic link, not written through" in message
    assert list(elsewhere.iterdir()) == []
    full = tmp_path / "full"
    full.mkdir()
    (full / "theirs.txt").write_text("x")
    with pytest.raises(ValueError, match="is not empty"):
        split_sources(CORRECT, [str(real)], ["at"], 2, full)
    assert [p.name for p in full.iterdir()] == ["theirs.txt"]


@pytest.mark.parametrize("batches", [0, -1, MAX_BATCHES + 1, 10**10])
def test_batches_out_of_bounds_is_refused_naming_the_flag(batches: int, tmp_path: Path) -> None:
    message = _refused(CORRECT, ["currencies"], ["currency_code"], batches, tmp_path / "out")
    assert message == f"--batches must be a whole number from 1 to {MAX_BATCHES}, got {batches}"


def test_the_largest_batch_count_is_accepted(tmp_path: Path) -> None:
    out = split_sources(CORRECT, ["currencies"], ["currency_code"], MAX_BATCHES, tmp_path / "out")
    keys = [b.key for b in discover_batches(out)]
    assert keys == sorted(keys, key=int) and keys[0] == "00001" and len(keys[-1]) == 5


def test_an_empty_source_an_unknown_column_and_an_unreadable_file_are_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    header_only = tmp_path / "header_only.csv"
    header_only.write_text("id,at\n", encoding="utf-8")
    not_parquet = tmp_path / "fake.parquet"
    not_parquet.write_text("id,at\n1,2\n", encoding="utf-8")
    good = _csv(tmp_path / "good.csv")
    out = tmp_path / "out"
    for path in (empty, header_only):
        message = _refused(CORRECT, [str(good), str(path)], ["at"], 2, out)
        assert message == f"--split-source {str(path)!r}: {path.name!r} has no rows, nothing to deliver"
    message = _refused(CORRECT, [str(good)], ["nope"], 2, out)
    assert message == "--by 'nope': no such column in 'good.csv' ('id', 'at')"
    message = _refused(CORRECT, [str(not_parquet)], ["at"], 2, out)
    assert message.startswith(f"--split-source {str(not_parquet)!r}: DuckDB cannot read 'fake.parquet' as PARQUET")
    message = _refused(CORRECT, [str(good), "currencies"], ["at", "currency_code", "x"], 2, out)
    assert message == "--by takes one column, or one per --split-source (2), got 3"
    assert _refused(CORRECT, ["a\nb"], ["at"], 2, out).startswith("--split-source 'a\\nb': ")


def test_the_cli_says_one_line_naming_the_flag_and_writes_nothing(tmp_path: Path, capsys) -> None:
    """One subprocess for the exit code and the whole stderr; the other flags in-process."""
    work = tmp_path / "work"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "keys",
            "--project-dir",
            str(CORRECT),
            "--split-source",
            "curr*",
            "--by",
            "currency_code",
            "--work-dir",
            str(work),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "rerun-safe: --split-source 'curr*': no seed of that name and no CSV/Parquet file "
        "(names are taken literally, never as a pattern; close seed names: currencies)"
    ], done.stderr
    assert done.stdout == "" and list(work.iterdir()) == []
    code = main(
        [
            "keys",
            "--project-dir",
            str(CORRECT),
            "--split-source",
            "currencies",
            "--by",
            "currency_code",
            "--batches",
            str(10**10),
            "--work-dir",
            str(work),
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.splitlines() == [
        f"rerun-safe: --batches must be a whole number from 1 to {MAX_BATCHES}, got {10**10}"
    ]
    assert list(work.iterdir()) == []


def test_two_seeds_of_one_name_are_refused_not_picked(tmp_path: Path) -> None:
    project = _project(tmp_path, {})
    _csv(project / "seeds" / "a" / "orders.csv")
    _csv(project / "seeds" / "b" / "orders.csv")
    message = _refused(project, ["orders"], ["at"], 2, tmp_path / "out")
    assert message.startswith("--split-source 'orders': several seeds of that name"), message
