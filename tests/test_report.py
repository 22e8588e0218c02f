"""The pipeline report page (`python -m pipeline_demo report`, `make report`): a static
HTML page from a warehouse's run log, opened here in a real headless Chromium (Debian's package
`chromium`; `.ci/run` installs it). The page must show the figures of THE warehouse it was given:
each is compared with a query of that warehouse made here, not with anything the report code
computed. The screenshot is kept as a test artefact (target/test-artefacts/), and checked to be
a real PNG with the report's pictures in it.

Without Chromium the browser test fails when CI is set (CI must install it) and skips, saying
so, elsewhere."""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from pipeline_demo.__main__ import main
from tests.pipeline.project import Pipeline, event

REPO = Path(__file__).resolve().parents[1]
ARTEFACTS = REPO / "target" / "test-artefacts"
WINDOW = (1200, 2600)
# The chart colours (pipeline_demo/report_pictures.py): only the embedded PNGs hold them, so finding them
# in the screenshot means Chromium decoded and drew the pictures.
STAGED_BLUE, LATE_ORANGE = (0x4C, 0x72, 0xB0), (0xDD, 0x84, 0x52)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    """Four runs: a first day (a late row, a quarantined one), a second day, a retry with
    nothing new, and a correction over October that applies the late rows. The first and the
    last are builds (the first loads the seeds in the same run: a `dbt seed` of its own would be
    a fifth run); the two between them `dbt run`, models only."""
    pipeline = Pipeline(tmp_path_factory.mktemp("report-warehouse"))
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("A", 10000),
            event("B", 5000, order_item_id="i2"),
            event("L1", 300, order_item_id="i3", event_time="2026-10-20T10:00:00Z"),  # 12 days late: waits
            event("X", "12.5", order_item_id="i4"),  # not whole cents: quarantined
        ],
    )
    pipeline.build()
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event("C", 700, order_item_id="i5", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
            event("D", 900, order_item_id="i6", event_time="2026-11-02T09:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
            event("L2", 400, order_item_id="i7", event_time="2026-10-25T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
            event("Y", -1, order_item_id="i8", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        ],
    )
    pipeline.run_ok()
    pipeline.run_ok()
    pipeline.build(vars={"correct_from": "2026-10-01", "correct_to": "2026-10-31"})
    return pipeline


def _report(warehouse: Path, out: Path, *more: str) -> int:
    return main(["report", "--warehouse", str(warehouse), "--out", str(out), *more])


class Figures(HTMLParser):
    """Every element with a data-figure: (the data-run of its row or None, name, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[int | None, str, str]] = []
        self._run: int | None = None
        self._open: list[tuple[str, int | None, str, list[str]]] = []
        self.images: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "tr":
            run = attributes.get("data-run")
            self._run = int(run) if run else None
        if tag == "img":
            self.images.append(attributes.get("src") or "")
        if tag == "script":
            self.scripts += 1
        if attributes.get("data-figure"):
            self._open.append((tag, self._run, str(attributes["data-figure"]), []))

    def handle_data(self, data: str) -> None:
        for *_, text in self._open:
            text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, run, name, text = self._open.pop()
            self.found.append((run, name, " ".join("".join(text).split())))

    def figure(self, name: str, run: int | None = None) -> str:
        values = [text for r, n, text in self.found if n == name and r == run]
        assert len(values) == 1, f"figure {name} of run {run}: {values} in {self.found}"
        return values[0]


def _number(text: str) -> int:
    return int(text.replace(",", "")) if text else 0


@pytest.fixture
def chromium() -> str:
    """Chromium on PATH (Debian's package installs /usr/bin/chromium; GitHub's Ubuntu runners have
    Google Chrome instead, which takes the same flags)."""
    found = shutil.which("chromium") or shutil.which("google-chrome")
    if found is None:
        message = "headless Chromium (Debian's package chromium) is not on PATH: apt-get install -y chromium."
        if os.environ.get("CI"):
            pytest.fail(message + " CI must install it (.ci/run does).", pytrace=False)
        pytest.skip("SKIPPED, NOT TESTED: " + message)
    return found


def _browse(chromium: str, tmp_path: Path, page: Path, *action: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"chromium-profile-{len(list(tmp_path.glob('chromium-profile-*')))}"
    done = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *action, page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-2000:]}"
    return done


def test_the_report_in_chromium_shows_this_warehouses_figures(
    chromium: str, warehouse: Pipeline, tmp_path: Path, capsys
) -> None:
    page = tmp_path / "report.html"
    assert _report(warehouse.warehouse, page) == 0, capsys.readouterr().err
    assert f"report: wrote {page}" in capsys.readouterr().out

    dom = _browse(chromium, tmp_path, page, "--dump-dom").stdout
    figures = Figures()
    figures.feed(dom)
    assert figures.found, f"Chromium's DOM holds no figure: {dom[:2000]}"
    # nothing from the network, nothing to run: two pictures, both embedded PNGs
    assert figures.scripts == 0 and len(figures.images) == 2
    assert all(src.startswith("data:image/png;base64,") for src in figures.images), [s[:40] for s in figures.images]

    # the warehouse's own figures, queried here
    q = warehouse.query
    runs = [seq for (seq,) in q("select run_seq from rerun_safe_runs order by run_seq")]
    assert len(runs) == 4
    assert _number(figures.figure("runs")) == len(runs)
    staged = dict(q("select _loaded_run_seq, count(*) from stg_landing__events group by 1"))
    quarantined = dict(q("select quarantined_run_seq, count(*) from quarantined_events group by 1"))
    assert staged == {runs[0]: 4, runs[1]: 4} and quarantined == {runs[0]: 1, runs[1]: 1}, (staged, quarantined)
    for seq in runs:
        assert _number(figures.figure("rows_in", seq)) == staged.get(seq, 0), seq
        assert _number(figures.figure("quarantined", seq)) == quarantined.get(seq, 0), seq
    # the late queue after each run: L1 after the first, L1 and L2 until the correction applies both
    assert [_number(figures.figure("waiting", seq)) for seq in runs] == [1, 2, 2, 0]
    assert [_number(figures.figure("applied", seq)) for seq in runs] == [0, 0, 0, 2]
    assert [_number(figures.figure("late_copies", seq)) for seq in runs] == [1, 1, 0, 0]

    now = {
        "rows_staged": "select count(*) from stg_landing__events",
        "quarantined": "select count(*) from quarantined_events",
        "late_waiting": "select count(*) from late_events where status = 'waiting'",
        "late_applied": "select count(*) from late_events where status = 'applied'",
        "items": "select count(*) from fct_order_items",
        "ledger_postings": "select count(*) from fct_revenue_ledger",
        "ledger_cents": "select sum(amount_cents) from fct_revenue_ledger",
        "net_cents": "select sum(net_cents) from fct_daily_revenue",
    }
    for name, sql in now.items():
        assert _number(figures.figure(name)) == warehouse.scalar(sql), name
    assert warehouse.scalar(now["ledger_cents"]) == 10000 + 5000 + 300 + 700 + 900 + 400
    assert figures.figure("balance") == "balanced"
    # the correction, the run that recorded it, the late rows it applied
    ((correction_run, applied),) = q(
        "select c.recorded_run_seq, count(l.late_event_id) from int_corrections_recorded as c "
        "left join late_events as l on l.applied_by_correction_id = c.correction_id group by 1"
    )
    assert _number(figures.figure("recorded_run_seq")) == correction_run == runs[-1]
    assert _number(figures.figure("rows_applied")) == applied == 2
    assert figures.figure("watermark_hours") == "72"
    # the histogram's rows, on each side of the watermark, as the warehouse classified them
    for name, late in (("late_rows", True), ("on_time_rows", False)):
        shown = sum(_number(text) for _, n, text in figures.found if n == name)
        assert shown == warehouse.scalar(
            f"select sum(row_count) from int_event_copies_classified where is_late = {late}"
        ), name
    assert not [f for f in figures.found if f[1] == "watermark_mismatch"]
    last = figures.figure("last_run")
    assert f"run {runs[-1]} (build" in last and "correction recorded: 1" in last, last
    assert "2 late rows applied by a correction; 0 late rows waiting; copies: 0 late copies written" in last, last

    # the screenshot: a real PNG of the window's size, with the pictures drawn in it
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / "report-screenshot.png"
    shot.unlink(missing_ok=True)
    _browse(chromium, tmp_path, page, f"--screenshot={shot}", f"--window-size={WINDOW[0]},{WINDOW[1]}")
    print(f"\nreport screenshot (test artefact): {shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size == WINDOW
        pixels = image.convert("RGB")
        colours = pixels.getcolors(maxcolors=WINDOW[0] * WINDOW[1])
    assert colours is not None and len(colours) > 50, f"{len(colours or [])} colours: a blank page?"
    counts = {colour: count for count, colour in colours}
    white = counts.get((255, 255, 255), 0)
    assert white < 0.97 * WINDOW[0] * WINDOW[1], "the screenshot is (almost) all white"
    assert counts.get(STAGED_BLUE, 0) > 500 and counts.get(LATE_ORANGE, 0) > 100, (
        "the charts' colours are missing from the screenshot: Chromium did not draw the embedded pictures"
    )


def test_a_path_is_data_and_another_watermark_is_flagged(warehouse: Pipeline, tmp_path: Path, capsys) -> None:
    """A folder named with quotes, spaces and non-ASCII works (the path never enters SQL), and a
    watermark the warehouse was not classified with is said on the page."""
    odd = tmp_path / 'it\'s a "warehouse"; drop table x -- é'
    odd.mkdir()
    copy = odd / "w'h.duckdb"
    shutil.copy2(warehouse.warehouse, copy)
    assert _report(copy, odd / "page.html") == 0, capsys.readouterr().err
    text = (odd / "page.html").read_text()
    assert 'data-figure="watermark_mismatch"' not in text
    assert "http://" not in text and "https://" not in text and "<script" not in text
    assert _report(copy, odd / "other.html", "--allowed-lateness-hours", "1000") == 0
    assert 'data-figure="watermark_mismatch"' in (odd / "other.html").read_text()


def test_a_row_exactly_at_the_watermark_is_on_time_in_the_histogram() -> None:
    """is_late is strictly later than the watermark: the bins hold (lower, upper]."""
    from pipeline_demo.report_pictures import lateness_bins

    bins = lateness_bins([(72 * 3600, 5), (72 * 3600 + 1, 7), (0, 1), (-3, 2), (144 * 3600 + 1, 4)], 72)
    on_time = sum(rows for _, low, _, rows in bins if low < 72)
    late = sum(rows for _, low, _, rows in bins if low >= 72)
    assert (on_time, late) == (5 + 1 + 2, 7 + 4)
    assert [(label, rows) for label, _, _, rows in bins if rows] == [
        ("< 0 h", 2),
        ("0-6 h", 1),
        ("66-72 h", 5),
        ("72-78 h", 7),
        ("> 144 h", 4),
    ]


def test_bad_warehouses_and_arguments_fail_before_writing(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out" / "page.html"
    cases: list[tuple[list[str], str]] = []
    cases.append((["--warehouse", str(tmp_path / "missing.duckdb")], "missing.duckdb': no such file"))
    cases.append((["--warehouse", str(tmp_path)], "not a file"))
    text = tmp_path / "notes.duckdb"
    text.write_text("not a database\n")
    cases.append((["--warehouse", str(text)], "DuckDB cannot open it read-only"))
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("create table my_work as select 42 as answer")
    cases.append(
        (["--warehouse", str(other)], "not a warehouse of this project (rerun_safe): it has no rerun_safe_runs")
    )
    cases.append((["--warehouse", str(other), "--allowed-lateness-hours", "-1"], "--allowed-lateness-hours -1"))
    for args, expected in cases:
        assert main(["report", *args, "--out", str(out)]) == 2, args
        err = capsys.readouterr().err
        assert expected in err, (args, err)
    assert main(["report", "--warehouse", str(other), "--out", str(tmp_path / "page.txt")]) == 2
    assert "must end in .html" in capsys.readouterr().err
    assert not out.parent.exists() and not (tmp_path / "page.txt").exists()
    with duckdb.connect(str(other), read_only=True) as con:  # read, never written
        assert con.execute("select answer from my_work").fetchall() == [(42,)]
