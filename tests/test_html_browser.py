"""The HTML page in a real browser: headless Chromium from the distribution, network blocked.

Driven by Playwright with the system Chromium (``/usr/bin/chromium``; no browser download). Every
request that is not ``file://`` is aborted and recorded, and the tests assert none happened.
Skipped when Playwright or Chromium is missing, unless ``GRADEFRAME_REQUIRE_BROWSER=1`` (as
``.ci/run`` sets it). ``GRADEFRAME_SCREENSHOT=docs/report.png`` writes the README's screenshot.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from tests.html_page import expected_table, only

REQUIRED = os.environ.get("GRADEFRAME_REQUIRE_BROWSER") == "1"
CHROMIUM = os.environ.get("GRADEFRAME_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
LOGS = Path(__file__).parent / "fixtures" / "logs"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


if (_why := _missing()) is not None:
    if REQUIRED:
        raise RuntimeError(f"GRADEFRAME_REQUIRE_BROWSER=1 but {_why}")
    pytest.skip(_why, allow_module_level=True)

pytest.importorskip("jinja2")

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


class Opened:
    """A page opened from a file, with what it tried to load and what it logged."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.route("**/*", self._route)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        self.page.goto(path.as_uri())

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            self.requests.append(url)
            route.abort()

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"{message.type}: {message.text}")

    def table(self, table_id: str) -> list[dict[str, str]]:
        return self.page.evaluate(
            """id => Array.from(document.querySelectorAll('#' + id + ' tbody tr')).map(tr =>
                Object.fromEntries(Array.from(tr.querySelectorAll('[data-col]')).map(
                    e => [e.dataset.col, e.textContent.trim()])))""",
            table_id,
        )

    def visible_failures(self) -> list[tuple[str, str, str]]:
        """(kind, group, item) of the failure rows the browser shows, as their cells say."""
        return [
            tuple(row)
            for row in self.page.evaluate(
                """() => Array.from(document.querySelectorAll('#failure-table tbody tr'))
                    .filter(tr => tr.offsetParent !== null)
                    .map(tr => [2, 0, 1].map(i => tr.cells[i].textContent))"""
            )
        ]

    def check_clean(self) -> None:
        assert self.requests == [], "the page tried to load from the network"
        assert self.errors == []


def write(tmp_path: Path, frame: Any, name: str, **options: Any) -> Path:
    path = tmp_path / name
    frame.grade.html(path, **options)
    return path


@pytest.fixture
def example_page(browser: Browser, tmp_path: Path) -> Iterator[tuple[Opened, pl.DataFrame]]:
    graded = gf.example().grade.answer_contains()
    opened = Opened(browser, write(tmp_path, graded, "example.html", title="The bundled example"))
    yield opened, graded
    opened.page.close()


def test_page_loads_with_no_request_and_no_console_error(example_page, tmp_path: Path) -> None:
    opened, _ = example_page
    assert opened.page.title() == "The bundled example"
    screenshot = os.environ.get("GRADEFRAME_SCREENSHOT") or str(tmp_path / "report.png")
    opened.page.set_viewport_size({"width": 1280, "height": 1500})
    opened.page.screenshot(path=screenshot, full_page=False)
    assert Path(screenshot).stat().st_size > 10_000
    opened.check_clean()


def test_shown_figures_equal_report_and_compare(example_page) -> None:
    opened, graded = example_page
    kinds = {"n": "count", "n_correct": "count", "accuracy": "", "ci_low": "", "ci_high": ""}
    want = gf.report(graded, "model")
    assert only(opened.table("report-table"), list(kinds)) == expected_table(want, kinds)
    kinds = {
        "n_items": "count",
        "difference": "signed",
        "ci_low": "signed",
        "ci_high": "signed",
        "only_a": "count",
        "only_b": "count",
        "p_value": "p",
    }
    want = gf.compare(graded, "model", "question_id")
    assert only(opened.table("compare-table"), list(kinds)) == expected_table(want, kinds)
    overall = gf.report(graded).row(0, named=True)
    accuracy = opened.page.text_content("#summary-accuracy")
    assert accuracy == f"{overall['accuracy']:.3f}"
    opened.check_clean()


def _expected(rows: pl.DataFrame) -> list[tuple[str, str, str]]:
    return list(rows.select("failure_kind", "model", "question_id").iter_rows())


def test_each_kind_and_group_filter_shows_exactly_failures_rows(example_page) -> None:
    opened, graded = example_page
    page = opened.page
    assert opened.visible_failures() == _expected(gf.failures(graded))
    # each option's value is a token; its text is the kind's or the group's name
    pairs = "os => os.map(o => [o.value, o.textContent])"
    kinds = page.eval_on_selector_all("#kind-filter option", pairs)[1:]
    assert {name for _, name in kinds} == set(graded["failure_kind"].drop_nulls())
    for value, kind in kinds:
        page.select_option("#kind-filter", value)
        assert opened.visible_failures() == _expected(gf.failures(graded, kind=kind)), kind
    page.select_option("#kind-filter", "")
    groups = page.eval_on_selector_all("#group-filter option", pairs)[1:]
    assert [name for _, name in groups] == sorted(graded["model"].unique())
    for value, group in groups:
        page.select_option("#group-filter", value)
        want = gf.failures(graded).filter(pl.col("model") == group)
        assert opened.visible_failures() == _expected(want), group
    page.select_option("#kind-filter", label="wrong")
    want = gf.failures(graded, kind="wrong").filter(pl.col("model") == groups[-1][1])
    assert opened.visible_failures() == _expected(want)
    shown = page.text_content("#shown-count")
    assert shown == f"{len(want)} of {len(gf.failures(graded))} rows shown"
    opened.check_clean()


def test_search_narrows_the_rows(example_page) -> None:
    opened, _ = example_page
    page = opened.page
    everything = len(opened.visible_failures())
    page.fill("#search", "REVENUE")
    texts = page.eval_on_selector_all(
        "#failure-table tbody tr", "rs => rs.map(r => [r.hidden, r.textContent.toLowerCase()])"
    )
    shown = [text for hidden, text in texts if not hidden]
    assert 0 < len(shown) < everything
    assert all("revenue" in text for text in shown)
    assert all("revenue" not in text for hidden, text in texts if hidden)
    page.fill("#search", "")
    assert len(opened.visible_failures()) == everything
    opened.check_clean()


def test_filters_work_from_the_keyboard(example_page) -> None:
    opened, graded = example_page
    page = opened.page
    page.focus("#kind-filter")
    page.keyboard.press("ArrowDown")  # the first kind, chosen without a pointer
    assert page.input_value("#kind-filter")
    kind = page.evaluate("document.getElementById('kind-filter').selectedOptions[0].textContent")
    assert opened.visible_failures() == _expected(gf.failures(graded, kind=kind))
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "group-filter"
    opened.check_clean()


def test_markup_in_answers_runs_nothing(browser: Browser, tmp_path: Path) -> None:
    hostile = [
        "<script>window.__gradeframe_pwned = 1</script>",
        '<img src=x onerror="window.__gradeframe_pwned = 2">',
        "\"'><svg onload=window.__gradeframe_pwned=3>",
        "<a href=javascript:window.__gradeframe_pwned=4>x</a>",
    ]
    graded = pl.DataFrame(
        {
            "model": ["<b>m</b>", 'm2" onfocus="window.__gradeframe_pwned=5'] * 2,
            "answer": hostile,
            "refs": [["none"]] * 4,
        }
    ).grade.answer_contains()
    opened = Opened(browser, write(tmp_path, graded, "hostile.html", title="<i>t</i>"))
    page = opened.page
    assert page.evaluate("window.__gradeframe_pwned") is None
    assert (
        page.evaluate("document.querySelectorAll('main img, main a[href^=javascript]').length") == 0
    )
    cells = page.eval_on_selector_all(
        "#failure-table tbody tr", "rs => rs.map(r => r.cells[2].textContent)"
    )
    assert cells == hostile
    for option in page.eval_on_selector_all("#group-filter option", "os => os.map(o => o.value)")[
        1:
    ]:
        page.select_option("#group-filter", option)
    page.fill("#search", "script")
    assert page.evaluate("window.__gradeframe_pwned") is None
    assert page.title() == "<i>t</i>"
    opened.check_clean()
    opened.page.close()


def test_matcher_page_filters_by_expectation(browser: Browser, tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "model": ["a", "a", "b", "b", "b"],
            "question_id": ["q1", "q2", "q1", "q2", "q3"],
            "pred": ["42", "41.5", "40", "43", "x"],
            "gold": [42.0, 43.0, 42.0, 43.0, 1.0],
        }
    )
    graded = frame.grade.within("pred", "gold", delta=1)
    opened = Opened(browser, write(tmp_path, graded, "within.html"))
    want = gf.report(graded, "model")
    kinds = {"n": "count", "n_correct": "count", "accuracy": ""}
    assert only(opened.table("report-table"), list(kinds)) == expected_table(want, kinds)
    opened.page.select_option("#kind-filter", label="within 1 of expected")
    rows = gf.failures(graded, actual=False, expected=False)
    assert opened.visible_failures() == list(
        rows.select("expectation", "model", "question_id").iter_rows()
    )
    opened.check_clean()
    opened.page.close()


def test_log_page_shows_agreement_with_the_tool(browser: Browser, tmp_path: Path) -> None:
    logs = gf.read_log(LOGS / "inspect")
    try:  # explain=True (SPEC v3 §2) adds near_miss: "It is 145.2 m." for 45.2
        graded, explained = logs.grade.answer_contains("output", "refs", explain=True), True
    except TypeError:
        graded, explained = logs.grade.answer_contains("output", "refs"), False
    opened = Opened(browser, write(tmp_path, graded, "logs.html", by=["model", "task"]))
    want = gf.agreement(graded, "tool_correct", "correct", by=["model", "task"])
    kinds = {"n": "count", "only_a": "count", "only_b": "count", "agreement": "", "kappa": ""}
    assert only(opened.table("agreement-table"), list(kinds)) == expected_table(want, kinds)
    if explained:
        marks = opened.page.eval_on_selector_all(
            "#failure-table mark", "ms => ms.map(m => m.textContent)"
        )
        assert "145.2" in marks
    opened.check_clean()
    opened.page.close()


def test_samples_figures_equal_pass_at_k(browser: Browser, tmp_path: Path) -> None:
    samples = pytest.importorskip("gradeframe.samples")
    graded = gf.read_log(LOGS / "inspect").grade.answer_contains("output", "refs")
    opened = Opened(browser, write(tmp_path, graded, "samples.html", by=["model", "task"]))
    if graded.group_by("model", "task", "sample_id").len()["len"].max() < 2:
        pytest.skip("these logs have one sample per item")
    table = opened.table("pass-table")
    ks = sorted({int(row["k"]) for row in table})
    want = samples.pass_at_k(graded, ks, by=["model", "task"], on="sample_id")
    kinds = {"k": "count", "n_items": "count", "pass_at_k": "", "ci_low": "", "ci_high": ""}
    assert only(table, list(kinds)) == expected_table(want, kinds)
    opened.check_clean()
    opened.page.close()


def _costed_example() -> tuple[pl.DataFrame, dict[str, dict[str, float]]]:
    """The example graded, with token counts and seconds (one group's usage partly unknown)."""
    graded = gf.example().grade.answer_contains().with_row_index("i")
    graded = graded.with_columns(
        input_tokens=pl.when(
            (pl.col("model") != "cedar-mini") | (pl.col("i").cum_count().over("model") > 1)
        ).then(pl.col("i") * 37 % 400 + 200),
        output_tokens=pl.col("i") * 53 % 300 + 50,
        seconds=(pl.col("i") * 7 % 30) / 10 + 0.5,
    ).drop("i")
    prices = {
        "atlas-large": {"input": 3.0, "output": 15.0},
        "atlas-small": {"input": 0.25, "output": 1.25},
        "beacon-7b": {"input": 0.2, "output": 0.2},
        "cedar-mini": {"input": 0.15, "output": 0.6},
    }
    return graded, prices


def _dollars(text: str) -> float | None:
    return None if text == "—" else float(text.removeprefix("$").replace(",", ""))


def test_cost_table_figures_equal_report_and_the_chart_draws_them(
    browser: Browser, tmp_path: Path
) -> None:
    graded, prices = _costed_example()
    path = write(tmp_path, graded, "cost.html", by="model", cost=prices)
    opened = Opened(browser, path)
    expected = gf.report(graded, "model", cost=prices)
    shown = opened.table("cost-table")
    assert len(shown) == expected.height
    for row, want in zip(shown, expected.iter_rows(named=True), strict=True):
        for column in ("cost", "cost_per_correct"):
            got = _dollars(row[column])
            assert got == (None if want[column] is None else round(want[column], 6)), column
        for column in ("accuracy", "correct_per_1k_tokens", "seconds_p50", "seconds_p95"):
            assert row[column] == ("—" if want[column] is None else f"{want[column]:,.3f}")
        for column in ("input_tokens", "output_tokens", "cost_unknown"):
            assert row[column] == ("—" if want[column] is None else str(want[column]))
        assert row["pareto"] == {True: "yes", False: "no", None: "—"}[want["pareto"]]
    # One dot per group with a known cost, the frontier's filled.
    dots = opened.page.locator("#cost-chart circle.point").count()
    filled = opened.page.locator("#cost-chart circle.point.pareto").count()
    assert dots == expected["cost"].is_not_null().sum()
    assert filled == expected["pareto"].sum()
    assert expected["cost"].null_count() == 1  # cedar-mini: some usage unknown
    width = opened.page.evaluate("() => document.querySelector('#cost-table').scrollWidth")
    assert width <= 1280 - 48
    opened.check_clean()
    target = Path(os.environ.get("GRADEFRAME_COST_SCREENSHOT") or tmp_path / "cost.png")
    opened.page.locator("#cost").screenshot(path=str(target))
    assert target.stat().st_size > 0


def long_labels_frame() -> pl.DataFrame:
    """Long group and item names, long unbroken answers, a missing group, epochs, a tool verdict."""
    long_model = "an-organisation-with-a-long-name/model-" + "x" * 60
    rows = []
    for m, model in enumerate([long_model, "small", None]):
        for q in range(6):
            for epoch in range(3):
                # every item flaky; the majority verdicts of neighbouring models differ
                right = epoch != 0 if (q + m) % 2 else epoch == 0
                rows.append(
                    {
                        "model": model,
                        "question_id": f"question-with-a-long-identifier-{'q' * 40}-{q}",
                        "answer": ("Paris-" + "y" * 250) if right else ("Lyon-" + "z" * 300),
                        "refs": ["Paris", "an-acceptable-answer-" + "w" * 120],
                        "tool_correct": right if q % 2 else not right,
                    }
                )
    return pl.DataFrame(rows).grade.answer_contains(explain=True)


def _fits(opened: Opened) -> tuple[int, list[str]]:
    """The page's own width, and the tables wider than their box, with every listing open."""
    page = opened.page
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    width = page.evaluate("document.scrollingElement.scrollWidth")
    wider = page.evaluate(
        """() => Array.from(document.querySelectorAll('table'))
            .filter(t => t.getBoundingClientRect().width > t.parentElement.clientWidth + 0.5)
            .map(t => t.id || t.className)"""
    )
    return width, wider


@pytest.mark.parametrize("which", ["example", "logs", "long_labels"])
def test_the_page_never_scrolls_sideways_in_a_1280_pixel_window(
    browser: Browser, tmp_path: Path, which: str
) -> None:
    if which == "example":
        graded, options = gf.example().grade.answer_contains(), {}
    elif which == "logs":
        logs = gf.read_log(LOGS / "inspect")
        graded, options = logs.grade.answer_contains("output", "refs"), {"by": ["model", "task"]}
    else:
        graded, options = long_labels_frame(), {}
    opened = Opened(browser, write(tmp_path, graded, f"{which}.html", **options))
    width, wider = _fits(opened)
    assert width <= 1280
    if which != "long_labels":  # ordinary pages: every table fits as it is, no inner scrolling
        assert wider == []
    opened.check_clean()
    opened.page.close()


def test_answers_missing_groups_and_caps_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    graded = long_labels_frame()
    opened = Opened(browser, write(tmp_path, graded, "answers.html", max_failures=4))
    page = opened.page
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    text = page.evaluate("document.body.innerText")
    assert "(null)" not in text
    assert "—" in page.eval_on_selector_all(
        "#report-table tbody th", "ts => ts.map(t => t.textContent)"
    )
    assert "At most 4 items are listed (max_failures=4)." in text
    assert "At most 4 rows are listed (max_failures=4)." in text
    headers = page.eval_on_selector_all(".discordant thead th", "ts => ts.map(t => t.textContent)")
    assert any(h.startswith("answers of small") for h in headers)
    assert (
        page.eval_on_selector_all("#flaky-items th", "ts => ts.map(t => t.textContent)")[-1]
        == "answers (votes)"
    )
    opened.check_clean()
    opened.page.close()
