"""A scalar reference of SPEC §13's verdict reading, one text at a time, with the `regex` module.

Independent of gradeframe.verdict: the whole text is normalised first (fullwidth forms to ASCII,
zero-width characters removed), then read with lookarounds, which state the whole-word rules
directly. JSON objects are found with Python's own decoder. The hypothesis tests in
tests/test_verdict.py hold the column code to these functions.
"""

from __future__ import annotations

import json
from typing import Any

import regex

FULLWIDTH = {c + 0xFEE0: c for c in range(0x21, 0x7F)} | {0x3000: 0x20}
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


def normalise(text: str) -> str:
    text = text.translate(FULLWIDTH)
    return regex.sub(f"[{ZERO_WIDTH}]", "", text)


def blank(text: str | None) -> bool:
    return text is None or not regex.search(f"[^\\s{ZERO_WIDTH}]", text)


EMPH = "[*_`]*"
OPEN = "[\\[(\"'\u201c\u2018\u00ab]"
CLOSE = "[\\])\"'\u201d\u2019\u00bb]"
GAP = "[\\s*_`]*"
# A marker: not glued to a word, emphasis or underscore before it.
NOT_GLUED = r"(?<![\p{L}\p{N}_*`])"

# Every occurrence of the word "grade" is a marker unless glued to a word before it (through
# emphasis and one opening bracket); its token follows its colon.
MARKER = regex.compile("(?i)grade")
UNGLUED = regex.compile(NOT_GLUED + EMPH + OPEN + "?" + EMPH + r"\Z")
TOKEN = regex.compile(
    "(?i)"
    + GAP
    + CLOSE
    + "?"
    + GAP
    + ":"
    + GAP
    + OPEN
    + "?"
    + GAP
    + r"(partially\s+correct[\p{L}\p{N}_]*|[\p{L}\p{N}_]+)"
)
TOKENS = {"c": "C", "correct": "C", "p": "P", "partial": "P", "partially correct": "P",
          "i": "I", "incorrect": "I"}  # fmt: skip
SCORES = {"C": 1.0, "P": 0.5, "I": 0.0}
NOT_OFFERED = object()


def result(verdict: Any, score: Any, failure: str | None) -> dict[str, Any]:
    if failure is not None:
        return {"verdict": None, "score": None, "grader_failure": failure}
    return {"verdict": verdict, "score": score, "grader_failure": None}


def decide(readings: list[Any], on_conflict: str) -> tuple[Any, bool]:
    if not readings:
        return None, False
    if on_conflict == "fail" and len(set(map(repr, readings))) > 1:
        return None, True
    return readings[-1], False


def read_grade(text, choices=("C", "P", "I"), on_conflict="last"):
    if blank(text):
        return result(None, None, "empty")
    readings = []
    norm = normalise(text)
    for marker in MARKER.finditer(norm):
        match = TOKEN.match(norm, marker.end())
        if not UNGLUED.search(norm[: marker.start()]) or match is None:
            continue
        token = regex.sub(r"\s+", " ", match.group(1).rstrip("_").lower())
        if token in TOKENS:
            letter = TOKENS[token]
            readings.append(letter if letter in choices else "!not_offered")
        elif regex.fullmatch("[cpi]{2,}", token):
            readings.append("!not_offered")
    last, conflict = decide(readings, on_conflict)
    if conflict:
        return result(None, None, "conflicting")
    if last is None:
        return result(None, None, "no_verdict")
    if last == "!not_offered":
        return result(None, None, "not_offered")
    return result(last, SCORES[last], None)


YES_NO = "(yes|no|y|n)"
LINE_SPACE = "[ \\t\\r]*"
BULLET = "(?:[-*+\u2022][ \\t]+)?"
VERDICT_LINE = regex.compile(
    "(?im)^" + LINE_SPACE + BULLET + EMPH + OPEN + "?" + EMPH + YES_NO
    + EMPH + CLOSE + "?" + EMPH + "[.!]?" + EMPH + LINE_SPACE + "$"
    "|^" + LINE_SPACE + BULLET + EMPH + OPEN + "?" + EMPH
    + "(?:final[ \\t]+verdict|final[ \\t]+answer|verdict|answer|judgement|judgment)"
    + EMPH + CLOSE + "?" + EMPH + LINE_SPACE + ":" + LINE_SPACE + EMPH + OPEN + "?" + EMPH
    + "(yes|no|y|n)(?![\\p{L}\\p{N}/-])"
)  # fmt: skip
OPENING = regex.compile(r"(?i)\A\s*" + EMPH + OPEN + "?" + EMPH + YES_NO + r"(?![\p{L}\p{N}/-])")
YES_NO_WORDS = {"yes": "yes", "y": "yes", "no": "no", "n": "no"}


def read_yes_no(text, on_conflict="last"):
    if blank(text):
        return result(None, None, "empty")
    norm = normalise(text)
    readings = [
        YES_NO_WORDS[(m.group(1) or m.group(2)).lower()] for m in VERDICT_LINE.finditer(norm)
    ]
    last, conflict = decide(readings, on_conflict)
    if conflict:
        return result(None, None, "conflicting")
    if last is None:
        opening = OPENING.match(norm)
        last = YES_NO_WORDS[opening.group(1).lower()] if opening else None
    if last is None:
        return result(None, None, "no_verdict")
    return result(last, 1.0 if last == "yes" else 0.0, None)


NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
SCALE = regex.compile(
    r"(?i)\[\[\s*" + NUMBER + r"\s*\]\]"
    "|" + NOT_GLUED + EMPH + OPEN + "?" + EMPH + "(?:rating|score)"
    + GAP + CLOSE + "?" + GAP + ":" + GAP + OPEN + "?" + GAP + NUMBER
    + r"|(?<![\p{L}\p{N}_.])" + NUMBER + r"\s*(?:/|out\s*of)\s*[0-9]"
)  # fmt: skip


def read_scale(text, scale, on_conflict="last"):
    if blank(text):
        return result(None, None, "empty")
    written = [
        next(g for g in m.groups() if g is not None) for m in SCALE.finditer(normalise(text))
    ]
    last, conflict = decide([float(w) for w in written], on_conflict)
    if conflict:
        return result(None, None, "conflicting")
    if last is None:
        return result(None, None, "no_verdict")
    if not scale[0] <= last <= scale[1]:
        return result(None, None, "out_of_scale")
    return result(written[-1], last, None)


def _no_constant(name: str) -> Any:
    raise ValueError(name)


DECODER = json.JSONDecoder(object_pairs_hook=lambda pairs: pairs, parse_constant=_no_constant)
JSON_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"


def _depth(value: Any) -> int:
    if isinstance(value, list) and (not value or not isinstance(value[0], tuple)):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, list):  # an object: its pairs
        return 1 + max((_depth(v) for _, v in value), default=0)
    return 0


def json_objects(text: str) -> list[list[tuple[str, Any]]]:
    """The objects in the text, left to right (nested at most three deep), as lists of pairs."""
    found, i = [], 0
    while (j := text.find("{", i)) >= 0:
        try:
            value, end = DECODER.raw_decode(text, j)
        except ValueError:
            i = j + 1
            continue
        if _depth(value) <= 3:
            found.append(value)
            i = end
        else:
            i = j + 1
    return found


PASS_WORDS = {"pass": "pass", "fail": "fail", "yes": "pass", "no": "fail"}


def _passed(value: Any) -> str | None:
    if value is True:
        return "pass"
    if value is False:
        return "fail"
    if isinstance(value, str):
        return PASS_WORDS.get(value.lower())
    return None


def _score(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and regex.fullmatch(JSON_NUMBER, value.strip(" \t\n\r")):
        return float(value.strip(" \t\n\r"))
    return None


def _last(pairs: list[tuple[str, Any]], key: str) -> Any:
    values = [v for k, v in pairs if k.lower() == key]
    return values[-1] if values else None


def truncated(text: str) -> bool:
    """Whether the text ends inside an object that never closes (begun with a key)."""
    for j in (m.start() for m in regex.finditer(r"\{", text)):
        k = j + 1
        while k < len(text) and text[k] in " \t\n\r":
            k += 1
        if k >= len(text) or text[k] != '"':
            continue
        depth, in_string, start, ok = 1, False, 0, True
        for pos in range(k, len(text)):
            char = text[pos]
            if in_string:
                if char == '"':
                    in_string = False
                    if regex.search(r"[\x00-\x1f]", text[start:pos]):
                        ok = False
                        break
                continue
            if char == '"':
                in_string, start = True, pos + 1
            elif char == "{":
                depth += 1
                if depth > 2:
                    ok = False
                    break
            elif char == "}":
                depth -= 1
                if depth == 0:
                    ok = False
                    break
        if ok:
            return True
    return False


def read_json(text, on_conflict="last"):
    if blank(text):
        return result(None, None, "empty")
    if truncated(text):
        return result(None, None, "truncated")
    readings = []
    for pairs in json_objects(text):
        passed = _passed(_last(pairs, "pass")) or _passed(_last(pairs, "verdict"))
        score = _score(_last(pairs, "score"))
        if passed is not None or score is not None:
            readings.append((passed, score))
    passes = {p for p, _ in readings if p is not None}
    if on_conflict == "fail" and len(passes) > 1:
        return result(None, None, "conflicting")
    if not readings:
        return result(None, None, "no_verdict")
    return {"verdict": readings[-1][0], "score": readings[-1][1], "grader_failure": None}


def read_verdict(text, *, scheme="grade", choices=None, scale=None, on_conflict="last"):
    if scheme == "grade":
        return read_grade(text, tuple(choices or ("C", "P", "I")), on_conflict)
    if scheme == "yes_no":
        return read_yes_no(text, on_conflict)
    if scheme == "scale":
        return read_scale(text, scale, on_conflict)
    return read_json(text, on_conflict)
