"""tf.linalg's decompositions in descend (issue 37): what the differential harness cannot see. Forward values
and gradients against TF are in tests/differential_cases.py, float64 gradients in tests/op_cases_core.py; here
the identities each result must satisfy, the refusals of bad inputs, and the names left out."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.errors import InvalidArgumentError

rng = np.random.default_rng(3)
A = rng.standard_normal((2, 4, 3))
SQ = rng.standard_normal((2, 3, 3))


@pytest.mark.parametrize("shape,full", [((4, 3), False), ((3, 5), False), ((4, 3), True), ((2, 3, 3), False)])
def test_qr_reconstructs_with_orthonormal_q_and_upper_r(shape, full):
    a = rng.standard_normal(shape)
    q, r = ds.linalg.qr(a, full_matrices=full)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, atol=1e-12)
    qtq = np.swapaxes(q.numpy(), -1, -2) @ q.numpy()
    np.testing.assert_allclose(qtq, np.broadcast_to(np.eye(qtq.shape[-1]), qtq.shape), atol=1e-12)
    np.testing.assert_array_equal(np.tril(r.numpy(), -1), 0)


@pytest.mark.parametrize("shape,full", [((4, 3), False), ((3, 5), False), ((3, 5), True), ((2, 4, 3), False)])
def test_svd_reconstructs_with_descending_values(shape, full):
    a = rng.standard_normal(shape)
    s, u, v = ds.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    rebuilt = (u.numpy()[..., :, :k] * s.numpy()[..., None, :]) @ np.swapaxes(v.numpy()[..., :, :k], -1, -2)
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)
    assert np.all(np.diff(s.numpy(), axis=-1) <= 0)
    np.testing.assert_allclose(ds.linalg.svd(a, compute_uv=False).numpy(), s.numpy(), atol=1e-12)


def test_eigh_reads_only_the_lower_triangle():
    lower = np.tril(SQ)
    e1, v1 = ds.linalg.eigh(lower + np.triu(rng.standard_normal((3, 3)), 1))
    sym = lower + np.swapaxes(np.tril(lower, -1), -1, -2)
    np.testing.assert_allclose(e1.numpy(), np.linalg.eigvalsh(sym), atol=1e-12)
    np.testing.assert_allclose(v1.numpy() @ (e1.numpy()[..., None] * np.swapaxes(v1.numpy(), -1, -2)), sym,
                               atol=1e-12)


def test_lu_pivots_and_round_trips():
    a = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [4.0, -1.0, 3.0]])  # a zero first pivot: rows must swap
    packed, perm = ds.linalg.lu(a)
    assert perm.dtype == np.int32 and perm.numpy().tolist() == [2, 0, 1]
    lower = np.tril(packed.numpy(), -1) + np.eye(3)
    np.testing.assert_allclose(lower @ np.triu(packed.numpy()), a[perm.numpy()], atol=1e-12)
    np.testing.assert_allclose(ds.linalg.lu_reconstruct(packed, perm).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(ds.linalg.lu_matrix_inverse(packed, perm).numpy(), np.linalg.inv(a), atol=1e-12)
    b = rng.standard_normal((3, 2))
    np.testing.assert_allclose(ds.linalg.lu_solve(packed, perm, b).numpy(), np.linalg.solve(a, b), atol=1e-12)
    assert ds.linalg.lu(a, output_idx_type="int64")[1].dtype == np.int64


def test_pinv_lstsq_and_rank_of_a_rank_deficient_matrix():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])  # rank 1
    assert int(ds.linalg.matrix_rank(a)) == 1
    np.testing.assert_allclose(ds.linalg.pinv(a).numpy(), np.linalg.pinv(a), atol=1e-12)
    b = rng.standard_normal((3, 1))
    np.testing.assert_allclose(ds.linalg.lstsq(a, b, fast=False).numpy(), np.linalg.lstsq(a, b, rcond=None)[0],
                               atol=1e-12)


def test_expm_of_a_rotation_generator_and_of_a_large_norm():
    t = 0.7
    gen = np.array([[0.0, -t], [t, 0.0]])
    np.testing.assert_allclose(ds.linalg.expm(gen).numpy(), [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]],
                               atol=1e-14)
    d = np.diag([5.0, -3.0, 12.0])  # a diagonal matrix needs squarings
    np.testing.assert_allclose(ds.linalg.expm(d).numpy(), np.diag(np.exp([5.0, -3.0, 12.0])), rtol=1e-13)


def test_tridiagonal_formats_agree():
    sup, main, sub = rng.standard_normal(4), rng.standard_normal(4) + 4, rng.standard_normal(4)
    dense = np.diag(main) + np.diag(sup[:-1], 1) + np.diag(sub[1:], -1)
    b = rng.standard_normal((4, 2))
    want = np.linalg.solve(dense, b)
    for diags, fmt in (([sup, main, sub], "sequence"), (np.stack([sup, main, sub]), "compact"), (dense, "matrix")):
        np.testing.assert_allclose(ds.linalg.tridiagonal_solve(diags, b, diagonals_format=fmt).numpy(), want,
                                   atol=1e-12)
        np.testing.assert_allclose(ds.linalg.tridiagonal_matmul(diags, b, diagonals_format=fmt).numpy(),
                                   dense @ b, atol=1e-12)


def test_decompositions_run_inside_a_function_on_new_values():
    @ds.function
    def step(a):
        with ds.GradientTape() as tape:
            tape.watch(a)
            e, v = ds.linalg.eigh(a)
            loss = ds.reduce_sum(e * e) + ds.reduce_sum(ds.linalg.lu_reconstruct(*ds.linalg.lu(a)))
        return tape.gradient(loss, a)

    for m in (SQ[0] + SQ[0].T, SQ[1] + SQ[1].T):
        got = step(ds.constant(m)).numpy()
        e, v = np.linalg.eigh(m)
        want = np.tril(v @ np.diag(2 * e) @ v.T * 2) - np.diag(np.diag(v @ np.diag(2 * e) @ v.T)) + 1.0
        np.testing.assert_allclose(got, want, atol=1e-10)


@pytest.mark.parametrize("call,error,match", [
    (lambda: ds.linalg.qr(np.ones(3)), InvalidArgumentError, "rank >= 2"),
    (lambda: ds.linalg.svd(np.ones((2, 2), np.int32)), TypeError, "int32"),
    (lambda: ds.linalg.eigh(np.ones((2, 3))), InvalidArgumentError, "square"),
    (lambda: ds.linalg.lu(np.ones((2, 3))), InvalidArgumentError, "square"),
    (lambda: ds.linalg.expm(np.ones((3, 2))), InvalidArgumentError, "square"),
    (lambda: ds.linalg.lstsq(np.ones((3, 2)), np.ones((4, 1))), ValueError, r"\(3, 2\) and \(4, 1\)"),
    (lambda: ds.linalg.lstsq(np.ones((3, 2)), np.ones((3, 1)), l2_regularizer=0.1, fast=False), ValueError,
     "l2_regularizer"),
    (lambda: ds.linalg.tensor_diag_part(np.ones((2, 3))), ValueError, r"s \+ s"),
    (lambda: ds.linalg.tridiagonal_solve(np.ones((2, 4)), np.ones((4, 1))), ValueError, r"\[..., 3, M\]"),
    (lambda: ds.linalg.tridiagonal_solve(np.ones((3, 4)), np.ones((4, 1)), diagonals_format="dense"), ValueError,
     "'dense'"),
    (lambda: ds.linalg.lu_solve(np.eye(3), np.array([0, 1]), np.ones((3, 1))), ValueError, r"\(2,\)"),
    (lambda: ds.linalg.pinv(np.ones(3)), ValueError, "rank >= 2"),
])
def test_bad_inputs_are_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_tall_qr_gradient_only_for_reduced_q():
    a = ds.constant(rng.standard_normal((3, 5)))
    with ds.GradientTape() as tape:
        tape.watch(a)
        q, r = ds.linalg.qr(a)
        loss = ds.reduce_sum(r)
    with pytest.raises(NotImplementedError, match=r"m >= n"):
        tape.gradient(loss, a)


@pytest.mark.parametrize("name", ["eig", "eigvals", "logm"])
def test_complex_results_are_refused_with_the_alternative(name):
    with pytest.raises(AttributeError, match="complex.*Use instead: descend.linalg.eig"):
        getattr(ds.linalg, name)


def test_eigh_tridiagonal_gradient_is_the_eigenvalues_derivative():
    # d e_k / d alpha_i = v_ik^2 and d e_k / d beta_j = 2 v_jk v_(j+1)k (first-order perturbation theory)
    a, b = ds.constant(rng.standard_normal(4)), ds.constant(rng.standard_normal(3))
    with ds.GradientTape() as tape:
        tape.watch([a, b])
        e = ds.linalg.eigh_tridiagonal(a, b, select="i", select_range=[2, 2])
    ga, gb = tape.gradient(e, [a, b])
    dense = np.diag(a.numpy()) + np.diag(b.numpy(), 1) + np.diag(b.numpy(), -1)
    v = np.linalg.eigh(dense)[1][:, 2]
    np.testing.assert_allclose(ga.numpy(), v ** 2, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), 2 * v[:-1] * v[1:], atol=1e-12)
    with pytest.raises(ValueError, match=r"\[n - 1\]"):
        ds.linalg.eigh_tridiagonal(np.ones(3), np.ones(3))


def test_sqrtm_squares_back_and_is_nan_without_a_real_root():
    a = SQ + 3 * np.eye(3)
    x = ds.linalg.sqrtm(a).numpy()
    np.testing.assert_allclose(x @ x, a, atol=1e-12)
    assert np.isnan(ds.linalg.sqrtm(np.diag([-1.0, 2.0])).numpy()).all()  # as TF: no real principal root


# ---------------------------------------------------------------- linear operators, method by method against TF
def _operators(lib, mats):
    full, diag, tril = mats
    la = lib.linalg
    return {
        "full": la.LinearOperatorFullMatrix(full),
        "diag": la.LinearOperatorDiag(diag),
        "identity": la.LinearOperatorIdentity(3, batch_shape=[2], dtype=np.float64),
        "lower": la.LinearOperatorLowerTriangular(tril),
        "scaled_identity": la.LinearOperatorScaledIdentity(3, diag[:, 0]),
        "composition": la.LinearOperatorComposition([la.LinearOperatorFullMatrix(full),
                                                     la.LinearOperatorLowerTriangular(tril)]),
        "adjoint": la.LinearOperatorAdjoint(la.LinearOperatorFullMatrix(full)),
        "inversion": la.LinearOperatorInversion(la.LinearOperatorFullMatrix(full)),
        "kronecker": la.LinearOperatorKronecker([la.LinearOperatorDiag(diag[0, :1] * 0 + 2.0 + diag[0, 1:2]),
                                                 la.LinearOperatorFullMatrix(full)]),
        "block_diag": la.LinearOperatorBlockDiag([la.LinearOperatorDiag(diag[:, :1]),
                                                  la.LinearOperatorFullMatrix(full[:, :2, :2])]),
        "permutation": la.LinearOperatorPermutation(np.array([[2, 0, 1], [1, 0, 2]], np.int32), dtype=np.float64),
        "householder": la.LinearOperatorHouseholder(diag),
        "toeplitz": la.LinearOperatorToeplitz(full[:, 0] + np.array([3.0, 0, 0]), full[:, 1]),
        "tridiag": la.LinearOperatorTridiag(full + np.array([[0.0], [3.0], [0.0]])),
        "low_rank_update": la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(diag * 0 + 3.0), full[..., :2] * 0.3,
                                                          diag_update=diag[:, :2], v=tril[..., :2] * 0.3),
        "block_lower": la.LinearOperatorBlockLowerTriangular(
            [[la.LinearOperatorDiag(diag[:, :1] + 3.0)],
             [la.LinearOperatorFullMatrix(full[:, 1:, :1]), la.LinearOperatorFullMatrix(full[:, :2, :2] + 3 * np.eye(2))]]),
    }


_METHODS = {
    "to_dense": lambda op, x, v: op.to_dense(),
    "matmul": lambda op, x, v: op.matmul(x),
    "matmul_adjoint": lambda op, x, v: op.matmul(x, adjoint=True),
    "matvec": lambda op, x, v: op.matvec(v),
    "solve": lambda op, x, v: op.solve(x),
    "solve_adjoint": lambda op, x, v: op.solve(x, adjoint=True),
    "solvevec": lambda op, x, v: op.solvevec(v),
    "determinant": lambda op, x, v: op.determinant(),
    "log_abs_determinant": lambda op, x, v: op.log_abs_determinant(),
    "diag_part": lambda op, x, v: op.diag_part(),
    "trace": lambda op, x, v: op.trace(),
    "adjoint_to_dense": lambda op, x, v: op.adjoint().to_dense(),
}


@pytest.mark.parametrize("method", sorted(_METHODS))
@pytest.mark.parametrize("kind", ["full", "diag", "identity", "lower", "scaled_identity", "composition", "adjoint",
                                  "inversion", "kronecker", "block_diag", "permutation", "householder", "toeplitz",
                                  "tridiag", "low_rank_update", "block_lower"])
def test_linear_operator_matches_tensorflow(kind, method):
    tf = pytest.importorskip("tensorflow")
    r = np.random.default_rng(11)
    mats = [r.standard_normal((2, 3, 3)) + 3 * np.eye(3), r.uniform(0.5, 2.0, (2, 3)) * r.choice([-1, 1], (2, 3)),
            r.standard_normal((2, 3, 3)) + 3 * np.eye(3)]
    x, v = r.standard_normal((2, 3, 4)), r.standard_normal((2, 3))
    theirs = _operators(tf, [tf.constant(m) for m in mats])[kind]
    ours = _operators(ds, [ds.constant(m) for m in mats])[kind]
    xt, vt = tf.Variable(x), tf.Variable(v)
    xd, vd = ds.Variable(x), ds.Variable(v)
    with tf.GradientTape() as tape:
        want = _METHODS[method](theirs, xt, vt)
        wl = tf.reduce_sum(want * np.linspace(0.5, 1.5, int(np.prod(want.shape))).reshape(want.shape))
    with ds.GradientTape() as dtape:
        got = _METHODS[method](ours, xd, vd)
        gl = ds.reduce_sum(got * np.linspace(0.5, 1.5, int(np.prod(got.shape))).reshape(got.shape))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    for w, g in zip(tape.gradient(wl, [xt, vt]), dtape.gradient(gl, [xd, vd])):
        if w is None:
            assert g is None or not np.any(ds.convert_to_tensor(g).numpy())
        else:
            np.testing.assert_allclose(ds.convert_to_tensor(g).numpy(), w.numpy(), rtol=1e-10, atol=1e-12)
    assert ours.shape == tuple(theirs.shape) and ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.domain_dimension == int(theirs.domain_dimension)


def test_lower_triangular_ignores_the_upper_triangle_and_refuses_bad_inputs():
    t = np.tril(SQ[0]) + 3 * np.eye(3)
    op = ds.linalg.LinearOperatorLowerTriangular(t + np.triu(np.ones((3, 3)), 1))
    np.testing.assert_allclose(op.to_dense().numpy(), t)
    np.testing.assert_allclose(float(op.determinant()), np.prod(np.diag(t)))
    with pytest.raises(ValueError, match=r"square matrix. Received shape \(2, 3\)"):
        ds.linalg.LinearOperatorLowerTriangular(np.ones((2, 3)))
    with pytest.raises(ValueError, match="must be square"):
        ds.linalg.LinearOperatorFullMatrix(np.ones((2, 3))).solve(np.ones((3, 1)))
    with pytest.raises(ValueError, match="must have 3 rows"):
        op.matmul(np.ones((2, 1)))
    with pytest.raises(ValueError, match="num_rows"):
        ds.linalg.LinearOperatorIdentity(-1)


@pytest.mark.parametrize("call,match", [
    (lambda la: la.LinearOperatorPermutation(np.array([0, 0, 1])), "permutations of 0..N-1"),
    (lambda la: la.LinearOperatorComposition([]), "non-empty list of LinearOperators"),
    (lambda la: la.LinearOperatorInversion(la.LinearOperatorFullMatrix(np.ones((2, 3)))), r"square. Received shape \(2, 3\)"),
    (lambda la: la.LinearOperatorToeplitz(np.ones(3), np.ones(2)), r"same length. Received shapes \(3,\) and \(2,\)"),
    (lambda la: la.LinearOperatorBlockLowerTriangular([[la.LinearOperatorIdentity(2)], []]), r"row lengths \[1, 0\]"),
    (lambda la: la.LinearOperatorHouseholder(np.ones(3, np.int32)), "float tensor"),
])
def test_composed_operators_refuse_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call(ds.linalg)


@pytest.mark.parametrize("max_iter,tol", [(20, 1e-5), (3, 1e-5), (50, 1e-10)])
@pytest.mark.parametrize("preconditioned", [False, True])
@pytest.mark.parametrize("start", [False, True])
def test_conjugate_gradient_matches_tensorflow(max_iter, tol, preconditioned, start):
    tf = pytest.importorskip("tensorflow")
    r = np.random.default_rng(5)
    a = r.standard_normal((2, 5, 5))
    a = a @ np.swapaxes(a, -1, -2) + np.eye(5)
    b, d, x0 = r.standard_normal((2, 5)), r.uniform(0.5, 2.0, (2, 5)), r.standard_normal((2, 5))
    results = []
    for lib, conv in ((tf, tf.constant), (ds, ds.constant)):
        op = lib.linalg.LinearOperatorFullMatrix(conv(a), is_self_adjoint=True, is_positive_definite=True)
        pre = lib.linalg.LinearOperatorDiag(conv(d)) if preconditioned else None
        results.append(lib.linalg.experimental.conjugate_gradient(op, conv(b), preconditioner=pre,
                                                                   x=conv(x0) if start else None, tol=tol,
                                                                   max_iter=max_iter))
    want, got = results
    assert got._fields == want._fields and int(got.i) == int(want.i)
    for w, g in zip(want[1:], got[1:]):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-9, atol=1e-11)


def test_conjugate_gradient_refuses_a_non_operator():
    with pytest.raises(TypeError, match="LinearOperator. Received: ndarray"):
        ds.linalg.experimental.conjugate_gradient(np.eye(2), [1.0, 2.0])
