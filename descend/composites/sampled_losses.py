"""``tf.nn``'s candidate sampling and the sampled losses: ``fixed_unigram_candidate_sampler``,
``learned_unigram_candidate_sampler``, ``all_candidate_sampler``, ``compute_accidental_hits``, ``nce_loss`` and ``sampled_softmax_loss``.

A sampler returns ``(sampled_candidates [num_sampled] int64, true_expected_count [batch, num_true] float32,
sampled_expected_count [num_sampled] float32)``. With ``unique=False`` the candidates are ``num_sampled``
independent draws and a class of probability ``p`` is expected ``p * num_sampled`` times. With ``unique=True``
draws go on until ``num_sampled`` distinct classes came out, after ``num_tries`` draws; the expected count is then
``1 - (1 - p)^num_tries`` (the probability of appearing at all), or ``p * num_sampled`` when no draw repeated
(TF's rule, ``num_tries == num_sampled``). The draws come from ``descend.random.uniform`` (float64) with the
op's ``seed``, so a global seed makes them repeatable; they are not TF's numbers, the distributions are.

The sampled losses build, for each example, the logits of its ``num_true`` true classes and of the shared
``num_sampled`` sampled classes, ``x . w_c + b_c - log(expected_count_c)``; with ``remove_accidental_hits`` a
sampled class equal to one of the example's true classes gets ``-FLT_MAX`` added (it then has no weight in
the softmax). ``nce_loss`` sums the sigmoid cross-entropy over those logits with labels ``1/num_true`` for the
true classes and 0 for the sampled ones; ``sampled_softmax_loss`` takes the softmax cross-entropy. The
weights and biases are read with ``embedding_lookup``, so their gradient is an ``IndexedSlices`` of the rows used.

Example:
    >>> import descend as ds, numpy as np
    >>> ds.nn.all_candidate_sampler([[0, 2]], 2, 4, True).sampled_candidates.numpy().tolist()
    [0, 1, 2, 3]
    >>> ds.nn.compute_accidental_hits([[1, 3]], [3, 5, 1], num_true=2).ids.numpy().tolist()
    [2, 0]
"""

from __future__ import annotations

import collections
import math

import numpy as np

from .. import random as _random
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops
from ..ops.nn_ops import embedding_lookup, sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits

__all__ = ["fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler", "all_candidate_sampler",
           "compute_accidental_hits", "nce_loss", "sampled_softmax_loss"]

CandidateSamples = collections.namedtuple("CandidateSamples",
                                          "sampled_candidates true_expected_count sampled_expected_count")
AccidentalHits = collections.namedtuple("AccidentalHits", "indices ids weights")

_FLT_MAX = float(np.finfo(np.float32).max)


def _int(value, what: str, owner: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{owner}: `{what}` must be an integer >= {low}. Received: {what}={value!r}")
    return int(value)


def _true_classes(true_classes, num_true, owner: str) -> np.ndarray:
    t = convert_to_tensor(true_classes).numpy()
    if t.dtype.kind not in "iu":
        raise TypeError(f"{owner}: `true_classes` must be integer class ids. Received dtype {t.dtype.name}")
    if t.ndim != 2 or t.shape[1] != num_true:
        raise ValueError(f"{owner}: `true_classes` must have shape [batch_size, num_true={num_true}]. Received shape "
                         f"{t.shape}")
    return t.astype(np.int64)


def _expected(p: np.ndarray, num_sampled: int, num_tries: int) -> np.ndarray:
    if num_tries == num_sampled:
        return (p * num_sampled).astype(np.float32)
    return (-np.expm1(num_tries * np.log1p(-np.minimum(p, 1.0)))).astype(np.float32)


def _sample(inverse_cdf, num_sampled: int, unique: bool, range_max: int, seed, owner: str):
    """``(candidates, num_tries)``: draws of ``inverse_cdf(u)`` for ``u`` uniform in [0, 1)."""
    if unique and num_sampled > range_max:
        raise ValueError(f"{owner}: with unique=True, `num_sampled` ({num_sampled}) must be <= range_max "
                         f"({range_max})")
    if not unique:
        u = _random.uniform((num_sampled,), dtype="float64", seed=seed).numpy()
        return inverse_cdf(u), num_sampled
    seen, order, tries = set(), [], 0
    while len(order) < num_sampled:
        for c in inverse_cdf(_random.uniform((max(2 * num_sampled, 16),), dtype="float64", seed=seed).numpy()).tolist():
            tries += 1
            if c not in seen:
                seen.add(c)
                order.append(c)
                if len(order) == num_sampled:
                    break
    return np.asarray(order, np.int64), tries


def _sampler_result(t, probs, candidates, num_tries, num_sampled):
    return CandidateSamples(Tensor(candidates.astype(np.int64)),
                            Tensor(_expected(probs[t], num_sampled, num_tries)),
                            Tensor(_expected(probs[candidates], num_sampled, num_tries)))


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None) -> CandidateSamples:
    """Candidates drawn with probability proportional to ``unigrams[c - num_reserved_ids] ** distortion``
    (``tf.nn.fixed_unigram_candidate_sampler``); the ids below ``num_reserved_ids`` are never drawn.

    Args:
        true_classes: ``[batch_size, num_true]`` integer ids (their expected counts are returned).
        num_true, num_sampled: as TF.
        unique: draw without replacement (see the module's notes for the expected counts).
        range_max: the number of classes; ``num_reserved_ids + len(unigrams)`` must equal it.
        vocab_file: a text file with one ``word,count`` per line, used instead of ``unigrams``.
        distortion: the power the counts are raised to.
        num_shards, shard: only 1 and 0 are supported (TF's sharded form requires ``range_max`` to equal one
            shard's size).
        unigrams: the counts or probabilities, one per id from ``num_reserved_ids``.
        seed: the op seed.
    """
    owner = "fixed_unigram_candidate_sampler"
    num_true = _int(num_true, "num_true", owner, 1)
    num_sampled = _int(num_sampled, "num_sampled", owner, 1)
    range_max = _int(range_max, "range_max", owner, 1)
    reserved = _int(num_reserved_ids, "num_reserved_ids", owner)
    if num_shards != 1 or shard != 0:
        raise ValueError(f"{owner}: only num_shards=1, shard=0 is supported. Received num_shards={num_shards!r}, "
                         f"shard={shard!r}")
    t = _true_classes(true_classes, num_true, owner)
    if vocab_file:
        with open(vocab_file, encoding="utf-8") as f:
            counts = [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]
    else:
        counts = [float(u) for u in unigrams]
    if bool(vocab_file) == bool(len(unigrams)):
        raise ValueError(f"{owner}: give exactly one of `vocab_file` and `unigrams`")
    if reserved + len(counts) != range_max:
        raise ValueError(f"{owner}: range_max ({range_max}) must equal num_reserved_ids ({reserved}) plus the number "
                         f"of unigrams ({len(counts)})")
    if any(c < 0 or not math.isfinite(c) for c in counts):
        raise ValueError(f"{owner}: the unigram counts must be finite and non-negative")
    weights = np.concatenate([np.zeros(reserved), np.asarray(counts, np.float64) ** float(distortion)])
    total = weights.sum()
    if not total > 0:
        raise ValueError(f"{owner}: the unigram weights sum to 0: nothing can be drawn")
    probs = weights / total
    if t.size and (t.min() < 0 or t.max() >= range_max):
        raise ValueError(f"{owner}: `true_classes` must be in [0, {range_max}). Received {t.min()}..{t.max()}")
    cum = np.cumsum(weights)

    def inverse_cdf(u):
        return np.minimum(np.searchsorted(cum, u * total, side="right"), range_max - 1).astype(np.int64)

    if unique and num_sampled > np.count_nonzero(weights):
        raise ValueError(f"{owner}: with unique=True, `num_sampled` ({num_sampled}) must be <= the number of classes "
                         f"of non-zero weight ({np.count_nonzero(weights)})")
    candidates, tries = _sample(inverse_cdf, num_sampled, bool(unique), range_max, seed, owner)
    return _sampler_result(t, probs, candidates, tries, num_sampled)


#: the class counts of each learned unigram sampler, keyed as TF's kernel cache keys its state: by the op's
#: attributes (num_true, num_sampled, unique, range_max) and its (global, op) seed pair
_LEARNED: dict = {}


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                                      name=None) -> CandidateSamples:
    """Candidates drawn by the unigram counts of the true classes seen so far (``tf.nn.
    learned_unigram_candidate_sampler``): every class starts at count 1; a call draws (and computes the expected
    counts) from the current counts, then adds its ``true_classes`` to them. As TF's (whose kernel keeps the
    counts), the counts belong to the sampler of these arguments and seed pair: calls with the same op seed (or
    none, without a global seed) share them; under a global seed without an op seed each call starts afresh.
    """
    owner = "learned_unigram_candidate_sampler"
    num_true = _int(num_true, "num_true", owner, 1)
    num_sampled = _int(num_sampled, "num_sampled", owner, 1)
    range_max = _int(range_max, "range_max", owner, 1)
    t = _true_classes(true_classes, num_true, owner)
    if t.size and (t.min() < 0 or t.max() >= range_max):
        raise ValueError(f"{owner}: `true_classes` must be in [0, {range_max}). Received {t.min()}..{t.max()}")
    key = (num_true, num_sampled, bool(unique), range_max, _random.get_seed(seed))
    counts = _LEARNED.setdefault(key, np.ones(range_max, np.float64))
    op_seed = key[-1][1]  # the draws follow the same (global, op) pair
    total = counts.sum()
    cum = np.cumsum(counts)

    def inverse_cdf(u):
        return np.minimum(np.searchsorted(cum, u * total, side="right"), range_max - 1).astype(np.int64)

    candidates, tries = _sample(inverse_cdf, num_sampled, bool(unique), range_max, op_seed, owner)
    result = _sampler_result(t, counts / total, candidates, tries, num_sampled)
    np.add.at(counts, t.reshape(-1), 1.0)  # learn from this batch's true classes
    return result


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None) -> CandidateSamples:
    """Every class ``0 .. num_sampled - 1`` as the candidates, all expected counts 1
    (``tf.nn.all_candidate_sampler``, for testing); ``true_classes`` must be below ``num_sampled``."""
    owner = "all_candidate_sampler"
    num_true = _int(num_true, "num_true", owner, 1)
    num_sampled = _int(num_sampled, "num_sampled", owner, 1)
    t = _true_classes(true_classes, num_true, owner)
    if t.size and (t.min() < 0 or t.max() >= num_sampled):
        raise ValueError(f"{owner}: `true_classes` must be in [0, {num_sampled}). Received {t.min()}..{t.max()}")
    return CandidateSamples(Tensor(np.arange(num_sampled, dtype=np.int64)), Tensor(np.ones(t.shape, np.float32)),
                            Tensor(np.ones(num_sampled, np.float32)))


def _log_uniform(true_classes, num_true, num_sampled, unique, range_max, seed, owner):
    # P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), drawn as floor(exp(u log(range_max + 1))) - 1
    t = _true_classes(true_classes, num_true, owner)
    log_range = math.log(range_max + 1)
    classes = np.arange(range_max, dtype=np.float64)
    probs = (np.log(classes + 2) - np.log(classes + 1)) / log_range

    def inverse_cdf(u):
        return np.clip(np.floor(np.exp(u * log_range)).astype(np.int64) - 1, 0, range_max - 1)

    candidates, tries = _sample(inverse_cdf, num_sampled, unique, range_max, seed, owner)
    return _sampler_result(np.clip(t, 0, range_max - 1), probs, candidates, tries, num_sampled)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None) -> AccidentalHits:
    """Where a sampled candidate equals one of an example's true classes (``tf.nn.compute_accidental_hits``):
    ``indices`` (int32, the example), ``ids`` (int64, the position in ``sampled_candidates``; the last one for a
    repeated candidate, as TF) and ``weights`` (float32, ``-FLT_MAX``), in the order of the true classes."""
    owner = "compute_accidental_hits"
    num_true = _int(num_true, "num_true", owner, 1)
    t = _true_classes(true_classes, num_true, owner)
    s = convert_to_tensor(sampled_candidates).numpy()
    if s.ndim != 1 or s.dtype.kind not in "iu":
        raise ValueError(f"{owner}: `sampled_candidates` must be a vector of integer ids. Received shape {s.shape}, "
                         f"dtype {s.dtype.name}")
    position = {int(c): j for j, c in enumerate(s.tolist())}  # a repeated candidate keeps its last position
    hits = [(i, position[c]) for i, row in enumerate(t.tolist()) for c in row if c in position]
    indices = np.asarray([h[0] for h in hits], np.int32)
    ids = np.asarray([h[1] for h in hits], np.int64)
    return AccidentalHits(Tensor(indices), Tensor(ids), Tensor(np.full(len(hits), -_FLT_MAX, np.float32)))


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                    remove_accidental_hits, seed, owner):
    num_true = _int(num_true, "num_true", owner, 1)
    num_sampled = _int(num_sampled, "num_sampled", owner, 1)
    num_classes = _int(num_classes, "num_classes", owner, 1)
    x = convert_to_tensor(inputs)
    if x.ndim != 2:
        raise ValueError(f"{owner}: `inputs` must have shape [batch_size, dim]. Received shape {tuple(x.shape)}")
    lab = convert_to_tensor(labels).numpy()
    if lab.dtype.kind not in "iu":
        raise TypeError(f"{owner}: `labels` must be integer class ids. Received dtype {lab.dtype.name}")
    lab = lab.reshape(-1, num_true).astype(np.int64)
    if lab.shape[0] != x.shape[0]:
        raise ValueError(f"{owner}: `labels` must have shape [batch_size={x.shape[0]}, num_true={num_true}]. "
                         f"Received {lab.shape[0]} rows")
    if sampled_values is None:
        sampled_values = _log_uniform(lab, num_true, num_sampled, True, num_classes, seed, owner)
    sampled, true_expected, sampled_expected = (convert_to_tensor(v).numpy() for v in sampled_values)
    sampled = sampled.astype(np.int64)
    batch = x.shape[0]
    all_ids = np.concatenate([lab.reshape(-1), sampled])
    all_w = embedding_lookup(weights, all_ids)
    all_b = embedding_lookup(biases, all_ids)
    n_true = lab.size
    true_w = array_ops.reshape(all_w[:n_true], shape=(batch, num_true, x.shape[1]))
    sampled_w = all_w[n_true:]
    # the true logits: x . w_c + b_c per example and true class; the sampled ones: x W_s^T + b_s
    true_logits = math_ops.add(math_ops.reduce_sum(math_ops.multiply(array_ops.expand_dims(x, 1), true_w), axis=2),
                               array_ops.reshape(all_b[:n_true], shape=(batch, num_true)))
    sampled_logits = math_ops.add(math_ops.matmul(x, sampled_w, transpose_b=True), all_b[n_true:])
    dtype = x.dtype.name
    if remove_accidental_hits:
        hits = compute_accidental_hits(lab, sampled, num_true)
        mask = np.zeros((batch, sampled.size), dtype)
        mask[hits.indices.numpy(), hits.ids.numpy()] = -_FLT_MAX
        sampled_logits = math_ops.add(sampled_logits, Tensor(mask))
    # subtract log Q (the expected counts of the sampler)
    true_logits = math_ops.subtract(true_logits, Tensor(np.log(true_expected.astype(np.float64)).astype(dtype)))
    sampled_logits = math_ops.subtract(sampled_logits, Tensor(np.log(sampled_expected.astype(np.float64)).astype(dtype)))
    logits = array_ops.concat([true_logits, sampled_logits], axis=1)
    targets = np.concatenate([np.full((batch, num_true), 1.0 / num_true), np.zeros((batch, sampled.size))], axis=1)
    return logits, Tensor(targets.astype(dtype))


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, name="nce_loss") -> Tensor:
    """The noise-contrastive estimation loss of each example (``tf.nn.nce_loss``): the sum over its true and
    sampled classes of the sigmoid cross-entropy of ``x . w_c + b_c - log Q(c)``.

    Args:
        weights: ``[num_classes, dim]`` (a Variable, a Tensor, or a list of row shards).
        biases: ``[num_classes]``.
        labels: ``[batch_size, num_true]`` integer classes.
        inputs: ``[batch_size, dim]``.
        num_sampled: the number of classes drawn (log-uniformly, without replacement, unless
            ``sampled_values`` gives a sampler's result).
        num_classes: the number of classes.
        remove_accidental_hits: drop the sampled classes equal to a true class of the example.

    Returns:
        ``[batch_size]`` losses.
    """
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                      sampled_values, remove_accidental_hits, None, "nce_loss")
    return math_ops.reduce_sum(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits), axis=1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, seed=None, name="sampled_softmax_loss") -> Tensor:
    """The softmax cross-entropy over each example's true and sampled classes, with logits ``x . w_c + b_c -
    log Q(c)`` (``tf.nn.sampled_softmax_loss``); arguments as :func:`nce_loss`, accidental hits removed by
    default, ``seed`` for the default log-uniform sampler.

    Returns:
        ``[batch_size]`` losses.
    """
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                      sampled_values, remove_accidental_hits, seed, "sampled_softmax_loss")
    return softmax_cross_entropy_with_logits(labels=targets, logits=logits)
