"""The transfer yardstick's pure pieces (benchmarks/transfer.py, benchmarks/combination.py)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def tr(bench_module):
    return bench_module("transfer")


def _rows(tr, name: str, n: int, seed: int, *, qa: bool = False) -> list:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        y = i % 2
        x = rng.normal(size=(int(rng.integers(1, 4)), len(tr.COLUMNS)))
        x[:, 0] += 2.0 * y  # the verifier's logit separates the classes
        x[:, 2] = 0.0  # no gate
        rows.append(tr.Row(f"{name}-{i}", y, f"{name}-{i}", qa, x))
    return rows


def test_lodo_never_fits_on_the_held_out_set(tr):
    sets = {k: _rows(tr, k, 30, s) for s, k in enumerate(("a", "b", "c"))}
    seen = {}

    def method(train):
        def scorer(rows):
            held = rows[0].id.split("-")[0]
            seen[held] = {r.id for v in train.values() for r in v}, set(train)
            return np.zeros(len(rows), dtype=int), np.zeros(len(rows))

        return scorer

    out = tr.lodo(sets, method)
    assert set(out) == {"a", "b", "c"}
    for held, (ids, names) in seen.items():
        assert held not in names and names == {"a", "b", "c"} - {held}
        assert not ids & {r.id for r in sets[held]}
        assert list(out[held][0]) == [r.label for r in sets[held]]


def test_a_set_derived_from_another_is_held_out_with_it(tr):
    names = ("halueval_qa", "halueval_qa_forms", "wice")
    sets = {k: _rows(tr, k, 30, s) for s, k in enumerate(names)}
    trained_on = {}

    def method(train):
        def scorer(rows):
            trained_on[rows[0].id.rsplit("-", 1)[0]] = set(train)
            return np.zeros(len(rows), dtype=int), np.zeros(len(rows))

        return scorer

    tr.lodo(sets, method)
    assert trained_on == {"halueval_qa": {"wice"}, "halueval_qa_forms": {"wice"}, "wice": set(names) - {"wice"}}


def test_folds_score_each_held_out_set_with_its_own_verifier_and_fit_on_the_rest(tr):
    """--folds: a verifier retrained per fold scored every set; a held-out set is scored with the rows
    of *its* fold (its verifier never saw it) and the fit sees only that fold's other sets."""
    folds = {
        "c": (("c",), {k: _rows(tr, k, 20, s) for s, k in enumerate(("a", "b", "c"))}),
        "ab": (("a", "b"), {k: _rows(tr, k, 20, 10 + s) for s, k in enumerate(("a", "b", "c"))}),
    }
    fitted_on = {}

    def method(train):
        def scorer(rows):
            fitted_on[rows[0].id.split("-")[0]] = (set(train), {id(r) for v in train.values() for r in v})
            return np.ones(len(rows), dtype=int), np.array([float(r.x[0, 0]) for r in rows])

        return scorer

    out = tr.lodo_folds(folds, method)
    assert set(out) == {"a", "b", "c"}
    assert fitted_on["c"][0] == {"a", "b"} and fitted_on["a"][0] == fitted_on["b"][0] == {"c"}
    # the fit read the fold's own rows, and each held-out set's scores are its fold's rows
    assert fitted_on["a"][1] == {id(r) for r in folds["ab"][1]["c"]}
    assert list(out["a"][2]) == [float(r.x[0, 0]) for r in folds["ab"][1]["a"]]
    assert list(out["c"][2]) == [float(r.x[0, 0]) for r in folds["c"][1]["c"]]


def test_combination_fits_only_on_the_other_sets(tr, monkeypatch):
    sets = {k: _rows(tr, k, 24, s) for s, k in enumerate(("a", "b", "c"))}
    sets["q"] = _rows(tr, "q", 24, 9, qa=True)  # the only QA set: held out, its task falls back to all rows
    real_fit = tr.fit
    for held in sets:
        seen_x = []

        def spy(data, seen_x=seen_x, **kw):
            seen_x.extend(x for rows in data.values() for _, x in rows)
            return real_fit(data, steps=20)

        monkeypatch.setattr(tr, "fit", spy)
        scorer = tr.combination()({k: v for k, v in sets.items() if k != held})
        pred, score = scorer(sets[held])
        assert len(pred) == len(score) == len(sets[held])
        assert seen_x  # both tasks were fitted
        for r in sets[held]:  # no held-out row's signals reached fit()
            assert not any(x.shape == r.x[:, :3].shape and np.array_equal(x, r.x[:, :3]) for x in seen_x)


def test_the_held_out_qa_task_falls_back_to_every_training_row(tr):
    train = {"a": _rows(tr, "a", 30, 0), "b": _rows(tr, "b", 30, 1)}
    assert tr._task_groups(train, True, False) is train
    assert set(tr._task_groups(train, False, False)) == {"a", "b"}
    train["q"] = _rows(tr, "q", 30, 2, qa=True)
    assert set(tr._task_groups(train, True, False)) == {"q"}
    assert tr._task_groups(train, True, True) is train


def test_grouped_bootstrap_on_a_tiny_set(tr):
    from combination import balanced_accuracy, grouped_bootstrap_ci

    y, p = [0, 1, 0, 1], [0, 1, 0, 1]
    assert grouped_bootstrap_ci(balanced_accuracy, y, p, n=200) == (1.0, 1.0)
    # two pairs: one right (BA 1), one wrong (BA 0); resampling whole pairs gives only 0, 0.5 and 1
    y, p, groups = [0, 1, 0, 1], [0, 1, 1, 0], ["i1", "i1", "i2", "i2"]
    lo, hi = grouped_bootstrap_ci(balanced_accuracy, y, p, groups, n=400, seed=3)
    assert (lo, hi) == (0.0, 1.0)
    values = set()
    rng = np.random.default_rng(0)
    for _ in range(50):
        pick = rng.integers(0, 2, 2)
        idx = [j for k in pick for j in ((0, 1) if k == 0 else (2, 3))]
        values.add(balanced_accuracy(np.array(y)[idx], np.array(p)[idx]))
    assert values <= {0.0, 0.5, 1.0}
    # AUROC with one class only is undefined in every resample
    from combination import auroc

    assert all(np.isnan(v) for v in grouped_bootstrap_ci(auroc, [1, 1], [0.2, 0.9], n=20))


def test_fast_metrics_equal_the_package_metrics(tr):
    from combination import auroc, balanced_accuracy, macro_f1
    from hallucheck.eval.metrics import balanced_accuracy as ba
    from hallucheck.eval.metrics import macro_prf, roc_auc

    rng = np.random.default_rng(0)
    for _ in range(20):
        y = rng.integers(0, 2, 40)
        p = rng.integers(0, 2, 40)
        s = np.round(rng.random(40), 1)  # ties
        assert balanced_accuracy(y, p) == pytest.approx(ba(list(y), list(p)))
        assert macro_f1(y, p) == pytest.approx(macro_prf(list(y), list(p))[2])
        assert auroc(y, s) == pytest.approx(roc_auc(list(y), list(s)))
    assert macro_f1(np.array([1, 1]), np.array([1, 1])) == pytest.approx(macro_prf([1, 1], [1, 1])[2])


def test_worst_set_is_the_lowest_balanced_accuracy(tr):
    per_set = {
        "a": {"ba": (0.7, 0, 1), "f1": (0.5, 0, 1)},
        "b": {"ba": (0.6, 0, 1), "f1": (0.9, 0, 1)},
        "c": {"ba": (0.6, 0, 1), "f1": (0.8, 0, 1)},
    }
    assert tr.worst(per_set) == "b"  # tie with c: first by name
    assert tr.worst(per_set, "f1") == "a"


def test_halueval_pairs_share_a_group(tr):
    assert tr.group_of("halueval-qa-12-r") == tr.group_of("halueval-qa-12-h") == "halueval-qa-12"
    assert tr.group_of("summeval-3") == "summeval-3"
    assert tr.group_of("wice-dev0001-h") == "wice-dev0001-h"


def test_best_width_prefers_the_narrower_on_ties(tr):
    assert tr.best_width({}, 0.5, 0.82) == 0.0
    # the judge is right, the combination wrong, one sentence at 0.45: any width >= 0.05 fixes it
    rows = [(1, [(False, 0.45, 0.99)]), (0, [(False, 0.2, 0.0)])]
    assert tr.best_width({"s": rows}, 0.5, 0.82) == 0.05


def test_the_shipped_verifier_is_attached_sentence_by_sentence_and_fitted_as_a_feature(tr):
    """--with-shipped: each sentence gets the shipped verifier's logit of the same sentence (by start offset),
    and the ensemble combination reads it: on sets where only the shipped logit separates the classes, the
    combination with it beats the one without."""
    rows = _rows(tr, "a", 40, 0)
    for r in rows:
        r.starts = [10 * i for i in range(len(r.x))]
    shipped = []
    for r in rows:
        x = np.zeros((len(r.x), len(tr.COLUMNS)))
        x[:, 0] = [100 * r.label + i for i in range(len(r.x))]
        shipped.append(tr.Row(r.id, r.label, r.group, r.qa, x, list(r.starts)))
    tr.attach_shipped(rows, shipped)
    for r in rows:
        assert r.x.shape[1] == len(tr.COLUMNS) + 1
        assert list(r.x[:, tr.column(tr.SHIPPED)]) == [100 * r.label + i for i in range(len(r.x))]
    with pytest.raises(SystemExit, match="missing"):
        tr.attach_shipped(rows, shipped[1:])

    # the fold's own verifier is noise here; only the shipped logit knows the label
    sets = {}
    for s, name in enumerate(("a", "b", "c")):
        rng = np.random.default_rng(s)
        made = []
        for i in range(60):
            y = i % 2
            x = np.zeros((1, len(tr.COLUMNS) + 1))
            x[0, 0] = rng.normal()
            x[0, -1] = 3.0 * y + rng.normal()
            made.append(tr.Row(f"{name}-{i}", y, f"{name}-{i}", False, x, [0]))
        sets[name] = made
    plain = tr.lodo(sets, tr.combination())
    both = tr.lodo(sets, tr.combination(tr.FEATURES + (tr.SHIPPED,)))
    for name in sets:
        y, p, _ = plain[name]
        y2, p2, _ = both[name]
        assert tr.balanced_accuracy(y2, p2) > 0.85 > tr.balanced_accuracy(y, p) + 0.2


def test_the_gate_alone_flags_exactly_the_answers_with_a_gated_sentence(tr):
    rows = _rows(tr, "a", 6, 0)
    rows[1].x[0, 2] = 0.5  # one sentence of answer 1 has a missing figure
    rows[4].x[-1, 2] = 1.0
    rows[3].x[:, 0] = 9.0  # a confident verifier does not matter to the gate
    pred, score = tr.gate_alone({"b": _rows(tr, "b", 4, 1)})(rows)
    assert list(pred) == [0, 1, 0, 0, 1, 0]
    assert list(score) == [0.0, 0.5, 0.0, 0.0, 1.0, 0.0]
