"""`cassette report`: one self-contained HTML page of a cassette (issue 25).

The page has no external asset and may load nothing (its Content-Security-Policy allows only
its own inline style and script). It shows the call tree with a timeline (start and duration
per call, so concurrent siblings overlap and nested calls sit under their parent), outcome
kinds, stop-reason categories, redaction counts and, against an older cassette, the drift
kind of every call. Metadata only; every cassette-derived string passes through `_text`
(CLI-8 escaping, then HTML escaping, quotes included). No cassette data is placed inside the
script: it reads the page's own attributes. Its `window.onerror` writes `data-script-error`
on the root element, so a headless browser's DOM dump shows whether the script failed.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Final

from cassette_topology.drift import DRIFT_KINDS, DriftEntry, DriftReport
from cassette_topology.drift_terms import KIND_TITLES, entry_details, entry_keys

from cassette_cli.decimals import one_decimal
from cassette_cli.display import display
from cassette_cli.report_view import ReportCall, ReportView, removed_entries

__all__ = ["ERROR_HOOK", "html_report"]

#: The smallest bar drawn, as a share of the timeline, so an instant call stays visible.
_MIN_BAR_PERCENT: Final = 0.4
_INDENT_EM: Final = 1.25

_STYLE: Final = """
:root { color-scheme: light; --ink: #1f2328; --dim: #59636e; --line: #d1d9e0; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--ink); margin: 24px; }
h1 { font-size: 20px; margin: 0 0 8px; } h2 { font-size: 16px; margin: 24px 0 8px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.facts dt { color: var(--dim); } dl.facts dd { margin: 0; font-family: ui-monospace, monospace; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 160px; }
.card h3 { font-size: 12px; color: var(--dim); margin: 0 0 4px; text-transform: uppercase; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left;
  vertical-align: middle; }
th { font-size: 12px; color: var(--dim); }
td.call { white-space: nowrap; max-width: 38vw; overflow: hidden; text-overflow: ellipsis; }
td.call .key { font-family: ui-monospace, monospace; font-size: 12px; color: var(--dim); }
td.call .label { font-weight: 600; }
td.call .branch { color: var(--dim); }
td.lane { width: 45%; min-width: 240px; }
.track { position: relative; height: 16px; background: #f6f8fa; border-radius: 3px; }
.bar { position: absolute; top: 2px; height: 12px; border-radius: 3px; background: #8250df; }
.bar .latency { position: absolute; left: 0; top: 0; bottom: 0; background: rgba(0,0,0,.25);
  border-radius: 3px 0 0 3px; }
.bar.result { background: #1a7f37; } .bar.result-error { background: #cf222e; }
.bar.start-error { background: #9a6700; }
td.num { white-space: nowrap; }
.badge { display: inline-block; white-space: nowrap; padding: 0 6px; border-radius: 10px;
  font-size: 12px;
  border: 1px solid var(--line); }
.axis { display: flex; justify-content: space-between; font-size: 12px; color: var(--dim); }
tr.drift-unchanged td.call { border-left: 4px solid transparent; }
tr.drift-added td.call, .kind-added { border-left: 4px solid #1a7f37; }
tr.drift-removed td.call, .kind-removed { border-left: 4px solid #cf222e; }
tr.drift-request-changed td.call, .kind-request-changed { border-left: 4px solid #bf8700; }
tr.drift-parent-context-changed td.call, .kind-parent-context-changed {
  border-left: 4px solid #8250df; }
tr.drift-outcome-changed td.call, .kind-outcome-changed { border-left: 4px solid #0969da; }
tr.drift-boundary-changed td.call, .kind-boundary-changed { border-left: 4px solid #59636e; }
#script-error { display: none; color: #cf222e; font-weight: 600; }
html[data-script-error] #script-error { display: block; }
input[type=search] { width: 320px; padding: 4px 8px; margin-bottom: 8px; }
tr.hidden { display: none; }
"""

#: Runs before anything else: any later script error is written onto the root element.
ERROR_HOOK: Final = """
window.onerror = function (message) {
  document.documentElement.setAttribute("data-script-error", String(message));
};
"""

#: Filtering by call key or label, and the marker a headless test reads: rows shown.
_SCRIPT: Final = """
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.call-row"));
  var shown = document.getElementById("calls-shown");
  function apply(text) {
    var needle = text.trim().toLowerCase();
    var count = 0;
    rows.forEach(function (row) {
      var hay = (row.getAttribute("data-call-key") + " " +
                 (row.getAttribute("data-label") || "")).toLowerCase();
      var hide = needle !== "" && hay.indexOf(needle) === -1;
      row.classList.toggle("hidden", hide);
      if (!hide) { count += 1; }
    });
    shown.textContent = String(count);
  }
  document.getElementById("filter").addEventListener("input", function (event) {
    apply(event.target.value);
  });
  apply("");
  document.body.setAttribute("data-ready", "yes");
})();
"""


def _text(value: str) -> str:
    """A cassette-derived string as inert HTML text or attribute value."""
    return html.escape(display(value), quote=True)


def _ms(value: float) -> str:
    return f"{one_decimal(value)} ms"


def _percent(value: float) -> str:
    return f"{value:.4f}%"


def _bar(call: ReportCall, span: float) -> str:
    scale = 100.0 / span if span > 0 else 0.0
    left = min(call.start_ms * scale, 100.0 - _MIN_BAR_PERCENT)
    width = max(call.duration_ms * scale, _MIN_BAR_PERCENT)
    latency = 0.0 if call.duration_ms <= 0 else min(call.start_latency_ms / call.duration_ms, 1.0)
    start = _ms(call.start_ms) if call.start_known else "unknown start"
    title = (
        f"start {start}, published after {_ms(call.start_latency_ms)}, "
        f"duration {_ms(call.duration_ms)}"
    )
    return (
        f'<div class="track"><div class="bar {_text(call.outcome_kind)}" '
        f'style="left:{_percent(left)};width:{_percent(width)}" title="{_text(title)}" '
        f'data-start-ms="{call.start_ms:.3f}" data-duration-ms="{call.duration_ms:.3f}">'
        f'<div class="latency" style="width:{_percent(latency * 100.0)}"></div></div></div>'
    )


def _call_row(call: ReportCall, span: float) -> str:
    kind = call.drift or "none"
    label = "" if call.label is None else call.label
    shown_label = label or "(no label)"
    changed = call.drift if call.drift != "unchanged" else None
    drift = (
        ""
        if changed is None
        else f' <span class="badge kind-{changed}">{_text(KIND_TITLES[changed])}</span>'
    )
    branch = "└ " if call.depth else ""
    redactions = call.request_redactions + call.result_redactions
    return (
        f'<tr class="call-row drift-{_text(kind)}" data-call-key="{_text(call.call_key)}" '
        f'data-label="{_text(label)}" data-depth="{call.depth}">'
        f'<td class="call" style="padding-left:{call.depth * _INDENT_EM + 0.5:.2f}em">'
        f'<span class="branch">{branch}</span><span class="label">{_text(shown_label)}</span>'
        f'<br><span class="key">{_text(call.call_key)}</span></td>'
        f"<td>{call.sequence}</td>"
        f'<td><span class="badge">{_text(call.term)}</span>{drift}</td>'
        f"<td>{redactions}</td>"
        f'<td class="num">{_ms(call.start_ms)}</td><td class="num">{_ms(call.duration_ms)}</td>'
        f'<td class="lane">{_bar(call, span)}</td></tr>'
    )


def _counts_card(title: str, counts: Iterable[tuple[str, int]]) -> str:
    items = "".join(f"<dt>{_text(name)}</dt><dd>{count}</dd>" for name, count in counts)
    return (
        f'<div class="card"><h3>{_text(title)}</h3>'
        f'<dl class="facts">{items or "<dt>none</dt><dd>0</dd>"}</dl></div>'
    )


def _drift_rows(entries: Iterable[DriftEntry]) -> str:
    rows = []
    for entry in entries:
        details = "; ".join(entry_details(entry))
        rows.append(
            f'<tr class="drift-entry"><td class="kind-{_text(entry.kind)}">'
            f"{_text(KIND_TITLES[entry.kind])}</td>"
            f'<td class="key">{_text(entry_keys(entry))}</td>'
            f"<td>{_text(entry.label or '')}</td><td>{_text(details)}</td></tr>"
        )
    return "".join(rows)


def _drift_card(drift: DriftReport | None) -> str:
    if drift is None:
        return ""
    counts = drift.counts()
    return _counts_card("Drift", ((KIND_TITLES[kind], counts[kind]) for kind in DRIFT_KINDS))


def _drift_section(drift: DriftReport, removed: tuple[DriftEntry, ...]) -> str:
    changed = drift.changed
    table = (
        '<table id="drift-table"><thead><tr><th>Change</th><th>Call</th><th>Label</th>'
        f"<th>What differs</th></tr></thead><tbody>{_drift_rows(changed)}</tbody></table>"
        if changed
        else "<p>No call changed.</p>"
    )
    gone = (
        f"<p>{len(removed)} call(s) of the older cassette are gone: they are in this table, "
        "not in the call tree above.</p>"
    )
    return (
        f'<section id="drift"><h2>Changes against the older cassette</h2>'
        f"{table}{gone if removed else ''}</section>"
    )


def html_report(view: ReportView) -> str:
    """The whole page as one string: facts, totals, the call tree with its timeline, drift."""
    span = view.span_ms
    rows = "".join(_call_row(call, span) for call in view.calls)
    facts = (
        ("Cassette", view.cassette_id),
        ("Created", view.created_at),
        ("Provider", f"{view.provider} -> {view.upstream}"),
        ("Request storage", view.request_storage),
        ("Interactions", str(len(view.calls))),
        ("Timeline span", _ms(span)),
    )
    fact_list = "".join(f"<dt>{_text(name)}</dt><dd>{_text(value)}</dd>" for name, value in facts)
    redaction_card = _counts_card(
        "Redactions",
        (("redactions", view.redactions), ("redacted results", view.redacted_results)),
    )
    drift = "" if view.drift is None else _drift_section(view.drift, removed_entries(view))
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Cassette report {_text(view.cassette_id)}</title>"
        f"<style>{_STYLE}</style><script>{ERROR_HOOK}</script></head><body>"
        '<p id="script-error">This page\'s script failed; the tables below are complete.</p>'
        f'<header><h1>Cassette report</h1><dl class="facts">{fact_list}</dl></header>'
        '<section id="totals"><h2>Totals</h2><div class="cards">'
        f"{_counts_card('Outcome kinds', view.outcome_counts)}"
        f"{_counts_card('Stop-reason categories', view.stop_counts)}"
        f"{redaction_card}{_drift_card(view.drift)}</div></section>"
        '<section id="calls"><h2>Calls and timeline</h2>'
        '<input id="filter" type="search" placeholder="filter by call key or label" '
        'aria-label="filter calls"> '
        f'<span><span id="calls-shown">{len(view.calls)}</span> of {len(view.calls)} shown</span>'
        '<table id="call-table"><thead><tr><th>Call</th><th>Seq</th><th>Outcome</th>'
        "<th>Redactions</th><th>Start</th><th>Duration</th>"
        f'<th><div class="axis"><span>0 ms</span><span>{_ms(span)}</span></div></th></tr>'
        f"</thead><tbody>{rows}</tbody></table></section>"
        f"{drift}<script>{_SCRIPT}</script></body></html>\n"
    )
