"""Every formula against an independent computation (scipy, statsmodels) on generated data.

The independent libraries are test-only dependencies; gradeframe computes the same numbers with
Polars expressions and NumPy. Agreement is required to 1e-9.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import special, stats
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

import gradeframe as gf
from gradeframe.compare import COMPARE_COLUMNS
from gradeframe.stats import (
    Z_95,
    adjusted_p_value,
    betainc,
    binomial_cdf_half,
    clustered_standard_error,
    cohens_kappa,
    mcnemar_p_value,
    mean_interval,
    paired_t_p_value,
    student_t_two_sided,
    wilson_interval,
)
from tests.utils import to_data

TOL = {"rtol": 1e-9, "atol": 1e-12}
SEEDS = range(6)


def close(got: Any, expected: Any) -> None:
    np.testing.assert_allclose(
        np.asarray(got, dtype=float), np.asarray(expected, dtype=float), **TOL
    )


# --------------------------------------------------------------------------------------------
# The building blocks
# --------------------------------------------------------------------------------------------


def test_z_is_the_normal_quantile() -> None:
    assert math.isclose(Z_95, stats.norm.ppf(0.975), rel_tol=1e-12)
    assert round(Z_95, 6) == 1.959964


@pytest.mark.parametrize("seed", SEEDS)
def test_betainc_against_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = np.concatenate([rng.uniform(0.05, 5, 50), rng.integers(1, 100_000, 50).astype(float)])
    b = np.concatenate([rng.uniform(0.05, 5, 50), rng.integers(1, 100_000, 50).astype(float)])
    x = rng.uniform(0, 1, 100)
    close(betainc(a, b, x), special.betainc(a, b, x))


def test_betainc_at_the_ends() -> None:
    assert betainc(np.array([2.0, 2.0]), np.array([3.0, 3.0]), np.array([0.0, 1.0])).tolist() == [
        0.0,
        1.0,
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_binomial_tail_against_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 3000, 200)
    k = (rng.random(200) * (m + 2)).astype(int) - 1
    close(binomial_cdf_half(k, m), stats.binom.cdf(k, m, 0.5))


@pytest.mark.parametrize("seed", SEEDS)
def test_student_t_tail_against_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = rng.normal(0, 4, 200)
    df = rng.integers(1, 500, 200).astype(float)
    close(student_t_two_sided(t, df), 2 * stats.t.sf(np.abs(t), df))


@pytest.mark.parametrize("seed", SEEDS)
def test_wilson_against_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 2000, 300)
    k = (rng.random(300) * (n + 1)).astype(int)
    out = pl.DataFrame({"k": k, "n": n}).select(*wilson_interval("k", "n"))
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    close(out["ci_low"], np.clip(low, 0, 1))
    close(out["ci_high"], np.clip(high, 0, 1))


@pytest.mark.parametrize("seed", SEEDS)
def test_mcnemar_exact_against_scipy_and_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    b = rng.integers(0, 60, 100)
    c = rng.integers(0, 60, 100)
    got = pl.DataFrame({"b": b, "c": c}).select(mcnemar_p_value("b", "c")).to_series()
    expected = [
        stats.binomtest(x, x + y, 0.5).pvalue if x + y else 1.0 for x, y in zip(b, c, strict=False)
    ]
    close(got, expected)
    tables = [np.array([[5, x], [y, 7]]) for x, y in zip(b[:20], c[:20], strict=False)]
    close(got[:20], [mcnemar(t, exact=True).pvalue for t in tables])


@pytest.mark.parametrize("seed", SEEDS)
def test_paired_t_against_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = []
    for size in rng.integers(2, 200, 40):
        x, y = rng.random(size), rng.random(size) + rng.normal(0, 0.1)
        d = y - x
        rows.append((d.mean(), d.std(ddof=1), size, stats.ttest_rel(y, x).pvalue))
    mean, sd, n, expected = map(list, zip(*rows, strict=True))
    frame = pl.DataFrame({"mean": mean, "sd": sd, "n": n})
    close(frame.select(paired_t_p_value("mean", "sd", "n")).to_series(), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_cohens_kappa_against_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 50, (100, 4))
    table[:, 0] += 1  # never all four zero
    got = pl.DataFrame(table, schema=["rr", "ra", "rb", "ww"], orient="row").select(
        cohens_kappa("rr", "ra", "rb", "ww")
    )
    # statsmodels' table: rows are rater a (right, wrong), columns rater b (right, wrong).
    expected = [sm_cohens_kappa(np.array([[r[0], r[1]], [r[2], r[3]]])).kappa for r in table]
    close(got.to_series(), expected)


def test_kappa_is_null_when_both_verdicts_are_one_constant() -> None:
    frame = pl.DataFrame({"rr": [9, 0], "ra": [0, 0], "rb": [0, 0], "ww": [0, 9]})
    assert frame.select(cohens_kappa("rr", "ra", "rb", "ww")).to_series().to_list() == [
        None,
        None,
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_clustered_standard_error_against_statsmodels_cr0(seed: int) -> None:
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, 25, 500)
    # Correlated within clusters: each cluster has its own rate.
    rate = rng.random(25)[clusters]
    y = (rng.random(500) < rate).astype(float)
    fit = OLS(y, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": False}
    )
    per_cluster = (
        pl.DataFrame({"g": clusters, "y": y})
        .group_by("g")
        .agg(pl.col("y").sum().alias("t"), pl.len().alias("n"))
    )
    got = per_cluster.select(clustered_standard_error("t", "n")).item()
    assert math.isclose(got, fit.bse[0], rel_tol=1e-9)


def test_mean_interval_against_scipy() -> None:
    rng = np.random.default_rng(0)
    values = rng.random(77)
    frame = pl.DataFrame({"s": [values.sum()], "q": [(values**2).sum()], "n": [77]})
    mean, low, high = frame.select(*mean_interval("s", "q", "n")).row(0)
    sem = stats.sem(values)
    close(
        [mean, low, high], [values.mean(), values.mean() - Z_95 * sem, values.mean() + Z_95 * sem]
    )


# --------------------------------------------------------------------------------------------
# The reports, end to end, on every frame type
# --------------------------------------------------------------------------------------------


def graded(seed: int, rows: int = 300) -> dict[str, list[Any]]:
    rng = np.random.default_rng(seed)
    question = rng.integers(0, 30, rows)
    model = rng.choice(["m1", "m2", "m3"], rows)
    rate = rng.random(30)[question]
    return {
        "model": model.tolist(),
        "question_id": [f"q{q:02d}" for q in question],
        "correct": (rng.random(rows) < rate).tolist(),
        "f1": np.round(rng.random(rows), 4).tolist(),
    }


def cr0(y: np.ndarray, groups: np.ndarray) -> float:
    fit = OLS(y, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False}
    )
    return float(fit.bse[0])


@pytest.mark.parametrize("seed", range(3))
def test_report_cluster_and_score_against_statsmodels(constructor: Any, seed: int) -> None:
    data = graded(seed)
    out = to_data(
        gf.report(constructor(data), "model", cluster="question_id", score="f1", failure_kind=None)
    )
    frame = pd.DataFrame(data)
    for i, model in enumerate(out["model"]):
        part = frame[frame["model"] == model]
        y = part["correct"].to_numpy(dtype=float)
        groups = pd.factorize(part["question_id"])[0]
        p, se = y.mean(), cr0(y, groups)
        close(
            [out["accuracy"][i], out["ci_low"][i], out["ci_high"][i]],
            [p, max(0.0, p - Z_95 * se), min(1.0, p + Z_95 * se)],
        )
        assert out["n_clusters"][i] == part["question_id"].nunique()
        f1 = part["f1"].to_numpy()
        se_score = cr0(f1, groups)
        close(
            [out["mean_score"][i], out["score_ci_low"][i], out["score_ci_high"][i]],
            [f1.mean(), f1.mean() - Z_95 * se_score, f1.mean() + Z_95 * se_score],
        )


def test_report_score_without_cluster_against_scipy(constructor: Any) -> None:
    data = graded(4)
    out = to_data(gf.report(constructor(data), "model", score="f1", failure_kind=None))
    frame = pd.DataFrame(data)
    for i, model in enumerate(out["model"]):
        f1 = frame.loc[frame["model"] == model, "f1"].to_numpy()
        sem = stats.sem(f1)
        close(
            [out["mean_score"][i], out["score_ci_low"][i], out["score_ci_high"][i]],
            [f1.mean(), f1.mean() - Z_95 * sem, f1.mean() + Z_95 * sem],
        )


def independent_compare(frame: pd.DataFrame, a: str, b: str) -> dict[str, Any]:
    """compare() for one pair, written with pandas and scipy."""
    mean = frame.groupby(["model", "question_id"])["correct"].agg(["mean", "size"]).reset_index()
    left = mean[mean["model"] == a].set_index("question_id")
    right = mean[mean["model"] == b].set_index("question_id")
    shared = left.index.intersection(right.index)
    x, y = left.loc[shared, "mean"].to_numpy(), right.loc[shared, "mean"].to_numpy()
    d = y - x
    half = Z_95 * d.std(ddof=1) / math.sqrt(len(d))
    ra, rb = x >= 0.5, y >= 0.5
    only_a, only_b = int((ra & ~rb).sum()), int((~ra & rb).sum())
    single = (left.loc[shared, "size"] == 1).all() and (right.loc[shared, "size"] == 1).all()
    if single:
        p = stats.binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
    else:
        p = stats.ttest_rel(y, x).pvalue
    return {
        "n_items": len(shared),
        "accuracy_a": x.mean(),
        "accuracy_b": y.mean(),
        "difference": d.mean(),
        "ci_low": max(-1.0, d.mean() - half),
        "ci_high": min(1.0, d.mean() + half),
        "both_right": int((ra & rb).sum()),
        "only_a": only_a,
        "only_b": only_b,
        "both_wrong": int((~ra & ~rb).sum()),
        "p_value": p,
    }


@pytest.mark.parametrize("epochs", [1, 3], ids=["one_row_per_item", "epochs"])
@pytest.mark.parametrize("seed", range(3))
def test_compare_against_scipy(constructor: Any, seed: int, epochs: int) -> None:
    rng = np.random.default_rng(seed)
    questions = [f"q{i:02d}" for i in range(40)]
    rows = []
    for model, skill in (("m1", 0.0), ("m2", 0.15), ("m3", -0.1)):
        asked = [q for q in questions if rng.random() < 0.9]  # items not all shared
        for q in asked:
            for _ in range(epochs):
                rows.append((model, q, bool(rng.random() < 0.55 + skill)))
    data = dict(
        zip(["model", "question_id", "correct"], map(list, zip(*rows, strict=False)), strict=True)
    )
    out = to_data(gf.compare(constructor(data)))
    assert list(out) == list(COMPARE_COLUMNS)
    assert list(zip(out["a"], out["b"], strict=True)) == [("m1", "m2"), ("m1", "m3"), ("m2", "m3")]
    frame = pd.DataFrame(data)
    for i, (a, b) in enumerate(zip(out["a"], out["b"], strict=True)):
        expected = independent_compare(frame, a, b)
        for name, value in expected.items():
            if isinstance(value, int):
                assert out[name][i] == value, name
            else:
                close([out[name][i]], [value])


def test_compare_with_baseline(constructor: Any) -> None:
    data = graded(1)
    out = to_data(gf.compare(constructor(data), baseline="m2"))
    assert list(zip(out["a"], out["b"], strict=True)) == [("m2", "m1"), ("m2", "m3")]


@pytest.mark.parametrize("seed", range(3))
def test_agreement_against_statsmodels(constructor: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.random(400) < 0.6
    b = np.where(rng.random(400) < 0.8, a, ~a)
    group = rng.choice(["x", "y"], 400)
    data = {"g": group.tolist(), "tool_correct": a.tolist(), "correct": b.tolist()}
    out = to_data(gf.agreement(constructor(data), "tool_correct", "correct", by="g"))
    assert out["g"] == ["x", "y"]
    for i, name in enumerate(out["g"]):
        x, y = a[group == name], b[group == name]
        table = np.array([[(x & y).sum(), (x & ~y).sum()], [(~x & y).sum(), (~x & ~y).sum()]])
        assert [out[c][i] for c in ("both_right", "only_a", "only_b", "both_wrong")] == (
            table.ravel().tolist()
        )
        close([out["agreement"][i]], [(x == y).mean()])
        close([out["kappa"][i]], [sm_cohens_kappa(table).kappa])
        close([out["p_value"][i]], [mcnemar(table, exact=True).pvalue])


# --------------------------------------------------------------------------------------------
# Generated frames (hypothesis): the same numbers as the independent computations
# --------------------------------------------------------------------------------------------

from hypothesis import assume, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ROWS = st.lists(
    st.tuples(st.integers(0, 6), st.booleans(), st.floats(0, 1)), min_size=2, max_size=60
)


@given(rows=ROWS)
def test_generated_report_cluster_matches_statsmodels(rows: list[tuple[int, bool, float]]) -> None:
    clusters = np.array([r[0] for r in rows])
    assume(len(set(clusters.tolist())) >= 2)
    y = np.array([r[1] for r in rows], dtype=float)
    score = np.array([r[2] for r in rows])
    frame = pl.DataFrame({"g": clusters, "correct": y.astype(bool), "s": score})
    out = gf.report(frame, cluster="g", score="s").row(0, named=True)
    p = y.mean()
    se = cr0(y, clusters)
    close([out["ci_low"], out["ci_high"]], [max(0.0, p - Z_95 * se), min(1.0, p + Z_95 * se)])
    se_score = cr0(score, clusters)
    close(
        [out["mean_score"], out["score_ci_low"], out["score_ci_high"]],
        [score.mean(), score.mean() - Z_95 * se_score, score.mean() + Z_95 * se_score],
    )


EPOCHS = st.lists(st.booleans(), min_size=1, max_size=3)
# Per question: the verdicts of m1's epochs and of m2's (an empty list: not asked).
PAIRS = st.lists(st.tuples(st.one_of(EPOCHS, st.just([])), EPOCHS), min_size=2, max_size=20).filter(
    lambda items: sum(bool(a) for a, _ in items) >= 2
)


@given(items=PAIRS)
def test_generated_compare_matches_scipy(items: list[tuple[list[bool], list[bool]]]) -> None:
    rows = [
        (f"q{i}", model, verdict)
        for i, (first, second) in enumerate(items)
        for model, verdicts in (("m1", first), ("m2", second))
        for verdict in verdicts
    ]
    data = {
        "question_id": [r[0] for r in rows],
        "model": [r[1] for r in rows],
        "correct": [r[2] for r in rows],
    }
    frame = pd.DataFrame(data)
    shared = [(a, b) for a, b in items if a]
    single = all(len(a) == 1 and len(b) == 1 for a, b in shared)
    d = np.array([np.mean(b) - np.mean(a) for a, b in shared])
    # scipy's t-test is undefined on constant differences (and warns on ones equal to rounding)
    assume(single or d.std(ddof=1) > 1e-9)
    out = gf.compare(pl.DataFrame(data)).row(0, named=True)
    expected = independent_compare(frame, "m1", "m2")
    for name, value in expected.items():
        if isinstance(value, int):
            assert out[name] == value, name
        else:
            close([out[name]], [value])


# --------------------------------------------------------------------------------------------
# Several pairs at once: p_adjusted against statsmodels' multipletests, and the verdict rule
# --------------------------------------------------------------------------------------------

P_VALUES = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.01, 0.02, 0.04, 0.25, 1.0])),
    min_size=1,
    max_size=12,
)


@pytest.mark.parametrize("method", ["holm", "bonferroni"])
@given(p=P_VALUES)
def test_generated_adjusted_p_values_match_statsmodels(method: str, p: list[float]) -> None:
    got = pl.DataFrame({"p": p}).select(adjusted_p_value("p", method)).to_series().to_list()
    close(got, multipletests(p, method=method)[1].tolist())


def test_adjusted_p_values_are_per_family_and_skip_nulls() -> None:
    frame = pl.DataFrame(
        {"task": ["t1", "t1", "t1", "t2", "t2"], "p": [0.01, None, 0.04, 0.03, 0.02]}
    )
    got = frame.select(adjusted_p_value("p", "holm", over=["task"])).to_series().to_list()
    t1 = multipletests([0.01, 0.04], method="holm")[1]
    t2 = multipletests([0.03, 0.02], method="holm")[1]
    close([got[0], got[2], got[3], got[4]], [t1[0], t1[1], t2[0], t2[1]])
    assert got[1] is None
    unadjusted = frame.select(adjusted_p_value("p", None)).to_series().to_list()
    assert unadjusted == frame["p"].to_list()


def many_models(seed: int, models: int = 4, questions: int = 60) -> dict[str, list[Any]]:
    rng = np.random.default_rng(seed)
    rows = [
        (f"m{m}", f"q{q:02d}", bool(rng.random() < 0.4 + 0.12 * m))
        for m in range(models)
        for q in range(questions)
    ]
    return dict(
        zip(["model", "question_id", "correct"], map(list, zip(*rows, strict=True)), strict=True)
    )


@pytest.mark.parametrize("adjust", ["holm", "bonferroni", None])
@pytest.mark.parametrize("seed", range(2))
def test_compare_p_adjusted_matches_multipletests(constructor: Any, seed: int, adjust: Any) -> None:
    out = to_data(gf.compare(constructor(many_models(seed)), adjust=adjust))
    assert len(out["a"]) == 6
    if adjust is None:
        assert out["p_adjusted"] == out["p_value"]
    else:
        close(out["p_adjusted"], multipletests(out["p_value"], method=adjust)[1].tolist())


def test_compare_one_pair_p_adjusted_is_the_p_value(constructor: Any) -> None:
    data = many_models(0, models=2)
    out = to_data(gf.compare(constructor(data)))
    assert out["p_adjusted"] == out["p_value"]


@pytest.mark.parametrize("adjust", ["holm", "bonferroni", None])
@pytest.mark.parametrize("seed", range(3))
def test_compare_verdict_never_contradicts_the_p_value(constructor: Any, seed: int, adjust) -> None:
    out = to_data(gf.compare(constructor(many_models(seed)), adjust=adjust))
    for i, verdict in enumerate(out["verdict"]):
        shown = out["p_adjusted"][i] is not None and out["p_adjusted"][i] < 0.05
        if out["ci_low"][i] > 0 and shown:
            assert verdict == "b better"
        elif out["ci_high"][i] < 0 and shown:
            assert verdict == "a better"
        else:
            assert verdict == "not settled"


def test_a_better_at_p_one_quarter_on_six_items_is_not_settled(constructor: Any) -> None:
    # Three items right only for a, none only for b: the interval of the differences excludes
    # 0, but McNemar's exact p is 0.25.
    data = {
        "model": ["a"] * 6 + ["b"] * 6,
        "question_id": list("uvwxyz") * 2,
        "correct": [True, True, True, True, False, True, False, False, False, True, False, True],
    }
    out = to_data(gf.compare(constructor(data)))
    assert out["ci_high"][0] < 0
    close(out["p_value"], [0.25])
    assert out["verdict"] == ["not settled"]


def test_compare_by_a_list_splits_the_comparisons_and_adjusts_within_each(
    constructor: Any,
) -> None:
    first, second = many_models(1), many_models(2)
    data = {
        "task": ["t1"] * len(first["model"]) + ["t2"] * len(second["model"]),
        **{k: first[k] + second[k] for k in first},
    }
    out = to_data(gf.compare(constructor(data), by=["model", "task"]))
    assert list(out)[:3] == ["task", "a", "b"]
    assert out["task"] == ["t1"] * 6 + ["t2"] * 6
    for task, part in (("t1", first), ("t2", second)):
        alone = to_data(gf.compare(pl.DataFrame(part)))
        rows = [i for i, t in enumerate(out["task"]) if t == task]
        for name in ("a", "b", "n_items", "only_a", "only_b", "verdict"):
            assert [out[name][i] for i in rows] == alone[name], name
        close([out["p_adjusted"][i] for i in rows], alone["p_adjusted"])
        close(
            [out["p_adjusted"][i] for i in rows],
            multipletests(alone["p_value"], method="holm")[1].tolist(),
        )


def test_discordant_by_a_list_keeps_the_split_columns() -> None:
    from gradeframe.compare import discordant

    frame = pl.DataFrame(
        {
            "task": ["t1"] * 4 + ["t2"] * 4,
            "model": ["x", "x", "y", "y"] * 2,
            "question_id": ["q1", "q2"] * 4,
            "correct": [True, False, False, False, True, True, True, False],
        }
    )
    out = discordant(frame, by=["model", "task"])
    assert out.columns[:3] == ["task", "a", "b"]
    assert out.select("task", "question_id", "only").rows() == [
        ("t1", "q1", "a"),
        ("t2", "q2", "a"),
    ]
