"""`cassette report`: one self-contained, escaped, metadata-only HTML page (issue 25).

The DOM-level test always runs (Python's html.parser); the browser test runs where a
Chromium is installed (`.ci/run` installs Debian's) and is skipped elsewhere.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cassette_cli import main
from cassette_format import load_cassette
from cli.recorded_runs import CANARY, HOSTILE, record
from support.chromium import dump_dom, find_chromium

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


def test_the_timeline_overlaps_siblings_and_nests_children(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    _, new = recorded
    out = tmp_path / "report.html"
    assert report(str(new), "-o", str(out))[0] == 0
    page = parse(out.read_text(encoding="utf-8"))
    spans = [
        (float(bar["data-start-ms"]), float(bar["data-start-ms"]) + float(bar["data-duration-ms"]))
        for bar in page.bars
    ]
    rows = [(row["data-label"], int(row["data-depth"])) for row in page.rows]
    top = [index for index, (_, depth) in enumerate(rows) if depth == 0]
    # Siblings started together: every pair of top-level spans overlaps in time.
    assert all(spans[a][0] <= spans[b][1] and spans[b][0] <= spans[a][1] for a in top for b in top)
    inner = next(index for index, (label, _) in enumerate(rows) if label == "inner")
    assert rows[inner - 1] == ("alpha", 0)  # drawn right under its parent, one level deeper
    assert rows[inner][1] == 1
    assert spans[inner - 1][0] <= spans[inner][0]
    assert spans[inner][1] <= spans[inner - 1][1] + 1.0  # within its parent (ms rounding)


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
