"""``IndexLookup``: the one token-to-index table behind ``IntegerLookup`` and ``StringLookup`` (and, through a
``StringLookup``, ``TextVectorization``), as Keras builds both on its ``IndexLookup``.

Indices are laid out as Keras does: in ``"int"`` mode the mask token (if any) at 0, then ``num_oov_indices``
OOV indices, then the vocabulary; in the other modes the mask token has no index and masked inputs count
nowhere. ``adapt`` orders tokens by count, most frequent first, ties broken by the larger token first (for
strings, bytes order), and keeps ``max_tokens`` minus the special tokens. With ``num_oov_indices > 1`` an OOV
token's index is picked by the subclass's hash (``floormod`` for ints, TF's fingerprint64 for strings, as
Keras). ``tf_idf`` weights are ``log(1 + documents / (1 + documents holding the token))`` per vocabulary
token, the OOV indices' their mean, the mask's 0.

``get_config``'s ``vocabulary`` (and ``idf_weights``) is the one given to the constructor or, after ``adapt``,
the learned one (special tokens left out): descend has no asset files, where Keras keeps an adapted
vocabulary, so the config carries it and a saved model keeps it (Keras reads such a config too).
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from .base import Layer

__all__ = ["IndexLookup", "adapt_elements"]

OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
#: the deprecated names Keras still accepts for output modes
DEPRECATED_MODES = {"binary": "multi_hot", "tf-idf": "tf_idf"}


def _flat(values) -> list:
    """The elements of a list, array or Tensor as a flat Python list."""
    return np.asarray(getattr(values, "_value", values), dtype=object).reshape(-1).tolist()


def adapt_elements(data, steps=None):
    """The arrays ``adapt`` reads: a Dataset's (or iterable's) first ``steps`` elements (the first part of
    tuples), or one array."""
    from ..data import Dataset

    if isinstance(data, Dataset) or (hasattr(data, "__iter__") and not isinstance(data, (np.ndarray, Tensor, list,
                                                                                          tuple, str, bytes))):
        for i, element in enumerate(data):
            if steps is not None and i >= steps:
                return
            yield element[0] if isinstance(element, tuple) else element
    else:
        yield data


class IndexLookup(Layer):
    """Base of the lookup layers. A subclass says what a token is through five hooks: ``_token`` (one value to
    the table's key), ``_keys`` (call inputs to an array of keys), ``_hash`` (OOV keys to buckets in
    ``[0, n)``), ``_public`` (a key as ``get_vocabulary`` shows it) and ``_tokens_out`` (inverted keys to the
    output Tensor)."""

    _autocast = False  # tokens (or, inverted, indices) are read as they are

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                 output_mode, pad_to_max_tokens, sparse, name=None, oov_method="floormod", salt=None, **kwargs):
        kwargs.pop("vocabulary_size", None)  # written by get_config (as Keras); the vocabulary decides
        super().__init__(name=name, **kwargs)
        what = self._label()
        if oov_method != "floormod" or salt is not None:
            raise ValueError(f"{what}: only oov_method='floormod' without a salt is supported by descend; received "
                             f"oov_method={oov_method!r}, salt={salt!r}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, (int, np.integer))
                                       or max_tokens <= 1):
            raise ValueError(f"{what}: if set, `max_tokens` must be an int greater than 1; received "
                             f"max_tokens={max_tokens!r}")
        if isinstance(num_oov_indices, bool) or not isinstance(num_oov_indices, (int, np.integer)) or \
                num_oov_indices < 0:
            raise ValueError(f"{what}: `num_oov_indices` must be an int >= 0; received num_oov_indices="
                             f"{num_oov_indices!r}")
        output_mode = DEPRECATED_MODES.get(output_mode, output_mode)
        if output_mode not in OUTPUT_MODES:
            raise ValueError(f"{what}: `output_mode` must be one of {list(OUTPUT_MODES)}; received "
                             f"output_mode={output_mode!r}")
        if invert and output_mode != "int":
            raise ValueError(f"{what}: `output_mode` must be 'int' when `invert` is True; received "
                             f"output_mode={output_mode!r}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{what}: `pad_to_max_tokens=True` needs `max_tokens`; received max_tokens=None")
        if sparse:
            raise NotImplementedError(f"{what}: sparse=True is not supported (descend has no SparseTensor)")
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.num_oov_indices = int(num_oov_indices)
        self._mask_key = None if mask_token is None else self._token(mask_token, "mask_token")
        self._oov_key = self._token(oov_token, "oov_token")
        self.invert = bool(invert)
        self.output_mode = output_mode
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.sparse = False
        self._tokens: list = []
        self._index: dict = {}
        self._idf = None  # float32 weights per index (special ones included), tf_idf only
        self.input_vocabulary = None if vocabulary is None else [self._public(self._token(t, "a vocabulary token"))
                                                                 for t in _flat(vocabulary)]
        self.input_idf_weights = None if idf_weights is None else np.asarray(
            getattr(idf_weights, "_value", idf_weights), np.float64).reshape(-1).tolist()
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        elif idf_weights is not None:
            raise ValueError(f"{what}: `idf_weights` needs a `vocabulary`")
        self._build_at_init()

    # ------------------------------------------------------------------ hooks
    def _label(self) -> str:
        return type(self).__name__

    def _token(self, value, what: str):
        raise NotImplementedError

    def _keys(self, inputs) -> np.ndarray:
        raise NotImplementedError

    def _hash(self, keys: list, n: int) -> np.ndarray:
        raise NotImplementedError

    def _public(self, key):
        return key

    def _tokens_out(self, keys: np.ndarray) -> Tensor:
        raise NotImplementedError

    # ------------------------------------------------------------ the table
    @property
    def mask_token(self):
        return None if self._mask_key is None else self._public(self._mask_key)

    @property
    def oov_token(self):
        return self._public(self._oov_key)

    def _mask_indexed(self) -> bool:
        return self._mask_key is not None and self.output_mode == "int"

    def _token_start(self) -> int:
        return int(self._mask_indexed()) + self.num_oov_indices

    def _specials(self) -> list:
        return ([self._mask_key] if self._mask_indexed() else []) + [self._oov_key] * self.num_oov_indices

    def vocabulary_size(self) -> int:
        return self._token_start() + len(self._tokens)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens by index (special tokens first unless ``include_special_tokens=False``)."""
        keys = (self._specials() if include_special_tokens else []) + self._tokens
        return [self._public(k) for k in keys]

    def _idf_table(self, weights: np.ndarray) -> np.ndarray:
        oov = float(np.mean(weights)) if weights.size else 0.0
        head = [0.0] * int(self._mask_indexed()) + [oov] * self.num_oov_indices
        return np.concatenate([np.asarray(head, np.float32), weights.astype(np.float32)])

    def _use(self, tokens: list, idf) -> None:
        self._tokens = tokens
        start = self._token_start()
        self._index = {t: i + start for i, t in enumerate(tokens)}
        self._idf = idf

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Use ``vocabulary`` (tokens, optionally led by the special tokens in :meth:`get_vocabulary`'s order)
        and, in tf_idf mode, its ``idf_weights``. A failure leaves the layer as it was."""
        what = self._label()
        if isinstance(vocabulary, (str, bytes)):
            raise ValueError(f"{what}: vocabulary files are not supported; pass a list of tokens. Received: "
                             f"{vocabulary!r}")
        tokens = [self._token(t, "a vocabulary token") for t in _flat(vocabulary)]
        specials = self._specials()
        if specials and tokens[:len(specials)] == specials:
            tokens = tokens[len(specials):]
        for t in tokens:
            if (self._mask_key is not None and t == self._mask_key) or (self.num_oov_indices and t == self._oov_key):
                raise ValueError(f"{what}: the special token {self._public(t)!r} may only start the vocabulary "
                                 f"(mask token, then OOV token). Received: {vocabulary!r}")
        if len(set(tokens)) != len(tokens):
            repeated = sorted({t for t in tokens if tokens.count(t) > 1})
            raise ValueError(f"{what}: the vocabulary has repeated tokens {[self._public(t) for t in repeated]}")
        if self.max_tokens is not None and self._token_start() + len(tokens) > self.max_tokens:
            raise ValueError(f"{what}: a vocabulary of {self._token_start() + len(tokens)} tokens (special tokens "
                             f"included) is more than max_tokens={self.max_tokens}")
        idf = None
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError(f"{what}: `idf_weights` must be given with a vocabulary in tf_idf mode")
            w = np.asarray(getattr(idf_weights, "_value", idf_weights), dtype=np.float32).reshape(-1)
            if w.shape[0] == len(tokens) + self._token_start():
                w = w[self._token_start():]
            if w.shape[0] != len(tokens):
                raise ValueError(f"{what}: `idf_weights` must have one weight per vocabulary token ({len(tokens)}); "
                                 f"received {w.shape[0]}")
            idf = self._idf_table(w)
        elif idf_weights is not None:
            raise ValueError(f"{what}: `idf_weights` is only for output_mode='tf_idf'. Received: "
                             f"output_mode={self.output_mode!r}")
        self._use(tokens, idf)

    def learn(self, documents) -> None:
        """Learn the vocabulary (and idf weights) from an iterable of documents, each a list of keys."""
        counts: dict = {}
        doc_counts: dict = {}
        n_docs = 0
        for doc in documents:
            n_docs += 1
            for t in doc:
                counts[t] = counts.get(t, 0) + 1
            if self.output_mode == "tf_idf":
                for t in set(doc):
                    doc_counts[t] = doc_counts.get(t, 0) + 1
        skip = ([self._mask_key] if self._mask_key is not None else []) + [self._oov_key] * bool(self.num_oov_indices)
        ranked = sorted((t for t in counts if t not in skip), key=lambda t: (counts[t], t), reverse=True)
        if self.max_tokens is not None:
            ranked = ranked[:self.max_tokens - self._token_start()]
        idf = None
        if self.output_mode == "tf_idf":
            idf = self._idf_table(np.log(1.0 + n_docs / (1.0 + np.array([doc_counts[t] for t in ranked],
                                                                          np.float64))))
        self._use(ranked, idf)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learn the vocabulary from ``data`` (an array, list, Tensor or Dataset); each element of a vector, or
        each row of a matrix, is one document (for tf_idf)."""
        def documents():
            for element in adapt_elements(data, steps):
                arr = self._keys(element)
                rows = arr.reshape(-1, 1) if arr.ndim <= 1 else arr.reshape(arr.shape[0], -1)
                yield from rows.tolist()
        self.learn(documents())

    # ----------------------------------------------------------------- call
    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """The indices (int64) of an array of keys: -1 for the mask token outside int mode."""
        flat = keys.reshape(-1).tolist()
        index = self._index
        out = np.fromiter((index.get(t, -1) for t in flat), dtype=np.int64, count=len(flat))
        masked = np.zeros(out.shape, bool)
        if self._mask_key is not None:
            masked = np.fromiter((t == self._mask_key for t in flat), dtype=bool, count=len(flat))
        oov = (out < 0) & ~masked
        if oov.any():
            if self.num_oov_indices == 0:
                bad = [self._public(t) for t, o in zip(flat, oov) if o][:10]
                raise InvalidArgumentError(f"{self._label()}: when `num_oov_indices=0` all inputs should be in the "
                                           f"vocabulary; found OOV values {bad}")
            picks = np.nonzero(oov)[0]
            bucket = 0 if self.num_oov_indices == 1 else self._hash([flat[i] for i in picks], self.num_oov_indices)
            out[picks] = int(self._mask_indexed()) + np.asarray(bucket, np.int64)
        out[masked] = 0 if self._mask_indexed() else -1
        return out.reshape(keys.shape)

    def _inverse(self, ids: np.ndarray) -> Tensor:
        ids = np.asarray(ids)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"{self._label()}(invert=True): expected integer inputs; received dtype {ids.dtype}")
        table = self._specials() + self._tokens
        flat = ids.reshape(-1).tolist()
        start = self._token_start()
        keys = [table[j] if start <= j < len(table) else self._oov_key for j in flat]
        if self._mask_key is not None:
            keys = [self._mask_key if j == 0 else k for j, k in zip(flat, keys)]
        out = np.empty(len(keys), dtype=object)
        out[:] = keys
        return self._tokens_out(out.reshape(ids.shape))

    def depth(self) -> int:
        return self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()

    def encode(self, ids: np.ndarray) -> np.ndarray:
        """``ids`` (one row per sample; -1 counts nowhere) in the non-int output mode."""
        depth = self.depth()
        if self.output_mode == "one_hot":
            if ids.ndim and ids.shape[-1] == 1:
                ids = ids[..., 0]
            return (ids[..., None] == np.arange(depth)).astype(np.int64)
        rows = ids.reshape(1, -1) if ids.ndim <= 1 else ids
        if rows.ndim != 2:
            raise ValueError(f"{self._label()}: output_mode={self.output_mode!r} needs inputs of rank <= 2; "
                             f"received shape {ids.shape}")
        counts = np.zeros((rows.shape[0], depth), dtype=np.int64)
        for r in range(rows.shape[0]):
            row = rows[r][(rows[r] >= 0) & (rows[r] < depth)]
            counts[r] = np.bincount(row, minlength=depth)[:depth]
        if self.output_mode == "multi_hot":
            counts = (counts > 0).astype(np.int64)
        if self.output_mode == "tf_idf":
            if self._idf is None:
                raise ValueError(f"{self._label()}: output_mode='tf_idf' needs idf weights: call adapt() or pass "
                                 f"`vocabulary` and `idf_weights`")
            w = np.zeros(depth, np.float32)
            w[:min(depth, self._idf.shape[0])] = self._idf[:depth]
            counts = counts.astype(np.float32) * w
        return counts[0] if ids.ndim <= 1 else counts

    def call(self, inputs):
        if self.invert:
            return self._inverse(convert_to_tensor(inputs)._value)
        ids = self.lookup(self._keys(inputs))
        return Tensor(ids if self.output_mode == "int" else self.encode(ids))

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        if self.output_mode == "int":
            return shape
        if self.output_mode == "one_hot":
            return (shape[:-1] if shape and shape[-1] == 1 else shape) + (self.depth(),)
        return shape[:-1] + (self.depth(),) if shape else (self.depth(),)

    def get_config(self) -> dict:
        if self.input_vocabulary is not None:
            vocabulary, idf = self.input_vocabulary, self.input_idf_weights
        elif self._tokens:
            vocabulary = self.get_vocabulary(False)
            idf = None if self._idf is None else self._idf[self._token_start():].tolist()
        else:
            vocabulary = idf = None
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token, "mask_token": self.mask_token,
                "output_mode": self.output_mode, "sparse": False, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary": vocabulary, "idf_weights": idf, "vocabulary_size": self.vocabulary_size(),
                "oov_method": "floormod", "salt": None}
