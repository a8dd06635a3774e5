"""Decompositions of ``tf.linalg`` on the last two axes (batched over the leading ones): ``qr``, ``svd``,
``self_adjoint_eig`` (``eigh``), ``lu`` and ``matrix_exponential`` (``expm``), each a NumPy forward with its
VJP written with descend ops, in TensorFlow's form (``tensorflow/python/ops/linalg_grad.py``):

* ``Q, R = qr(A)`` (reduced, ``m >= n``): ``M = R dR^T - dQ^T Q`` made copy-lower (``tril(M) + tril(M, -1)^T``),
  ``dA = (dQ + Q copyltu(M)) R^-T``; written as TF writes it (the ``qdq``/``rdr`` terms).
* ``s, U, V = svd(A)``: with ``F_ij = 1 / (s_j^2 - s_i^2)`` off the diagonal,
  ``dA = U (diag(ds) + (F*(U^T dU) + (F*(U^T dU))^T) S + S (F*(V^T dV) + ...^T)) V^T`` plus the term of the
  columns of ``V`` outside the range when the matrix is not square (``A`` transposed first when ``m > n``).
* ``e, V = eigh(A)`` (the lower triangle read): ``G = V (diag(de) + F * (V^T dV)) V^T`` with
  ``F_ij = 1 / (e_j - e_i)``, then ``tril(G + G^T)`` with its diagonal halved.
* ``LU, p = lu(A)`` (``A[p] = L U``, ``L`` unit lower): ``dA[p] = L^-T (tril(L^T dL, -1) + triu(dU U^T)) U^-T``.
* ``expm(A)``: ``dA`` is the upper-right block of ``expm([[A^T, G], [0, A^T]])``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.op import defop
from ..framework.tensor import Tensor
from .array_ops import concat, expand_dims, one_hot, transpose
from .linalg_ops import matrix_triangular_solve
from .math_ops import add, divide, matmul, multiply, negative, subtract, where

__all__ = ["qr", "svd", "self_adjoint_eig", "lu", "matrix_exponential", "matrix_square_root", "sylvester_plus"]


def _float_matrix(a: np.ndarray, owner: str, square: bool = False) -> None:
    if a.ndim < 2:
        raise InvalidArgumentError(f"{owner}: the input must have rank >= 2. Received shape {a.shape}")
    if square and a.shape[-1] != a.shape[-2]:
        raise InvalidArgumentError(f"{owner}: the input must be a (batch of) square matrices. Received shape "
                                   f"{a.shape}")
    if a.dtype.kind != "f":
        raise TypeError(f"{owner}: the input must be float16, float32 or float64. Received: dtype {a.dtype.name}")


def _c(a):
    """float16 is computed in float32 (LAPACK has no half precision)."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _t(x):
    return transpose(x, perm=(*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def _mask(n, m, fn, dtype):
    return Tensor(fn(np.ones((n, m))).astype(dtype))


def _zeros_like(t):
    return Tensor(np.zeros(t.shape, dtype=t.dtype.dtype))


def _inv_gap(e):
    """``F[..., i, j] = 1 / (e_j - e_i)`` off the diagonal, 0 on it (descend ops: differentiable again)."""
    n = e.shape[-1]
    diff = subtract(expand_dims(e, axis=-2), expand_dims(e, axis=-1))
    on_diag = Tensor(np.eye(n, dtype=bool))
    ones = Tensor(np.ones((n, n), dtype=e.dtype.dtype))
    return where(on_diag, _zeros_like(diff), divide(1.0, where(on_diag, ones, diff)))


# ---------------------------------------------------------------------------------------------------------- qr
@defop(multi_output=True)
def qr(input, full_matrices=False):  # noqa: A002 - TF's name
    """``(Q, R)`` with ``A = Q R``, ``Q`` orthonormal columns and ``R`` upper triangular (``tf.linalg.qr``)."""
    _float_matrix(input, "qr")
    q, r = np.linalg.qr(_c(input), mode="complete" if full_matrices else "reduced")
    return [q.astype(input.dtype), r.astype(input.dtype)]


@qr.defvjp
def _(g, ans, a, full_matrices=False):
    q, r = ans
    m, n = a.shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError(f"qr: the gradient is defined for full_matrices=False and m >= n (as TF). "
                                  f"Received shape {tuple(a.shape)}, full_matrices={full_matrices}")
    dq = g[0] if g[0] is not None else _zeros_like(q)
    dr = g[1] if g[1] is not None else _zeros_like(r)
    qdq = matmul(q, dq, transpose_a=True)
    rdr = matmul(r, dr, transpose_b=True)
    low = _mask(n, n, lambda x: np.tril(x, -1), r.dtype.dtype)
    tril = multiply(add(subtract(qdq, _t(qdq)), subtract(rdr, _t(rdr))), low)

    def right_solve_rt(x):  # x R^-T
        return _t(matrix_triangular_solve(r, _t(x), lower=False))

    grad_a = matmul(q, add(dr, right_solve_rt(tril)))
    grad_b = right_solve_rt(subtract(dq, matmul(q, qdq)))
    return add(grad_a, grad_b)


# --------------------------------------------------------------------------------------------------------- svd
@defop(multi_output=True)
def svd(input, full_matrices=False, compute_uv=True):  # noqa: A002 - TF's name
    """``(s, U, V)`` with ``A = U diag(s) V^T`` (``tf.linalg.svd``; ``V``, not its transpose); ``(s,)`` alone
    without ``compute_uv``."""
    _float_matrix(input, "svd")
    a = _c(input)
    if not compute_uv:
        return [np.linalg.svd(a, compute_uv=False).astype(input.dtype)]
    u, s, vt = np.linalg.svd(a, full_matrices=bool(full_matrices))
    return [s.astype(input.dtype), u.astype(input.dtype), np.swapaxes(vt, -1, -2).astype(input.dtype)]


@svd.defvjp
def _(g, ans, a, full_matrices=False, compute_uv=True):
    m, n = a.shape[-2:]
    dtype = a.dtype.dtype
    if not compute_uv:
        s, u, v = svd(a, full_matrices=False, compute_uv=True)  # the vectors, as TF recomputes them
        return matmul(multiply(u, expand_dims(g[0], axis=-2)), v, transpose_b=True)
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError("svd: the gradient with full_matrices=True needs |m - n| <= 1 (as TF). Received "
                                  f"shape {tuple(a.shape)}")
    s, u, v = ans
    ds_, du, dv = (g[0] if g[0] is not None else _zeros_like(s), g[1] if g[1] is not None else _zeros_like(u),
                   g[2] if g[2] is not None else _zeros_like(v))
    transposed = m > n
    if transposed:  # work on A^T (m <= n): swap the roles of U and V
        m, n = n, m
        u, v, du, dv = v, u, dv, du
    k = m
    eye = Tensor(np.eye(k, dtype=dtype))
    s_mat = multiply(expand_dims(s, axis=-2), eye)
    ds_mat = multiply(expand_dims(ds_, axis=-2), eye)
    f = _inv_gap(multiply(s, s))  # 1 / (s_j^2 - s_i^2)
    if u.shape[-1] > k:
        u, du = u[..., :, :k], du[..., :, :k]
    v1, dv1 = v[..., :, :k], dv[..., :, :k]
    f_u = multiply(f, matmul(u, du, transpose_a=True))
    f_v = multiply(f, matmul(v1, dv1, transpose_a=True))
    core = add(ds_mat, add(matmul(add(f_u, _t(f_u)), s_mat), matmul(s_mat, add(f_v, _t(f_v)))))
    grad = matmul(matmul(u, core), v1, transpose_b=True)
    if m != n:
        s_inv = multiply(expand_dims(1.0 / s, axis=-2), eye)
        dv1t = _t(dv1)
        term2 = subtract(dv1t, matmul(matmul(dv1t, v1), v1, transpose_b=True))
        if full_matrices:
            v2, dv2 = v[..., :, k:], dv[..., :, k:]
            term2 = add(term2, matmul(matmul(v1, dv2, transpose_a=True), v2, transpose_b=True))  # TF's extra term
        grad = add(grad, matmul(matmul(u, s_inv), term2))
    return _t(grad) if transposed else grad


# ------------------------------------------------------------------------------------------------------- eigh
@defop(multi_output=True)
def self_adjoint_eig(input):  # noqa: A002 - TF's name
    """``(e, V)``: the ascending eigenvalues and the eigenvectors (columns) of each symmetric matrix, of which
    only the lower triangle is read (``tf.linalg.eigh``)."""
    _float_matrix(input, "eigh", square=True)
    e, v = np.linalg.eigh(_c(input), UPLO="L")
    return [e.astype(input.dtype), v.astype(input.dtype)]


@self_adjoint_eig.defvjp
def _(g, ans, a):
    e, v = ans
    n = a.shape[-1]
    dtype = a.dtype.dtype
    de = g[0] if g[0] is not None else _zeros_like(e)
    core = multiply(expand_dims(de, axis=-2), Tensor(np.eye(n, dtype=dtype)))
    if g[1] is not None:
        core = add(core, multiply(_inv_gap(e), matmul(v, g[1], transpose_a=True)))
    grad = matmul(matmul(v, core), v, transpose_b=True)
    grad = add(grad, _t(grad))
    half = Tensor((np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)).astype(dtype))
    return multiply(grad, half)


# --------------------------------------------------------------------------------------------------------- lu
def _lu_np(a: np.ndarray):
    """Partial-pivoting LU of a batch of square matrices: the packed factors and the row permutation ``p``
    (``A[p] = L U``); the pivot of each column is its entry of largest magnitude (the first one on ties)."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    lu = a.reshape(-1, n, n).astype(a.dtype, copy=True)
    perm = np.tile(np.arange(n), (lu.shape[0], 1))
    rows = np.arange(lu.shape[0])
    for j in range(n):
        piv = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        swap_rows = lu[rows, piv].copy()
        lu[rows, piv] = lu[:, j]
        lu[:, j] = swap_rows
        pj = perm[rows, piv].copy()
        perm[rows, piv] = perm[:, j]
        perm[:, j] = pj
        pivot = lu[:, j, j]
        safe = np.where(pivot == 0, 1, pivot)
        lu[:, j + 1:, j] = np.where(pivot[:, None] == 0, 0, lu[:, j + 1:, j] / safe[:, None])
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
    return lu.reshape(*batch, n, n), perm.reshape(*batch, n)


@defop(multi_output=True)
def lu(input, output_idx_type="int32"):  # noqa: A002 - TF's name
    """``(lower_upper, p)``: ``L`` (unit diagonal, not stored) and ``U`` packed in one matrix, with
    ``A[..., p, :] = L U`` (``tf.linalg.lu``)."""
    _float_matrix(input, "lu", square=True)
    packed, perm = _lu_np(_c(input))
    if str(output_idx_type) not in ("int32", "int64"):
        raise TypeError(f"lu: output_idx_type must be int32 or int64. Received: {output_idx_type!r}")
    return [packed.astype(input.dtype), perm.astype(str(output_idx_type))]


@lu.defvjp
def _(g, ans, a, output_idx_type="int32"):
    packed, perm = ans
    n = a.shape[-1]
    dtype = a.dtype.dtype
    if g[0] is None:
        return _zeros_like(a)
    strict_low = _mask(n, n, lambda x: np.tril(x, -1), dtype)
    up = _mask(n, n, np.triu, dtype)
    eye = Tensor(np.eye(n, dtype=dtype))
    lower = add(multiply(packed, strict_low), eye)
    upper = multiply(packed, up)
    phi = add(multiply(matmul(lower, multiply(g[0], strict_low), transpose_a=True), strict_low),
              multiply(matmul(multiply(g[0], up), upper, transpose_b=True), up))
    y = matrix_triangular_solve(lower, phi, lower=True, adjoint=True)  # L^-T phi
    z = _t(matrix_triangular_solve(upper, _t(y), lower=False))  # ... U^-T
    p_mat = one_hot(perm, n, dtype=a.dtype)  # (P x)[i] = x[perm[i]]
    return matmul(p_mat, z, transpose_a=True)


# ------------------------------------------------------------------------------------------------------- expm
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0,
           1.0)


_PADE = {3: (120.0, 60.0, 12.0), 5: (30240.0, 15120.0, 3360.0, 420.0, 30.0),
         7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0),
         9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0,
             90.0)}


def _pade(x: np.ndarray, degree: int):
    """``(U, V)`` of the [degree/degree] Padé approximant: ``exp(x) ~ (V - U)^-1 (V + U)``."""
    ident = np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape)
    if degree == 13:
        b = _PADE13
        x2 = x @ x
        x4 = x2 @ x2
        x6 = x4 @ x2
        u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * ident)
        v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * ident
        return u, v
    b = _PADE[degree]
    powers = [ident, x @ x]
    while len(powers) < (degree + 1) // 2:
        powers.append(powers[-1] @ powers[1])
    odd = sum(b[2 * k + 1] * powers[k] for k in range(len(powers) - 1)) + powers[-1]
    even = sum(b[2 * k] * powers[k] for k in range(len(powers)))
    return x @ odd, even


def _expm_np(a: np.ndarray) -> np.ndarray:
    """Scaling and squaring with Padé approximants chosen by the 1-norm, TF's scheme (Higham 2005): float64
    degrees 3, 5, 7, 9 or 13 (the last after scaling by ``2^-s``), float32 and float16 (computed in float32)
    degrees 3, 5 or 7, then ``s`` squarings."""
    x = a.astype(np.float64 if a.dtype == np.float64 else np.float32)
    n = x.shape[-1]
    norm1 = np.abs(x).sum(axis=-2).max(axis=-1) if x.size else np.zeros(x.shape[:-2], x.dtype)
    if x.dtype == np.float64:
        maxnorm, degrees, conds = 5.371920351148152, (3, 5, 7, 9), (1.495585217958292e-002, 2.539398330063230e-001,
                                                                     9.504178996162932e-001, 2.097847961257068e+000)
        top = 13
    else:
        maxnorm, degrees, conds = 3.925724783138660, (3, 5), (4.258730016922831e-001, 1.880152677804762e+000)
        top = 7
    with np.errstate(divide="ignore"):
        sq = np.maximum(0, np.floor(np.log2(norm1 / maxnorm))).astype(int)
    u, v = _pade(x / (2.0 ** sq).astype(x.dtype)[..., None, None], top)
    for degree, cond in reversed(list(zip(degrees, conds))):
        u_d, v_d = _pade(x, degree)
        small = (norm1 < cond)[..., None, None]
        u, v = np.where(small, u_d, u), np.where(small, v_d, v)
    r = np.linalg.solve(v - u, v + u)
    flat, steps = r.reshape(-1, n, n), np.where(norm1 < conds[-1], 0, sq).reshape(-1)
    for i in range(flat.shape[0]):
        for _ in range(int(steps[i])):
            flat[i] = flat[i] @ flat[i]
    return flat.reshape(r.shape)


@defop
def matrix_exponential(input):  # noqa: A002 - TF's name
    """``exp(A) = sum_k A^k / k!`` of each square matrix (``tf.linalg.expm``)."""
    _float_matrix(input, "expm", square=True)
    return _expm_np(input).astype(input.dtype)


@matrix_exponential.defvjp
def _(g, ans, a):
    n = a.shape[-1]
    at = _t(a)
    zeros = _zeros_like(a)
    block = concat([concat([at, g], axis=-1), concat([zeros, at], axis=-1)], axis=-2)
    return matrix_exponential(block)[..., :n, n:]


# ------------------------------------------------------------------------------------------------------ sqrtm
def _sqrtm_np(a: np.ndarray) -> np.ndarray:
    """The principal square root by the Denman-Beavers iteration (``Y -> (Y + Z^-1) / 2``,
    ``Z -> (Z + Y^-1) / 2`` from ``Y = A``, ``Z = I``: ``Y -> A^1/2``), in float64; NaN where it does not
    converge (an eigenvalue on the closed negative real axis: no real principal root)."""
    x = a.astype(np.float64)
    n = x.shape[-1]
    y, z = x.copy(), np.broadcast_to(np.eye(n), x.shape).copy()
    scale = np.maximum(np.abs(x).sum(axis=(-2, -1), keepdims=True), 1e-300)
    for _ in range(100):
        try:
            y_next, z = 0.5 * (y + np.linalg.inv(z)), 0.5 * (z + np.linalg.inv(y))
        except np.linalg.LinAlgError:
            return np.full(x.shape, np.nan)
        done = np.abs(y_next - y).max(axis=(-2, -1), keepdims=True) <= 1e-15 * np.sqrt(scale) * n
        y = y_next
        if np.all(done):
            break
    ok = np.abs(y @ y - x).max(axis=(-2, -1), keepdims=True) <= 1e-8 * scale
    return np.where(ok, y, np.nan)


@defop
def matrix_square_root(input):  # noqa: A002 - TF's name
    """The principal square root ``X`` (``X @ X = A``) of each square matrix (``tf.linalg.sqrtm``); NaN where
    there is no real one."""
    _float_matrix(input, "sqrtm", square=True)
    return _sqrtm_np(input).astype(input.dtype)


@matrix_square_root.defvjp
def _(g, ans, a):
    # X dX + dX X = dA, so dA solves X^T S + S X^T = G
    return sylvester_plus(_t(ans), g)


@defop(same_dtype=(0, 1))
def sylvester_plus(b, c):
    """``S`` with ``B S + S B = C`` for each square ``B`` (the gradient of ``sqrtm``), by the Kronecker form
    ``(B (x) I + I (x) B^T) vec(S) = vec(C)``."""
    n = b.shape[-1]
    bb, cc = np.broadcast_arrays(_c(b), _c(c))
    flat_b, flat_c = bb.reshape(-1, n, n), cc.reshape(-1, n * n)
    eye = np.eye(n)
    out = np.stack([np.linalg.solve(np.kron(m, eye) + np.kron(eye, m.T), v) for m, v in zip(flat_b, flat_c)])
    return out.reshape(bb.shape).astype(c.dtype)


def _sylvester_grads(h, s, b, c):
    w = sylvester_plus(_t(b), h)
    return negative(add(matmul(w, s, transpose_b=True), matmul(s, w, transpose_a=True))), w


sylvester_plus.defvjp(_sylvester_grads)
