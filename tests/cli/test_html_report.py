"""`cassette report`: one self-contained, escaped, metadata-only HTML page (issue 25).

The DOM-level test always runs (Python's html.parser); the browser test runs where a
Chromium is installed (`.ci/run` installs Debian's) and is skipped elsewhere.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cassette_cli import main
from cassette_cli.html_report import html_report
from cassette_cli.report_view import report_view
from cassette_format import load_cassette
from cassette_format.records import CassetteInteraction, Timing
from cli.recorded_runs import CANARY, HOSTILE, record
from support.chromium import dump_dom, find_chromium
from topology.builders import cassette, interaction, live_request

CHILDREN = {"alpha": f"{CANARY} a", "beta": f"{CANARY} b", "fails": f"{CANARY} f"}


@dataclass
class Page(HTMLParser):
    """What the tests read from the page: rows, bars, tags, attributes and all text."""

    rows: list[dict[str, str]] = field(default_factory=list)
    bars: list[dict[str, str]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    root: dict[str, str] = field(default_factory=dict)
    body: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.tags.append(tag)
        classes = values.get("class", "").split()
        if tag == "html":
            self.root = values
        if tag == "body":
            self.body = values
        if tag == "tr" and "call-row" in classes:
            self.rows.append(values)
        if "bar" in classes:
            self.bars.append(values)
        self.links.extend((tag, name) for name in ("src", "href", "action") if name in values)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def report(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["report", *args], stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path]:
    old = record(tmp_path / "old.cassette.jsonl", CHILDREN, nested="alpha")
    labels = {label: f"{CANARY} {index}" for index, label in enumerate(HOSTILE)}
    new = record(tmp_path / "new.cassette.jsonl", {**CHILDREN, **labels}, nested="alpha")
    return old, new


def test_every_call_is_shown_escaped_with_no_body_and_nothing_external(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = recorded
    out = tmp_path / "report.html"
    code, stdout, stderr = report(str(new), "--against", str(old), "-o", str(out))
    assert (code, stderr) == (0, "")
    assert stdout == f"wrote {out}\n"
    html = out.read_text(encoding="utf-8")
    assert CANARY not in html  # no prompt, result or error body
    page = parse(html)
    keys = [item.call_key for item in load_cassette(new).interactions]
    assert sorted(row["data-call-key"] for row in page.rows) == sorted(keys)
    assert page.tags.count("script") == 2  # the error hook and the page's own: no injected one
    assert page.links == []  # no external asset, link or form
    assert any("Content-Security-Policy" in text for text in [html[:600]])
    text = "".join(page.text)
    for label in HOSTILE:
        assert label.replace("\n", "\\u{000a}") in text  # shown as text, never as markup
    # Every hostile label added, the others unchanged: the drift is coloured per row.
    kinds = {row["data-label"]: row["class"].split()[1] for row in page.rows}
    assert {kinds[label.replace("\n", "\\u{000a}")] for label in HOSTILE} == {"drift-added"}
    assert kinds["alpha"] == kinds["inner"] == "drift-unchanged"


def test_the_timeline_overlaps_siblings_and_nests_children() -> None:
    """Bars are placed by recorded start and duration: fixed timings, no clock involved."""
    parent = interaction(1, live_request("a", "a"))
    calls = [
        timed(parent, "2026-01-01T00:00:00.000Z", 100),
        timed(interaction(2, live_request("b", "b")), "2026-01-01T00:00:00.010Z", 50),
        timed(interaction(3, live_request("c", "c")), "2026-01-01T00:00:00.200Z", 10),
        timed(
            interaction(4, live_request("n", "n"), parent_key=parent.call_key),
            "2026-01-01T00:00:00.020Z",
            30,
        ),
    ]
    page = parse(html_report(report_view(cassette(calls))))
    rows = [(row["data-label"], int(row["data-depth"])) for row in page.rows]
    assert rows == [("a", 0), ("n", 1), ("b", 0), ("c", 0)]  # nested right under its parent
    spans = {
        label: (float(bar["data-start-ms"]), float(bar["data-duration-ms"]))
        for (label, _), bar in zip(rows, page.bars, strict=True)
    }
    assert spans == {"a": (0, 100), "n": (20, 30), "b": (10, 50), "c": (200, 10)}
    percents = [[float(n) for n in re.findall(r"[\d.]+(?=%)", bar["style"])] for bar in page.bars]
    left = {label: found[0] for (label, _), found in zip(rows, percents, strict=True)}
    width = {label: found[1] for (label, _), found in zip(rows, percents, strict=True)}
    assert left["b"] < left["a"] + width["a"]  # concurrent siblings overlap on screen
    assert left["c"] >= left["b"] + width["b"]  # a later sibling does not
    assert left["a"] <= left["n"]
    assert left["n"] + width["n"] <= left["a"] + width["a"]  # the child within its parent


def timed(item: CassetteInteraction, started_at: str, duration_ms: float) -> CassetteInteraction:
    return replace(item, timing=Timing(started_at, 1.0, duration_ms))


def test_load_errors_and_usage(tmp_path: Path) -> None:
    code, _, err = report(str(tmp_path / "missing.cassette.jsonl"), "-o", str(tmp_path / "r.html"))
    assert code == 1
    assert err
    assert not (tmp_path / "r.html").exists()
    assert report(str(tmp_path / "x.cassette.jsonl"))[0] == 1  # -o is required


@pytest.mark.skipif(find_chromium() is None, reason="no Chromium installed")
def test_a_real_browser_runs_the_page_without_script_errors(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = recorded
    out = tmp_path / "report.html"
    assert report(str(new), "--against", str(old), "-o", str(out))[0] == 0
    browser = find_chromium()
    assert browser is not None
    page = parse(dump_dom(browser, out))
    assert "data-script-error" not in page.root  # window.onerror never fired
    assert page.body.get("data-ready") == "yes"  # the page's script ran to its end
    keys = {item.call_key for item in load_cassette(new).interactions}
    assert {row["data-call-key"] for row in page.rows} == keys
    assert not any("hidden" in row["class"] for row in page.rows)
    text = "".join(page.text)
    assert f"{len(keys)} of {len(keys)} shown" in text


@pytest.mark.skipif(find_chromium() is None, reason="no Chromium installed")
def test_the_browser_check_sees_a_script_error(tmp_path: Path) -> None:
    """The marker works: a page whose script throws is reported as failing."""
    broken = tmp_path / "broken.html"
    from cassette_cli.html_report import ERROR_HOOK

    broken.write_text(
        f"<!doctype html><html><head><script>{ERROR_HOOK}</script></head>"
        "<body><script>undefinedFunction();</script></body></html>",
        encoding="utf-8",
    )
    browser = find_chromium()
    assert browser is not None
    assert "data-script-error" in parse(dump_dom(browser, broken)).root
