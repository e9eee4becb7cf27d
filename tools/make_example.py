"""Write src/gradeframe/data/example.jsonl: the bundled example, by hand, with no randomness.

Run from the repository root: ``python tools/make_example.py``. The committed data file is the
source of truth; this script only records how it was written. The questions are about
``src/gradeframe/data/example_document.md``; four made-up models answer each of them.

Every failure kind occurs, and so do the number traps: "145.2" is not "45.2", "12" is not
"-12", "45.25" is not "45.2", "3,120" is not "312", while "1,204" and "1 204" (thin space) are
"1204" and "12–15" contains "15".
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "gradeframe" / "data" / "example.jsonl"

MODELS = ("atlas-large", "atlas-small", "beacon-7b", "cedar-mini")
NID = "NOT_IN_DOCUMENT"

# question_id, question, acceptable answers, correct phrasings (models take turns)
QUESTIONS: list[tuple[str, str, list[str], list[str]]] = [
    (
        "q01",
        "In what year was Hallam Forge founded?",
        ["1987"],
        ["It was founded in 1987.", "1987"],
    ),
    (
        "q02",
        "Who founded the company?",
        ["Margaret Hale"],
        ["Margaret Hale founded it.", "Margaret Hale"],
    ),
    (
        "q03",
        "How many units of cookware were produced in 2023?",
        ["12400"],
        ["12,400 units.", "The works produced 12,400 units of cookware in 2023."],
    ),
    (
        "q04",
        "How many tonnes of iron did the foundry melt?",
        ["1204"],
        ["1\u2009204 tonnes.", "The foundry melted 1,204 tonnes of iron."],
    ),
    (
        "q05",
        "What did the new induction furnace cost?",
        ["2.35 million", "2.35m", "2350000"],
        ["It cost £2.35 million.", "£2.35m"],
    ),
    ("q06", "What was revenue in 2023?", ["45.2"], ["Revenue was £45.2 m.", "£45.2m"]),
    (
        "q07",
        "What was revenue in 2022?",
        ["41.8"],
        ["£41.8 m in 2022.", "Revenue in 2022 was £41.8 million."],
    ),
    (
        "q08",
        "What was the operating margin?",
        ["8.6%", "8.6 per cent"],
        ["The operating margin was 8.6%.", "8.6%"],
    ),
    (
        "q09",
        "What share of revenue came from exports?",
        ["38%", "38 per cent"],
        ["Exports were 38% of revenue.", "38%"],
    ),
    (
        "q10",
        "Which countries are the largest export markets?",
        ["Germany and Japan", "Japan and Germany"],
        ["Germany and Japan.", "Mostly Germany and Japan."],
    ),
    (
        "q11",
        "How many people did the company employ at the end of 2023?",
        ["312"],
        ["312 people.", "The company employed 312 people at the end of the year."],
    ),
    (
        "q12",
        "How many of the staff were apprentices?",
        ["41"],
        ["41 apprentices.", "41 of them were apprentices."],
    ),
    ("q13", "What was staff turnover?", ["6.5%"], ["Turnover fell to 6.5%.", "6.5%"]),
    (
        "q14",
        "How long does standard delivery take?",
        ["12-15 working days", "12 to 15 working days"],
        ["12–15 working days.", "Standard delivery takes 12-15 working days."],
    ),
    (
        "q15",
        "What is the longest standard delivery time, in working days?",
        ["15"],
        ["Up to 15 working days.", "Standard delivery takes 12–15 working days."],
    ),
    (
        "q16",
        "How long does express delivery take?",
        ["3 days", "three days"],
        ["3 days.", "Express delivery takes three days."],
    ),
    (
        "q17",
        "At what temperature is the oil warehouse kept?",
        ["-12"],
        ["It is kept at −12 °C.", "-12 °C"],
    ),
    (
        "q18",
        "How long was the longest furnace campaign?",
        ["145 days"],
        ["145 days without a shutdown.", "It ran for 145 days."],
    ),
    (
        "q19",
        "How large is the works site?",
        ["2.3 hectares", "2.3 ha"],
        ["2.3 hectares.", "The site covers 2.3 ha."],
    ),
    ("q20", "In which city will the second showroom open?", ["Leeds"], ["Leeds.", "In Leeds."]),
    (
        "q21",
        "When will the second showroom open?",
        ["2025"],
        ["In 2025.", "The board expects to open it in 2025."],
    ),
    (
        "q22",
        "Who is the chief executive?",
        ["Daniel Okafor"],
        ["Daniel Okafor.", "The chief executive is Daniel Okafor."],
    ),
    (
        "q23",
        "What dividend per share was paid?",
        ["14.5p", "14.5 pence"],
        ["14.5p per share.", "A dividend of 14.5 pence per share."],
    ),
    ("q24", "What was operating profit?", ["3.9"], ["Operating profit was £3.9 m.", "£3.9m"]),
    (
        "q25",
        "In which city are the works?",
        ["Sheffield"],
        ["Sheffield, England.", "The works are in Sheffield."],
    ),
    (
        "q26",
        "How many patents does the company hold?",
        [NID],
        [NID, "The report does not mention any patents."],
    ),
    (
        "q27",
        "What were the company's carbon emissions in 2023?",
        [NID],
        ["The document does not state carbon emissions.", NID],
    ),
    (
        "q28",
        "Who chairs the audit committee?",
        [NID],
        [NID, "There is no information about an audit committee in the report."],
    ),
    (
        "q29",
        "What share of revenue came from France?",
        [NID],
        ["The report does not give a figure for France.", NID],
    ),
    # The reference for this one was never written: every answer is a no_reference failure.
    (
        "q30",
        "What is the company's credit rating?",
        [],
        ["The report does not give a credit rating.", NID],
    ),
]


def record(
    answer: str | None,
    *,
    text: str | None = None,
    partial: bool = False,
    notes: list[str] | None = None,
    finish: list[str] | None = None,
    status: str = "ok",
    failure_kind: str | None = None,
) -> dict[str, object]:
    """Return one output record, as a run of a reading recipe would write it."""
    return {
        "answer": answer,
        "text": text,
        "partial": partial,
        "notes": notes or [],
        "trace": [{"finish_reason": f} for f in (["stop"] if finish is None else finish)],
        "status": status,
        "failure_kind": failure_kind,
    }


# (model, question_id) -> the record that replaces the correct phrasing. The comment says what
# the grader should make of it.
OVERRIDES: dict[tuple[str, str], dict[str, object]] = {
    # atlas-large: strong
    ("atlas-large", "q10"): record(  # carried kind: the harness timed out
        None, status="error", failure_kind="timeout", finish=[]
    ),
    ("atlas-large", "q29"): record("About 5% of revenue came from France."),  # wrong
    # atlas-small
    ("atlas-small", "q06"): record("Revenue was £145.2 m."),  # wrong: 145.2 is not 45.2
    ("atlas-small", "q17"): record("It is kept at 12 °C."),  # wrong: 12 is not -12
    ("atlas-small", "q21"): record(  # budget_stop: cut off by the spending limit
        "The second showroom is planned for",
        partial=True,
        notes=["cost_cap_reached"],
        finish=["length"],
    ),
    ("atlas-small", "q23"): record(  # right: a stopped run that still found the answer
        "The dividend was 14.5p", partial=True, notes=["call_cap_reached"], finish=["length"]
    ),
    ("atlas-small", "q09"): record(  # not_in_document
        "The document does not state the export share."
    ),
    ("atlas-small", "q28"): record("The audit committee is chaired by Margaret Hale."),  # wrong
    # beacon-7b
    ("beacon-7b", "q03"): record("About 12.4 thousand units."),  # wrong
    ("beacon-7b", "q08"): record("The margin was 18.6%."),  # wrong: 18.6% is not 8.6%
    ("beacon-7b", "q12"): record(  # refusal: a refused run
        "I'm sorry, I can't help with that.", status="refused"
    ),
    ("beacon-7b", "q18"): record(  # refusal: the content filter stopped a step
        "The answer was withheld.", finish=["stop", "content_filter"]
    ),
    ("beacon-7b", "q19"): record(None),  # parse_failure: no answer text at all
    ("beacon-7b", "q20"): record(  # right: the text field is read when answer is null
        None, text="The second showroom will open in Leeds."
    ),
    ("beacon-7b", "q24"): record(  # not_in_document on an answerable question
        "Operating profit cannot be determined from the report."
    ),
    ("beacon-7b", "q27"): record("Carbon emissions were 1,250 tonnes of CO2."),  # wrong
    # cedar-mini: weak
    ("cedar-mini", "q01"): record("It was founded in 1897."),  # wrong
    ("cedar-mini", "q05"): record(None, status="error", finish=[]),  # error: a failed result
    ("cedar-mini", "q06"): record("Revenue was 45.25 million."),  # wrong: 45.25 is not 45.2
    ("cedar-mini", "q09"): record(  # carried kind
        None, status="error", failure_kind="timeout", finish=[]
    ),
    ("cedar-mini", "q11"): record("About 3,120 people."),  # wrong: 3120 is not 312
    ("cedar-mini", "q13"): record("   "),  # parse_failure: blank
    ("cedar-mini", "q14"): record(  # budget_stop: another limit refused a request
        "Standard delivery", partial=True, notes=["limit_refused"], finish=["length"]
    ),
    ("cedar-mini", "q16"): record(NID),  # not_in_document
    ("cedar-mini", "q22"): record("Margaret Hale."),  # wrong
    ("cedar-mini", "q26"): record(  # budget_stop: a stopped run did not look
        NID, partial=True, notes=["cost_cap_reached"], finish=["length"]
    ),
    ("cedar-mini", "q29"): record("France accounted for 12% of revenue."),  # wrong
}


def rows() -> list[dict[str, object]]:
    """Return the example rows, question by question, model by model."""
    out = []
    for qid, question, refs, phrasings in QUESTIONS:
        for i, model in enumerate(MODELS):
            rec = OVERRIDES.get((model, qid)) or record(phrasings[i % len(phrasings)])
            out.append(
                {
                    "question_id": qid,
                    "question": question,
                    "model": model,
                    "refs": refs,
                    "answer": rec,
                }
            )
    return out


def main() -> None:
    """Write the file."""
    used = {key for key in OVERRIDES}
    known = {(m, q[0]) for q in QUESTIONS for m in MODELS}
    assert used <= known, used - known
    with OUT.open("w", encoding="utf-8", newline="\n") as handle:
        for row in rows():
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
