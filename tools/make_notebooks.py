"""Write and execute the notebooks in notebooks/ (saved with their outputs).

Run from the repository root with the development environment:
``.venv/bin/python tools/make_notebooks.py [NAME.ipynb ...]`` (all notebooks without names).
tests/test_notebooks.py re-executes them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from gradeframe.kinds import CHAIN_ORDER, NO_REFERENCE

ROOT = Path(__file__).resolve().parents[1] / "notebooks"

QUICKSTART_POLARS = [
    new_markdown_cell(
        "# gradeframe quickstart (Polars)\n\n"
        "gradeframe scores model answers held in a dataframe against acceptable answers, as "
        "vectorized column operations, and explains every failure. `import gradeframe` adds a "
        "`.grade` namespace to Polars and pandas frames.\n\n"
        "This notebook uses the bundled example: four made-up models answer thirty questions "
        "about a short annual report."
    ),
    new_code_cell(
        "import polars as pl\n\nimport gradeframe as gf\n\n"
        "pl.Config.set_fmt_str_lengths(60)\npl.Config.set_tbl_cols(-1)\n"
        "pl.Config.set_tbl_width_chars(200)\n\n"
        "print(gf.example_document()[:400])"
    ),
    new_markdown_cell(
        "Each row holds a question, the model, its acceptable answers (`refs`) and the model's "
        "whole output record (`answer`, a struct with the answer text, stop flags, notes, the "
        "trace and a status)."
    ),
    new_code_cell("df = gf.example()\ndf.head(4)"),
    new_markdown_cell(
        "## Score\n\n`answer_contains` adds `correct`, `failure_kind` (null when right) and "
        "`outcome` (the folded answer). The struct's fields are read automatically."
    ),
    new_code_cell(
        "graded = df.grade.answer_contains()\n"
        'graded.select("question_id", "model", "refs", "correct", "failure_kind", "outcome")'
        ".head(8)"
    ),
    new_markdown_cell(
        "## Numbers are matched whole\n\n"
        "Thousands separators are folded away, a minus sign is part of a number, and a number "
        "inside a longer one does not count."
    ),
    new_code_cell(
        "traps = pl.DataFrame(\n"
        "    {\n"
        '        "answer": ["Revenue was £145.2 m.", "Revenue was £45.2m.", "1\\u2009204 tonnes",\n'
        '                   "It is kept at 12 °C.", "It is kept at −12 °C.",\n'
        '                   "12–15 working days"],\n'
        '        "refs": ["45.2", "45.2", "1204", "-12", "-12", "15"],\n'
        "    }\n"
        ")\n"
        "traps.grade.answer_contains()"
    ),
    new_markdown_cell(
        "The same rule as an expression, for use inside your own `select` or `with_columns`:"
    ),
    new_code_cell('traps.select(gf.answer_contains("answer", "refs")).unnest("answer_contains")'),
    new_markdown_cell(
        "## Report\n\nOne row per group: accuracy with its 95 % Wilson interval, and a count "
        "per failure kind (the seven standard kinds always, then any kind a row carried, "
        "here `timeout`)."
    ),
    new_code_cell('graded.grade.report("model")'),
    new_markdown_cell("A LazyFrame stays lazy until you collect it:"),
    new_code_cell('gf.example().lazy().grade.answer_contains().grade.report("model").collect()'),
    new_markdown_cell(
        "## Failures\n\nThe rows that are not right, with the answer and the acceptable answers "
        "shown (cut to `gf.MAX_METADATA_LENGTH` characters)."
    ),
    new_code_cell(
        'graded.grade.failures(kind="wrong").select(\n'
        '    "question_id", "model", "actual", "expected"\n'
        ")"
    ),
]

QUICKSTART_PANDAS = [
    new_markdown_cell(
        "# gradeframe quickstart (pandas)\n\n"
        "The pandas accessor sends the columns a call needs to Polars through Arrow, runs the "
        "same code, and gives the results back on your frame, with its index. The answers are "
        "the same as with Polars."
    ),
    new_code_cell(
        "import pandas as pd\n\nimport gradeframe as gf\n\n"
        'pd.set_option("display.max_columns", None)\npd.set_option("display.width", 200)\n\n'
        "df = gf.example().to_pandas()\n"
        'df[["question_id", "model", "refs", "answer"]].head(3)'
    ),
    new_markdown_cell(
        "The output record is a column of dicts; `answer_contains` reads its fields."
    ),
    new_code_cell(
        "graded = df.grade.answer_contains()\n"
        'graded[["question_id", "model", "correct", "failure_kind", "outcome"]].head(8)'
    ),
    new_markdown_cell("A plain text column works too, with one acceptable answer per row:"),
    new_code_cell(
        "small = pd.DataFrame(\n"
        "    {\n"
        '        "answer": ["It made 12,400 units.", "About 145.2 m", "NOT_IN_DOCUMENT", None],\n'
        '        "refs": ["12400", "45.2", "NOT_IN_DOCUMENT", "7"],\n'
        "    },\n"
        '    index=["a", "b", "c", "d"],\n'
        ")\n"
        "small.grade.answer_contains()"
    ),
    new_markdown_cell("## Report and failures"),
    new_code_cell('graded.grade.report("model")'),
    new_code_cell(
        'graded.grade.failures(kind=["refusal", "budget_stop"])[\n'
        '    ["question_id", "model", "failure_kind", "actual", "expected"]\n'
        "]"
    ),
    new_markdown_cell("The Series accessor folds text the same way the scorer does:"),
    new_code_cell('pd.Series(["1\\u2009204 Tonnes", "  12–15 days ", "−12 °C"]).grade.fold()'),
]

# When each failure kind applies; the table lists them in the order the chain tries them,
# taken from gradeframe (gradeframe.kinds.CHAIN_ORDER), so the notebook cannot drift from it.
KIND_WHEN = {
    "no_reference": "the item has no usable acceptable answer",
    "error": 'the run failed (`status == "error"`)',
    "parse_failure": "there is no answer text",
    "budget_stop": "a spending or call limit stopped a partial run",
    "refusal": "the model refused or a content filter stopped it",
    "not_in_document": "the model said the document does not hold the answer, but it does",
    "wrong": "anything else, including any answer to an unanswerable question",
}
KIND_ROWS = [
    row
    for kind in CHAIN_ORDER
    for row in (
        [f"| `{kind}` | {KIND_WHEN[kind]} |"]
        + (
            ["| *carried* | the row carries its own kind (here `timeout`) |"]
            if kind == NO_REFERENCE
            else []
        )
    )
]

FAILURE_ANALYSIS = [
    new_markdown_cell(
        "# Failure analysis\n\n"
        "Accuracy alone does not say what to fix. gradeframe gives every wrong answer a "
        "failure kind: the first of these that applies, tried in this order "
        "(`gradeframe.kinds.CHAIN_ORDER`; a stop or a refusal comes before `parse_failure`, "
        "since it is why a reply has no text). The report counts them in the columns of "
        "`gradeframe.KINDS`.\n\n"
        "| kind | when |\n|---|---|\n" + "\n".join(KIND_ROWS)
    ),
    new_code_cell(
        "import polars as pl\n\nimport gradeframe as gf\n\n"
        "pl.Config.set_fmt_str_lengths(70)\npl.Config.set_tbl_cols(-1)\n"
        "pl.Config.set_tbl_rows(40)\npl.Config.set_tbl_width_chars(200)\n\n"
        "graded = gf.example().grade.answer_contains()\n"
        'report = graded.grade.report("model")\n'
        "report"
    ),
    new_markdown_cell(
        "## The chart\n\nLeft, failures by kind per model; right, accuracy with its 95 % "
        "Wilson interval. With thirty questions per model the intervals are wide: the gap "
        "between neighbours is not settled by this sample. (Needs "
        "`pip install 'gradeframe[chart]'`.)"
    ),
    new_code_cell('graded.grade.chart("model", title="The bundled example")'),
    new_markdown_cell(
        "## Which failures are the model's fault?\n\n"
        "`no_reference`, carried kinds and `error` are failures of the data or the harness, "
        "not of the model. Leaving them out keeps this ranking but changes every accuracy "
        "(and `n`):"
    ),
    new_code_cell(
        'harness = ["no_reference", "error", "timeout"]\n'
        'fair = graded.filter(~pl.col("failure_kind").is_in(harness).fill_null(False))\n'
        'gf.report(fair, "model").select("model", "n", "n_correct", "accuracy", "ci_low", '
        '"ci_high")'
    ),
    new_markdown_cell(
        "## Reading the wrong answers\n\nThe number traps show up here: `145.2` is not "
        "`45.2`, `45.25` is not `45.2`, `3,120` is not `312`, and `12 °C` is not `-12`."
    ),
    new_code_cell(
        'gf.failures(graded, kind="wrong").select("question_id", "model", "actual", "expected")'
    ),
    new_markdown_cell(
        "## Unanswerable questions\n\n"
        "On a question labelled `NOT_IN_DOCUMENT`, the right answer is a report that the "
        "document does not hold it. A not-found report from a run that was stopped is a "
        "`budget_stop`: a reader that ran out of budget did not look."
    ),
    new_code_cell(
        'unanswerable = graded.filter(pl.col("refs").list.contains("NOT_IN_DOCUMENT"))\n'
        'unanswerable.select("question_id", "model", "correct", "failure_kind", "outcome")'
    ),
    new_markdown_cell(
        "Failure counts per question show which questions some model misses, and how:"
    ),
    new_code_cell(
        'gf.report(graded, "question_id").filter(pl.col("n_correct") < pl.col("n")).select(\n'
        '    "question_id", "n", "n_correct", *gf.KINDS, "timeout"\n'
        ")"
    ),
]


YOUR_OWN_FILE = [
    new_markdown_cell(
        "# Grading your own file\n\n"
        "Your runs are in a CSV file (or JSON Lines): one row per question and model, with the "
        "model's reply, perhaps a short final answer, and the acceptable answers. This notebook "
        "starts from such a file, `my_runs.csv` beside it, and grades it in Python and on the "
        "command line."
    ),
    new_code_cell('from pathlib import Path\n\nprint(Path("my_runs.csv").read_text())'),
    new_markdown_cell(
        "## Read it as the command line does\n\n"
        "`gf.read_table` reads the file exactly as `gradeframe score` does: every CSV cell is "
        "text (nothing is guessed: the answer `007` stays `007`, and the answer `NA`, "
        "Namibia's country code, stays `NA`), and a `gold` cell that holds a JSON list is a "
        "list of acceptable answers while any other cell is one answer. This file mixes both."
    ),
    new_code_cell(
        "import polars as pl\n\nimport gradeframe as gf\n\n"
        "pl.Config.set_fmt_str_lengths(40)\npl.Config.set_tbl_cols(-1)\npl.Config.set_tbl_rows(20)\n"
        "pl.Config.set_tbl_width_chars(200)\npl.Config.set_tbl_hide_dataframe_shape(True)\n\n"
        'runs = gf.read_table("my_runs.csv", answer="response", refs="gold")\n'
        'runs.select("question_id", "model", "response", "gold")'
    ),
    new_markdown_cell(
        "**pandas changes cells by default.** `pd.read_csv` reads `NA` (and `N/A`, `None`, "
        "`null`, ...) as a missing value and a column of digits as numbers (`007` becomes 7). "
        "Here Namibia's answer and its acceptable answer both vanish. "
        "`keep_default_na=False, dtype=str` reads every cell as the text it is, and then "
        "pandas and `read_table` give the same verdicts."
    ),
    new_code_cell(
        "import pandas as pd\n\n"
        'as_guessed = pd.read_csv("my_runs.csv")\n'
        'as_text = pd.read_csv("my_runs.csv", keep_default_na=False, dtype=str)\n'
        'print(as_guessed.loc[[12, 13], ["model", "response", "gold"]])\n'
        'print(as_text.loc[[12, 13], ["model", "response", "gold"]])\n'
        'from_pandas = as_text.grade.answer_contains("response", "gold")["correct"].tolist()\n'
        'from_table = runs.grade.answer_contains("response", "gold")["correct"].to_list()\n'
        "print(from_pandas == from_table)"
    ),
    new_markdown_cell(
        "## answer_contains: is an acceptable answer in the reply?\n\n"
        'Numbers are matched whole ("12" is not in "-12", "1,240" is not "12400"), '
        "thousands separators are folded away, and `failure_kind` says why a row is not right: "
        "an empty reply is a `parse_failure`, not a wrong answer. `NOT_IN_DOCUMENT` marks a "
        "question the document cannot answer: saying so is right there."
    ),
    new_code_cell(
        'graded = runs.grade.answer_contains("response", "gold")\n'
        'graded.select("question_id", "model", "response", "correct", "failure_kind")'
    ),
    new_code_cell('graded.grade.report(by="model")'),
    new_markdown_cell(
        "## The matchers: when you have a short final answer\n\n"
        "Each matcher adds `correct` and `expectation` (plus what makes a failure debuggable). "
        "`exact_match` compares text after stripping and lower-casing (`fold=True` also folds "
        'numbers); `within` reads a number from text ("12,400" is 12400) and allows a '
        "tolerance; `includes` needs every needle; `matches` takes a regular expression."
    ),
    new_code_cell(
        'runs.grade.exact_match("final", pl.col("gold").list.first()).select(\n'
        '    "question_id", "model", "final", "correct", "expectation"\n'
        ")"
    ),
    new_code_cell(
        'numbers = runs.filter(pl.col("number").is_not_null()).with_columns(\n'
        '    pl.col("number").cast(pl.Float64)\n'
        ")\n"
        'numbers.grade.within("final", "number", percent=1).select(\n'
        '    "question_id", "model", "final", "number", "correct", "difference"\n'
        ")"
    ),
    new_code_cell(
        'okafor = runs.filter(pl.col("question_id") == "q5")\n'
        'okafor.grade.includes("response", ["okafor"]).select(\n'
        '    "model", "response", "correct", "missing"\n'
        ")"
    ),
    new_code_cell(
        'runs.filter(pl.col("question_id") == "q1").grade.matches("final", r"^\\d{4}$").select(\n'
        '    "model", "final", "correct", "expectation"\n'
        ")"
    ),
    new_markdown_cell(
        "## The same file on the command line\n\n"
        "`gradeframe score` reads the CSV as text too, reads a `gold` cell holding a JSON list "
        "as a list, and prints the report (in a terminal: `gradeframe score my_runs.csv "
        "--answer response --refs gold --by model`). `-o` writes the graded rows; scoring "
        "that file again gives the same report."
    ),
    new_code_cell(
        "import subprocess\nimport sys\n\n\n"
        "def gradeframe(*args):\n"
        '    """Run `gradeframe ARGS...` as a terminal would, and show what it prints."""\n'
        '    command = [sys.executable, "-m", "gradeframe.cli", *args]\n'
        "    result = subprocess.run(command, capture_output=True, text=True)\n"
        '    print(result.stdout + result.stderr, end="")\n\n\n'
        'gradeframe("score", "my_runs.csv", "--answer", "response", "--refs", "gold", '
        '"--by", "model",\n'
        '           "-o", "/tmp/my_runs_graded.csv")'
    ),
    new_code_cell(
        'gradeframe("score", "/tmp/my_runs_graded.csv", "--answer", "response", "--refs", '
        '"gold", "--by", "model")'
    ),
    new_markdown_cell(
        "The matchers run on the command line too: `--grader NAME` with the column it compares "
        "with (`--expected`) and its options (`--option KEY=VALUE`)."
    ),
    new_code_cell(
        'gradeframe("score", "my_runs.csv", "--answer", "final", "--grader", "exact_match",\n'
        '           "--expected", "gold", "--option", "fold=true", "--by", "model", "-q")'
    ),
    new_markdown_cell(
        "Errors name the flag you typed and, for a bad cell, the row; the exit status is 2."
    ),
    new_code_cell(
        'gradeframe("score", "my_runs.csv", "--answer", "response", "--refs", "gold_answers")'
    ),
]

COMPARING_MODELS = [
    new_markdown_cell(
        "# Comparing models\n\n"
        "Is model B better than model A on these questions, or is that noise? Two accuracy "
        "intervals that overlap cannot say: the models answered the same questions, so their "
        "accuracies are correlated. `compare` looks at the paired differences on the shared "
        "questions instead. And when every question runs several epochs, the rows of one "
        "question are not independent: `report(cluster=...)` widens the interval to match.\n\n"
        "This notebook uses three models of the bundled example."
    ),
    new_code_cell(
        "import numpy as np\nimport polars as pl\n\nimport gradeframe as gf\n\n"
        "pl.Config.set_tbl_cols(-1)\npl.Config.set_tbl_width_chars(200)\n"
        "pl.Config.set_float_precision(4)\npl.Config.set_tbl_hide_dataframe_shape(True)\n\n"
        'three = gf.example().filter(pl.col("model").is_in(["atlas-large", "beacon-7b", '
        '"cedar-mini"]))\n'
        "graded = three.grade.answer_contains()\n"
        'graded.grade.report("model").select("model", "n", "accuracy", "ci_low", "ci_high")'
    ),
    new_markdown_cell(
        "The intervals of all three overlap. Compare them pairwise on the thirty shared "
        "questions: `difference` is b − a, its interval comes from the per-question "
        "differences, `only_a`/`only_b` count the questions only one of the two got right, "
        "and `p_value` is McNemar's exact test on those two counts."
    ),
    new_code_cell(
        "graded.grade.compare().select(\n"
        '    "a", "b", "n_items", "accuracy_a", "accuracy_b", "difference", "ci_low", '
        '"ci_high",\n'
        '    "only_a", "only_b", "p_value"\n'
        ")"
    ),
    new_markdown_cell(
        "`atlas-large` is ahead of `cedar-mini` beyond noise (the interval of the difference "
        "stays below 0 and p ≈ 0.01); the other two gaps could be chance. Against a baseline, "
        "and as a chart (the dashed line is no difference):"
    ),
    new_code_cell(
        'graded.grade.compare_chart(baseline="atlas-large", title="Against atlas-large")'
    ),
    new_markdown_cell(
        "## Epochs: rows that are not independent\n\n"
        "Suppose every question ran five epochs. Here the epochs are simulated: each epoch "
        "repeats the graded verdict, flipped at random for one answer in ten (a fixed seed). "
        "Wilson's interval takes the 150 rows of a model as independent; the clustered one "
        '(`cluster="question_id"`, the CR0 standard error of Miller 2024) counts what the '
        "five epochs of one question really add."
    ),
    new_code_cell(
        "rng = np.random.default_rng(2024)\n"
        "epochs = pl.concat(\n"
        "    [graded.with_columns(epoch=pl.lit(e)) for e in range(5)]\n"
        ").with_columns(\n"
        '    correct=pl.col("correct") ^ pl.Series(rng.random(5 * graded.height) < 0.1)\n'
        ")\n"
        'naive = epochs.grade.report("model", failure_kind=None)\n'
        'clustered = epochs.grade.report("model", cluster="question_id", failure_kind=None)\n'
        "widths = naive.select(\n"
        '    "model",\n'
        '    "n",\n'
        '    "accuracy",\n'
        '    (pl.col("ci_high") - pl.col("ci_low")).alias("wilson_width"),\n'
        ").join(\n"
        "    clustered.select(\n"
        '        "model", "n_clusters", (pl.col("ci_high") - pl.col("ci_low")).alias('
        '"clustered_width")\n'
        "    ),\n"
        '    on="model",\n'
        ")\n"
        'widths.with_columns((pl.col("clustered_width") / pl.col("wilson_width")).alias("ratio"))'
    ),
    new_markdown_cell(
        "The clustered interval is 1.5 to 2 times as wide as Wilson's: five epochs of thirty "
        "questions tell much less than 150 questions would. With several rows per question, "
        "`compare` "
        "averages each question's epochs first, and its p-value is a paired t-test on the "
        "per-question differences:"
    ),
    new_code_cell(
        'epochs.grade.compare().select("a", "b", "n_items", "difference", "ci_low", "ci_high", '
        '"p_value")'
    ),
    new_markdown_cell(
        "## Repeated samples: pass@k, consistency, flaky questions\n\n"
        "Several samples per question also answer other questions "
        "([docs/samples.md](../docs/samples.md)). `pass_at_k` estimates the chance that one of "
        "k samples is right (the unbiased estimator of Chen et al. 2021, averaged over "
        "questions, with its interval), and `pass_all_k` the chance that all k are. The item "
        "is found by default (`question_id` here), the groups too (`model`)."
    ),
    new_code_cell("epochs.grade.pass_at_k([1, 2, 5])"),
    new_markdown_cell(
        "`consistency` counts the questions each model always gets right, always gets wrong, or "
        "gets right only sometimes (`flaky`); `item_variance` is the mean of p(1 − p) over "
        "questions. Pass `answer=` to add the majority-vote accuracy on folded answers."
    ),
    new_code_cell("epochs.grade.consistency()"),
    new_markdown_cell(
        "`flaky` lists those questions, the most unstable first (accuracy nearest one half); "
        "with `answer=` each comes with its distinct answers, their votes and verdicts."
    ),
    new_code_cell('epochs.grade.flaky().filter(pl.col("model") == "cedar-mini").head(5)'),
    new_code_cell('epochs.grade.pass_at_k_chart(title="pass@k over five epochs")'),
    new_markdown_cell(
        "## Which model is worth its price\n\n"
        "Accuracy is half the question; the other half is what it costs. `report(cost=...)` "
        "adds token sums, the cost in dollars, the cost per right answer, latency percentiles "
        "and the Pareto frontier (no other model both more accurate and cheaper), from the "
        "token columns the log readers write and prices you give in dollars per million "
        "tokens (gradeframe ships none: prices change). Here the epochs get made-up token "
        "counts and times: `atlas-large` writes long answers, and one `cedar-mini` row lost its "
        "usage record ([docs/reports.md](../docs/reports.md#cost-tokens-and-latency-cost))."
    ),
    new_code_cell(
        "rng = np.random.default_rng(7)\n"
        "rows = epochs.height\n"
        'long = (pl.col("model") == "atlas-large").cast(pl.Int64)\n'
        "costed = epochs.with_columns(\n"
        "    input_tokens=pl.Series(rng.integers(300, 900, rows)),\n"
        "    output_tokens=pl.Series(rng.integers(40, 200, rows)) + 400 * long,\n"
        "    seconds=pl.Series(rng.gamma(2.0, 0.8, rows)) + 2.0 * long,\n"
        ").with_columns(\n"
        "    input_tokens=pl.when(\n"
        '        (pl.col("model") == "cedar-mini") & (pl.col("question_id") == "q07") '
        '& (pl.col("epoch") == 3)\n'
        '    ).then(None).otherwise(pl.col("input_tokens"))\n'
        ")\n"
        "prices = {\n"
        '    "atlas-large": {"input": 3.0, "output": 15.0},\n'
        '    "beacon-7b": {"input": 0.2, "output": 0.2},\n'
        '    "cedar-mini": {"input": 0.15, "output": 0.6},\n'
        "}\n"
        'costed.grade.report("model", cost=prices).select(\n'
        '    "model", "accuracy", "input_tokens", "output_tokens", "cost", "cost_per_correct",\n'
        '    "seconds_p50", "seconds_p95", "pareto", "cost_unknown",\n'
        ")"
    ),
    new_markdown_cell(
        "Every row is charged, retries and errored attempts included. `cedar-mini`'s cost is "
        "null, not a figure that leaves out the row without usage (`cost_unknown` counts it), "
        "so it takes no part in the frontier: fix the record or drop the row knowingly. "
        "`beacon-7b` is on the frontier next to `atlas-large`: less accurate, but far cheaper. "
        "Whether `atlas-large`'s lead is worth its price is then a question for `compare` "
        "above. `graded.grade.html(path, cost=prices)` draws the same figures as a table and a "
        "chart of accuracy against cost."
    ),
]


EXTRACTION_AND_CHOICE = [
    new_markdown_cell(
        "# Extraction and multiple choice\n\n"
        "Models reason before they answer. To score them, pull the final answer out of the "
        "reply first (`gf.extract_answer`, `gf.extract_number`, `gf.extract_boxed`, "
        "`gf.extract`), then score it; multiple-choice replies are scored by the letters they "
        "chose (`choice`). Every step is a Polars expression over the whole column.\n\n"
        "This notebook scores two small made-up runs of two models: a multiple-choice set and a "
        "GSM8K-style set of arithmetic word problems."
    ),
    new_code_cell(
        "import polars as pl\n\nimport gradeframe as gf\n\n"
        "pl.Config.set_fmt_str_lengths(60)\npl.Config.set_tbl_cols(-1)\n"
        "pl.Config.set_tbl_width_chars(200)\npl.Config.set_tbl_rows(20)"
    ),
    new_markdown_cell(
        "## Multiple choice\n\n"
        "Each reply names its option in its own way: a bare letter, a letter with its option "
        "text, an `ANSWER:` line after some reasoning, two letters for a two-answer item, or "
        'no letter at all (the "D" of "Don\'t know" is not a choice).'
    ),
    new_code_cell(
        "mc = pl.DataFrame(\n"
        "    {\n"
        '        "model": ["m1"] * 6 + ["m2"] * 6,\n'
        '        "item": [1, 2, 3, 4, 5, 6] * 2,\n'
        '        "key": ["B", "C", "A", "AC", "D", "B"] * 2,\n'
        '        "reply": [\n'
        '            "B",\n'
        '            "(C) Paris",\n'
        '            "Oxygen is the lightest of the three.\\nANSWER: A",\n'
        '            "A and C",\n'
        '            "D. 1969",\n'
        '            "The answer is (B).",\n'
        '            "A",\n'
        '            "C) Paris",\n'
        '            "ANSWER: B\\nOn reflection, no.\\nANSWER: A",\n'
        '            "C",\n'
        '            "Don\'t know",\n'
        '            "b",\n'
        "        ],\n"
        "    }\n"
        ")\n"
        'mc_graded = mc.grade.choice("reply", "key")\n'
        'mc_graded.select("model", "item", "reply", "key", "chosen", "correct")'
    ),
    new_code_cell(
        'mc_graded.group_by("model").agg(pl.len().alias("n"), pl.col("correct").mean())'
        '.sort("model")'
    ),
    new_markdown_cell(
        "## A GSM8K-style set\n\n"
        "The eight questions of the chain-of-thought prompt of lm-evaluation-harness's "
        "`gsm8k_cot` task, with their answers written the GSM8K way (`#### 6`). The replies show "
        'the forms models use: GSM8K\'s `####`, "The answer is ...", an `ANSWER:` line, a '
        "LaTeX box, a self-correction, money and thousands separators, and a reply without any "
        "final answer."
    ),
    new_code_cell(
        "gsm = pl.DataFrame(\n"
        "    {\n"
        '        "item": list(range(1, 9)) * 2,\n'
        '        "model": ["m1"] * 8 + ["m2"] * 8,\n'
        '        "solution": [\n'
        '            "21 - 15 = 6.\\n#### 6", "3 + 2 = 5.\\n#### 5", "74 - 35 = 39.\\n#### 39",\n'
        '            "20 - 12 = 8.\\n#### 8", "5 + 4 = 9.\\n#### 9", "9 + 20 = 29.\\n#### 29",\n'
        '            "35 - 2 = 33.\\n#### 33", "23 - 15 = 8.\\n#### 8",\n'
        "        ] * 2,\n"
        '        "reply": [\n'
        '            "21 - 15 = 6 trees.\\n#### 6",\n'
        '            "3 + 2 = 5. The answer is 5.",\n'
        '            "They had 32 + 42 = 74 and ate 35.\\nANSWER: 39",\n'
        '            "He gave Denny $\\\\boxed{8}$ lollipops.",\n'
        '            "5 + 4 = 9. The answer is 9.",\n'
        '            "9 + 20 = 29 computers.\\n#### 29",\n'
        '            "58 - 23 = 35, 35 - 2 = 33.\\nANSWER: 33",\n'
        '            "She has $8.00 left.",\n'
        '            "21 - 15 = 6.\\n#### 6",\n'
        '            "ANSWER: 6\\nWait: 3 + 2 = 5.\\nANSWER: 5",\n'
        '            "74 - 35 = 39 pieces, the answer is 39.",\n'
        '            "20 - 12 = 8.\\n#### 8",\n'
        '            "I am not sure how many toys he has.",\n'
        '            "4 days × 5 = 20 computers were added.\\n#### 20",\n'
        '            "He has 33 golf balls.\\n**Answer:** **33**",\n'
        '            "23 - 15 = 8.\\n#### 8",\n'
        "        ],\n"
        "    }\n"
        ")\n"
        "gsm = gsm.with_columns(\n"
        '    truth=gf.extract_number(gf.extract_answer("solution", marker="####")),\n'
        ")\n"
        'gsm.select("item", "model", "truth", "reply")'
    ),
    new_markdown_cell(
        "Three ways to read the replies. `extract_answer` takes the last `ANSWER:` (or `####`) "
        "line, so a reply that corrects itself is read at its correction; `extract_number` takes "
        "the last number of the whole reply; `extract_boxed` reads LaTeX boxes."
    ),
    new_code_cell(
        "read = gsm.with_columns(\n"
        '    answer_line=gf.extract_answer("reply"),\n'
        '    hashes=gf.extract_answer("reply", marker="####"),\n'
        '    boxed=gf.extract_boxed("reply"),\n'
        '    last_number=gf.extract_number("reply"),\n'
        ")\n"
        'read.select("item", "model", "answer_line", "hashes", "boxed", "last_number")'
    ),
    new_markdown_cell(
        "Scored strictly (the reply must give its answer in the `####` form the prompt asked "
        "for), a reply without that line is a `parse_failure`, not a wrong answer:"
    ),
    new_code_cell(
        'strict = read.with_columns(refs=pl.col("truth").cast(pl.Int64).cast(pl.String))\n'
        'strict = strict.grade.answer_contains("hashes", "refs")\n'
        'strict.select("item", "model", "hashes", "refs", "correct", "failure_kind")'
    ),
    new_code_cell('strict.grade.report("model")'),
    new_markdown_cell(
        "Accepting any of the three final-answer forms (the first one a reply has) is one "
        "`pl.coalesce`; only the replies that never state a final answer are parse failures now:"
    ),
    new_code_cell(
        'any_form = read.with_columns(final=pl.coalesce("answer_line", "hashes", "boxed"))\n'
        'any_form = any_form.with_columns(refs=pl.col("truth").cast(pl.Int64).cast(pl.String))\n'
        'any_form.grade.answer_contains("final", "refs").grade.report("model")'
    ),
    new_markdown_cell(
        "Scored leniently (the last number of the reply, within 0.5 % of the truth), most "
        "replies count, and so does the one that corrected itself. The reply that ends on an "
        "intermediate number (`20` computers added) is still wrong:"
    ),
    new_code_cell(
        'lenient = read.grade.within("last_number", "truth", percent=0.5)\n'
        'lenient.select("item", "model", "last_number", "truth", "correct")'
    ),
    new_markdown_cell(
        "The same accuracy straight from the expressions, in a `group_by` (every gradeframe "
        "expression works inside `agg`, `over` and `when/then`):"
    ),
    new_code_cell(
        'gsm.group_by("model").agg(\n'
        "    strict=gf.answer_contains(\n"
        '        gf.extract_answer("reply", marker="####"),\n'
        '        pl.col("truth").cast(pl.Int64).cast(pl.String),\n'
        '    ).struct.field("correct").mean(),\n'
        '    lenient=gf.within(gf.extract_number("reply"), "truth", percent=0.5)\n'
        '    .struct.field("correct")\n'
        "    .mean(),\n"
        ').sort("model")'
    ),
    new_markdown_cell(
        "Math answers (MATH, AIME, AMC) are values, not texts: `\\frac{1}{2}`, `0.5` and "
        "`2/4` are one answer. `extract_boxed` reads the box, and `equivalent` compares the "
        "values: plain numbers exactly, as column operations (`method` `literal`), the rest "
        "with Math-Verify once per distinct pair (`symbolic`; see docs/equivalence.md)."
    ),
    new_code_cell(
        "math = pl.DataFrame(\n"
        "    {\n"
        '        "model": ["a", "a", "a", "b", "b", "b"],\n'
        '        "reply": [\n'
        '            "So the probability is $\\\\boxed{\\\\frac{1}{2}}$.",\n'
        '            "The area is $\\\\boxed{12.0}$ square units.",\n'
        '            "Hence $x = \\\\boxed{2\\\\sqrt{3}}$.",\n'
        '            "It is \\\\boxed{0.5}.",\n'
        '            "The area is \\\\boxed{13}.",\n'
        '            "Hence $x = \\\\boxed{\\\\sqrt{12}}$.",\n'
        "        ],\n"
        '        "gold": ["\\\\frac12", "12", "2\\\\sqrt{3}", "\\\\frac{1}{2}", "12", '
        '"2\\\\sqrt{3}"],\n'
        "    }\n"
        ")\n"
        'boxed = math.with_columns(boxed=gf.extract_boxed("reply"))\n'
        'graded = boxed.grade.equivalent("boxed", "gold")\n'
        'graded.select("model", "boxed", "gold", "correct", "method")'
    ),
    new_code_cell('graded.grade.report(by="model")'),
]


NOTEBOOKS = {
    "quickstart_polars.ipynb": QUICKSTART_POLARS,
    "quickstart_pandas.ipynb": QUICKSTART_PANDAS,
    "failure_analysis.ipynb": FAILURE_ANALYSIS,
    "your_own_file.ipynb": YOUR_OWN_FILE,
    "comparing_models.ipynb": COMPARING_MODELS,
    "extraction_and_choice.ipynb": EXTRACTION_AND_CHOICE,
}


def main(names: list[str]) -> None:
    """Write each notebook named (all without names) and execute it in place."""
    for name in names or NOTEBOOKS:
        cells = NOTEBOOKS[name]
        notebook = new_notebook(cells=cells)
        notebook.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        notebook.metadata["language_info"] = {"name": "python"}
        NotebookClient(
            notebook,
            kernel_name="python3",
            timeout=120,
            record_timing=False,
            resources={"metadata": {"path": ROOT}},
        ).execute()
        nbformat.write(notebook, ROOT / name)


if __name__ == "__main__":
    main(sys.argv[1:])
