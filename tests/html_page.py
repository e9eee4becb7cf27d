"""Read a gradeframe page back: table cells by ``data-col``, failure rows, section ids.

A small parser over the standard library's :class:`html.parser.HTMLParser` (no browser), so the
page's text can be held to the functions' outputs; tests/test_html_browser.py does the same in
Chromium, after the script has run.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser
from typing import Any

import polars as pl


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[dict[str, str]]] = {}
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.sections: list[str] = []
        self._table: str | None = None
        self._in_body = False
        self._row: dict[str, Any] | None = None
        self._col: list[str] = []
        self._text: list[str] = []
        self._cells: list[str] = []
        self._cell: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section" and a.get("id"):
            self.sections.append(a["id"] or "")
        if tag == "table" and a.get("id"):
            self._table = a["id"]
            self.tables[self._table] = []
            self.rows[self._table] = []
        if self._table is None:
            return
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self._row = {"data": {}, "attrs": a, "cells": []}
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        if self._row is not None and "data-col" in a:
            self._col.append(a["data-col"] or "")
            self._text.append("")
        if tag == "span" and self._col and "data-col" not in a:
            self._col.append("")
            self._text.append("")

    def handle_endtag(self, tag: str) -> None:
        if self._table is None:
            return
        if tag in ("td", "th", "span") and self._col:
            name, text = self._col.pop(), self._text.pop()
            if name and self._row is not None:
                self._row["data"][name] = text.strip()
            if self._text:
                self._text[-1] += text
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row["cells"].append("".join(self._cell))
            self._cell = None
        if tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row["data"])
            self.rows[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._text:
            self._text[-1] += data
        if self._cell is not None:
            self._cell.append(data)


def read_page(page: str) -> _Tables:
    """Parse a page: ``.tables[id]`` (dicts of data-col text), ``.rows[id]``, ``.sections``."""
    parser = _Tables()
    parser.feed(page)
    parser.close()
    return parser


def shown(value: Any, kind: str = "proportion") -> str:
    """A value as the page writes it (the rules of gradeframe.html._page, restated)."""
    if value is None:
        return "—"
    if kind == "count":
        return str(int(value))
    if kind == "signed":
        text = f"{value:+.3f}"
        return "0.000" if text in ("+0.000", "-0.000") else text
    if kind == "p":
        return "<0.001" if value < 0.0005 else f"{value:.3f}"
    return f"{value:.3f}"


def expected_table(frame: pl.DataFrame, kinds: dict[str, str]) -> list[dict[str, str]]:
    """Rows of a function's output as the page should show them, column by column."""
    return [
        {name: shown(row[name], kind) for name, kind in kinds.items()}
        for row in frame.iter_rows(named=True)
    ]


def only(rows: list[dict[str, str]], names: list[str]) -> list[dict[str, str]]:
    return [{n: r[n] for n in names} for r in rows]


def options(page: str, select: str) -> dict[str, str]:
    """The options of a filter (``kind-filter``, ``group-filter``): {value: shown name}."""
    body = page.split(f'id="{select}"', 1)[1].split("</select>", 1)[0]
    found = re.findall(r'<option value="([^"]*)">([^<]*)</option>', body)
    return {value: unescape(name) for value, name in found if value}


def filtered(page: str, rows: list[dict[str, Any]], attribute: str, select: str) -> list[str]:
    """Each failure row's kind or group, by the name its filter option shows."""
    names = options(page, select)
    return [names[r["attrs"][attribute]] for r in rows]


def strip_tags(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)
