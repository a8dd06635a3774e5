"""Text preprocessing layers: ``StringLookup`` (tokens to indices) and ``TextVectorization`` (texts to token
indices or bag-of-words vectors), with Keras 3's arguments, vocabulary order and outputs.

``adapt`` learns the vocabulary as Keras does: tokens by count, most frequent first, ties broken by the larger
token (bytes order) first; ``max_tokens`` keeps the first ones after the special tokens (the mask token ``""``
in ``"int"`` mode of ``TextVectorization``, then the OOV token ``"[UNK]"``). ``tf_idf`` weights are
``log(1 + documents / (1 + documents holding the token))``, the OOV token's their mean.

With ``num_oov_indices > 1`` an OOV token's index is picked by TF's fingerprint64, as Keras. Not supported (a
clear error): ``sparse=True``, vocabulary files.

``get_config`` has Keras' keys. Its ``vocabulary`` (and ``idf_weights``) is the one given to the constructor or,
after ``adapt``, the learned one (special tokens left out): descend has no asset files, where Keras keeps an
adapted vocabulary, so the config carries it and a saved model keeps it (Keras reads such a config too).
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from ..strings import RaggedTensor
from ..strings import lower as _lower
from ..strings import ngrams as _ngrams
from ..strings import regex_replace as _regex_replace
from ..strings import split as _split
from ..strings import to_hash_bucket_fast as _hash_bucket
from ..strings import unicode_split as _unicode_split
from .base import Layer

__all__ = ["StringLookup", "TextVectorization"]

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
# ASCII punctuation, as Keras' "strip_punctuation" removes it
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


def _token(x, what: str) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    raise TypeError(f"{what} must be a str or bytes; received {type(x).__name__} {x!r}")


def _string_array(x, layer: str) -> np.ndarray:
    t = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if t.dtype != backend.string:
        raise TypeError(f"{layer}: expected string inputs; received dtype {t.dtype.name}")
    return t._value


class _Vocabulary:
    """The token table both layers share: special tokens, learned/given tokens, idf weights, lookup and encoding."""

    def __init__(self, layer: str, max_tokens, num_oov_indices, mask_token, oov_token, output_mode,
                 pad_to_max_tokens):
        if max_tokens is not None and (not isinstance(max_tokens, (int, np.integer)) or max_tokens <= 1):
            raise ValueError(f"{layer}: `max_tokens` must be an int > 1 or None. Received: max_tokens={max_tokens!r}")
        if not isinstance(num_oov_indices, (int, np.integer)) or num_oov_indices < 0:
            raise ValueError(f"{layer}: `num_oov_indices` must be an int >= 0. Received: {num_oov_indices!r}")
        if output_mode not in _MODES:
            raise ValueError(f"{layer}: `output_mode` must be one of {list(_MODES)}. Received: "
                             f"output_mode={output_mode!r}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{layer}: `pad_to_max_tokens=True` needs `max_tokens`. Received: max_tokens=None")
        self.layer = layer
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.num_oov = int(num_oov_indices)
        self.mask = None if mask_token is None else _token(mask_token, f"{layer}: mask_token")
        self.oov = _token(oov_token, f"{layer}: oov_token")
        self.mode = output_mode
        self.pad = bool(pad_to_max_tokens)
        self.tokens: list[bytes] = []
        self.index: dict[bytes, int] = {}
        self.idf = None  # float32 weights per index (specials included) for tf_idf

    @property
    def start(self) -> int:
        return (self.mask is not None) + self.num_oov

    def specials(self) -> list:
        return ([self.mask] if self.mask is not None else []) + [self.oov] * self.num_oov

    def size(self) -> int:
        return self.start + len(self.tokens)

    def set(self, vocabulary, idf_weights=None) -> None:
        """Use ``vocabulary`` (leading special tokens allowed, in order) and, for tf_idf, its ``idf_weights``."""
        if isinstance(vocabulary, (str, bytes)):
            raise ValueError(f"{self.layer}: vocabulary files are not supported; pass a list of tokens. "
                             f"Received: {vocabulary!r}")
        values = getattr(vocabulary, "_value", vocabulary)
        tokens = [_token(t, f"{self.layer}: a vocabulary token") for t in np.asarray(values, dtype=object).reshape(-1).tolist()]
        specials = self.specials()
        if tokens[:len(specials)] == specials and specials:
            tokens = tokens[len(specials):]
        for t in tokens:
            if (self.mask is not None and t == self.mask) or (self.num_oov and t == self.oov):
                raise ValueError(f"{self.layer}: the special token {t.decode('utf-8', 'replace')!r} may only start "
                                 f"the vocabulary (mask token, then OOV token). Received: {vocabulary!r}")
        if len(set(tokens)) != len(tokens):
            repeated = sorted({t for t in tokens if tokens.count(t) > 1})
            raise ValueError(f"{self.layer}: the vocabulary has repeated tokens {repeated}")
        if self.max_tokens is not None and self.start + len(tokens) > self.max_tokens:
            raise ValueError(f"{self.layer}: a vocabulary of {self.start + len(tokens)} tokens (special tokens "
                             f"included) is more than max_tokens={self.max_tokens}")
        if self.mode == "tf_idf":
            if idf_weights is None:
                raise ValueError(f"{self.layer}: `idf_weights` must be given with a vocabulary in tf_idf mode")
            w = np.asarray(getattr(idf_weights, "_value", idf_weights), dtype=np.float32).reshape(-1)
            if w.shape[0] == len(tokens) + self.start:
                w = w[self.start:]
            if w.shape[0] != len(tokens):
                raise ValueError(f"{self.layer}: `idf_weights` must have one weight per vocabulary token "
                                 f"({len(tokens)}); received {w.shape[0]}")
            self._set_idf(w)
        elif idf_weights is not None:
            raise ValueError(f"{self.layer}: `idf_weights` is only for output_mode='tf_idf'. "
                             f"Received: output_mode={self.mode!r}")
        self.tokens = tokens
        self.index = {t: i + self.start for i, t in enumerate(tokens)}

    def _set_idf(self, weights: np.ndarray) -> None:
        oov = float(np.mean(weights)) if weights.size else 0.0
        head = ([0.0] if self.mask is not None else []) + [oov] * self.num_oov
        self.idf = np.concatenate([np.asarray(head, np.float32), weights.astype(np.float32)])

    def learn(self, documents) -> None:
        """Learn the vocabulary from an iterable of documents, each a list of tokens (bytes)."""
        counts: dict[bytes, int] = {}
        doc_counts: dict[bytes, int] = {}
        n_docs = 0
        for doc in documents:
            n_docs += 1
            for t in doc:
                counts[t] = counts.get(t, 0) + 1
            if self.mode == "tf_idf":
                for t in set(doc):
                    doc_counts[t] = doc_counts.get(t, 0) + 1
        specials = set(self.specials())
        ranked = sorted((t for t in counts if t not in specials), key=lambda t: (counts[t], t), reverse=True)
        if self.max_tokens is not None:
            ranked = ranked[:self.max_tokens - self.start]
        self.tokens = ranked
        self.index = {t: i + self.start for i, t in enumerate(ranked)}
        if self.mode == "tf_idf":
            self._set_idf(np.log(1.0 + n_docs / (1.0 + np.array([doc_counts[t] for t in ranked], np.float64))))

    def config(self, given, given_idf) -> dict:
        """The config's ``vocabulary`` and ``idf_weights``: the ones given to the constructor or, after ``adapt``,
        the learned tokens (special tokens left out) and their weights, so that a saved model keeps them."""
        if given is None and not self.tokens:
            return {"vocabulary": None, "idf_weights": None}
        if given is None:
            idf = None if self.idf is None else self.idf[self.start:].tolist()
            return {"vocabulary": self.vocabulary(False), "idf_weights": idf}
        idf = None if given_idf is None else np.asarray(getattr(given_idf, "_value", given_idf)).tolist()
        return {"vocabulary": [_token(t, "token").decode("utf-8") for t in given], "idf_weights": idf}

    def vocabulary(self, include_special_tokens: bool = True) -> list:
        tokens = (self.specials() if include_special_tokens else []) + self.tokens
        return [t.decode("utf-8", "replace") for t in tokens]

    def lookup(self, arr: np.ndarray) -> np.ndarray:
        """Token indices (int64) of an object array of bytes."""
        out = np.empty(arr.shape, dtype=np.int64)
        flat = out.reshape(-1)
        index, mask = self.index, self.mask
        oov = 1 if mask is not None else 0  # the OOV index follows the mask token's
        several = []
        for i, t in enumerate(arr.reshape(-1).tolist()):
            j = index.get(t)
            if j is None:
                if mask is not None and t == mask:
                    j = 0
                elif self.num_oov == 0:
                    raise InvalidArgumentError(f"{self.layer}: when `num_oov_indices=0` all inputs should be in the "
                                               f"vocabulary; found OOV value {t!r}")
                else:
                    j = oov
                    several.append(i)
            flat[i] = j
        if len(several) and self.num_oov > 1:  # several OOV indices: TF's fingerprint64 picks one, as Keras
            picks = np.asarray(several)
            flat[picks] += _hash_bucket(Tensor(arr.reshape(-1)[picks]), self.num_oov)._value
        return out

    def invert(self, ids: np.ndarray) -> np.ndarray:
        table = self.specials() + self.tokens
        oov = self.oov
        out = np.empty(ids.shape, dtype=object)
        flat = out.reshape(-1)
        for i, j in enumerate(ids.reshape(-1).tolist()):
            flat[i] = table[j] if 0 <= j < len(table) else oov
        return out

    def depth(self) -> int:
        return self.max_tokens if self.pad else self.size()

    def encode(self, ids: np.ndarray) -> np.ndarray:
        """``ids`` (one row per sample) in a non-int output mode."""
        depth = self.depth()
        if self.mode == "one_hot":
            if ids.ndim and ids.shape[-1] == 1:
                ids = ids[..., 0]
            return (ids[..., None] == np.arange(depth)).astype(np.int64)
        rows = ids.reshape(1, -1) if ids.ndim <= 1 else ids
        if rows.ndim != 2:
            raise ValueError(f"{self.layer}: output_mode={self.mode!r} needs inputs of rank <= 2; received shape "
                             f"{ids.shape}")
        counts = np.zeros((rows.shape[0], depth), dtype=np.int64)
        for r in range(rows.shape[0]):
            counts[r] = np.bincount(rows[r][rows[r] < depth], minlength=depth)[:depth]
        if self.mode == "multi_hot":
            counts = (counts > 0).astype(np.int64)
        if self.mode == "tf_idf":
            if self.idf is None:
                raise ValueError(f"{self.layer}: output_mode='tf_idf' needs idf weights: call adapt() or pass "
                                 f"`vocabulary` and `idf_weights`")
            w = np.zeros(depth, np.float32)
            w[:min(depth, self.idf.shape[0])] = self.idf[:depth]
            counts = counts.astype(np.float32) * w
        return counts[0] if ids.ndim <= 1 else counts


def _batches(data, layer: str):
    """The string arrays ``adapt`` reads: a Dataset's elements, or one array/list/Tensor."""
    if hasattr(data, "_open") or type(data).__name__.endswith("Dataset"):  # a descend.data.Dataset
        for element in data:
            yield _string_array(element, layer)
    else:
        yield _string_array(data, layer)


class StringLookup(Layer):
    """Maps string tokens to integer indices (or back, with ``invert=True``), as Keras' ``StringLookup``.

    Args:
        max_tokens: the most tokens the vocabulary holds, special tokens included (None: no limit).
        num_oov_indices: how many OOV indices (an OOV token's is ``fingerprint64(token) % num_oov_indices``
            after the mask index, as Keras); 0 makes OOV tokens an error.
        mask_token: a token that maps to 0 (None: no mask token).
        oov_token: the OOV token's text (``"[UNK]"``).
        vocabulary: a list of tokens (instead of ``adapt``).
        idf_weights: with ``output_mode="tf_idf"`` and a vocabulary, one weight per token.
        invert: map indices to tokens.
        output_mode: ``"int"``, ``"one_hot"``, ``"multi_hot"``, ``"count"`` or ``"tf_idf"``.
        pad_to_max_tokens: non-int outputs are ``max_tokens`` wide.

    Example:
        >>> import descend as ds
        >>> layer = ds.layers.StringLookup(vocabulary=["a", "b"])
        >>> layer(["b", "x", "a"]).numpy()
        array([2, 0, 1])
    """

    _autocast = False  # the inputs are strings (or, inverted, indices)

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, **kwargs):
        for key in ("vocabulary_size", "oov_method", "salt"):  # Keras' config keys with nothing to set here
            value = kwargs.pop(key, None)
            if key == "oov_method" and value not in (None, "floormod"):
                raise ValueError(f"StringLookup: only oov_method='floormod' is supported. Received: {value!r}")
        super().__init__(name=name, **kwargs)
        if sparse:
            raise NotImplementedError("StringLookup: sparse=True is not supported (descend has no SparseTensor)")
        if encoding not in ("utf-8", "UTF-8"):
            raise ValueError(f"StringLookup: only encoding='utf-8' is supported. Received: encoding={encoding!r}")
        if invert and output_mode != "int":
            raise ValueError(f"StringLookup: `invert=True` needs output_mode='int'. Received: {output_mode!r}")
        self._vocab = _Vocabulary("StringLookup", max_tokens, num_oov_indices, mask_token, oov_token, output_mode,
                                  pad_to_max_tokens)
        self.invert = bool(invert)
        self.input_vocabulary = None if vocabulary is None else list(np.asarray(
            getattr(vocabulary, "_value", vocabulary), dtype=object).reshape(-1).tolist())
        self.input_idf_weights = idf_weights
        if vocabulary is not None:
            self._vocab.set(vocabulary, idf_weights)

    # Keras' attribute names
    max_tokens = property(lambda self: self._vocab.max_tokens)
    num_oov_indices = property(lambda self: self._vocab.num_oov)
    output_mode = property(lambda self: self._vocab.mode)
    pad_to_max_tokens = property(lambda self: self._vocab.pad)
    mask_token = property(lambda self: None if self._vocab.mask is None else self._vocab.mask.decode("utf-8"))
    oov_token = property(lambda self: self._vocab.oov.decode("utf-8"))

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens by index (special tokens first unless ``include_special_tokens=False``)."""
        return self._vocab.vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._vocab.size()

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        self._vocab.set(vocabulary, idf_weights)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learn the vocabulary from ``data`` (strings: an array, list, Tensor or Dataset); each element of a
        vector, or each row of a matrix, is one document (for tf_idf)."""
        def documents():
            for i, arr in enumerate(_batches(data, "StringLookup.adapt")):
                if steps is not None and i >= steps:
                    return
                rows = arr.reshape(-1, 1) if arr.ndim <= 1 else arr.reshape(arr.shape[0], -1)
                yield from rows.tolist()
        self._vocab.learn(documents())

    def call(self, inputs):
        if self.invert:
            ids = convert_to_tensor(inputs)._value
            if ids.dtype.kind not in "iu":
                raise TypeError(f"StringLookup(invert=True): expected integer inputs; received dtype {ids.dtype}")
            return Tensor(self._vocab.invert(ids))
        ids = self._vocab.lookup(_string_array(inputs, "StringLookup"))
        return Tensor(ids if self._vocab.mode == "int" else self._vocab.encode(ids))

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        if self.invert or self.output_mode == "int":
            return shape
        if self.output_mode == "one_hot":
            return (shape[:-1] if shape and shape[-1] == 1 else shape) + (self._vocab.depth(),)
        return (shape[0], self._vocab.depth()) if len(shape) == 2 else (self._vocab.depth(),)

    def get_config(self) -> dict:
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token, "mask_token": self.mask_token,
                "output_mode": self.output_mode, "sparse": False, "pad_to_max_tokens": self.pad_to_max_tokens,
                **self._vocab.config(self.input_vocabulary, self.input_idf_weights),
                "vocabulary_size": self.vocabulary_size(), "oov_method": "floormod", "salt": None,
                "encoding": "utf-8"}


class TextVectorization(Layer):
    """Texts to token indices or bag-of-words vectors, as Keras' ``TextVectorization``: standardize, split, make
    n-grams, look the tokens up.

    Args:
        max_tokens: the most tokens in the vocabulary, special tokens included.
        standardize: ``"lower_and_strip_punctuation"`` (default), ``"lower"``, ``"strip_punctuation"``, None, or
            a callable on a string tensor.
        split: ``"whitespace"`` (default), ``"character"``, None (each text one token), or a callable returning a
            RaggedTensor.
        ngrams: None, an int n (1..n-grams) or a tuple of widths.
        output_mode: ``"int"`` (indices, 0 the padding, 1 OOV), ``"multi_hot"``, ``"count"`` or ``"tf_idf"``.
        output_sequence_length: in ``"int"`` mode, pad or cut each row to this length (else to the longest row).
        pad_to_max_tokens: non-int outputs are ``max_tokens`` wide.
        vocabulary, idf_weights: a given vocabulary (instead of ``adapt``).
        ragged: in ``"int"`` mode, return a RaggedTensor of rows.

    Example:
        >>> import descend as ds
        >>> tv = ds.layers.TextVectorization()
        >>> tv.adapt(["The cat sat.", "the dog"])
        >>> tv.get_vocabulary()
        ['', '[UNK]', 'the', 'sat', 'dog', 'cat']
        >>> tv(["the cat", "a dog"]).numpy()
        array([[2, 5],
               [1, 4]])
    """

    _autocast = False

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, **kwargs):
        kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        if output_mode == "one_hot":
            raise ValueError("TextVectorization: `output_mode` must be one of 'int', 'multi_hot', 'count', 'tf_idf'. "
                             "Received: output_mode='one_hot'")
        if standardize not in (None, "lower_and_strip_punctuation", "lower", "strip_punctuation") \
                and not callable(standardize):
            raise ValueError("TextVectorization: `standardize` must be None, 'lower_and_strip_punctuation', 'lower', "
                             f"'strip_punctuation' or a callable. Received: standardize={standardize!r}")
        if split not in (None, "whitespace", "character") and not callable(split):
            raise ValueError("TextVectorization: `split` must be None, 'whitespace', 'character' or a callable. "
                             f"Received: split={split!r}")
        widths = None
        if ngrams is not None:
            if isinstance(ngrams, (int, np.integer)) and not isinstance(ngrams, bool) and ngrams >= 1:
                widths = tuple(range(1, int(ngrams) + 1))
            elif isinstance(ngrams, (tuple, list)) and ngrams and all(
                    isinstance(n, (int, np.integer)) and n >= 1 for n in ngrams):
                widths = tuple(int(n) for n in ngrams)
            else:
                raise ValueError(f"TextVectorization: `ngrams` must be None, a positive int or a tuple of positive "
                                 f"ints. Received: ngrams={ngrams!r}")
        if output_sequence_length is not None:
            if output_mode != "int":
                raise ValueError("TextVectorization: `output_sequence_length` is only for output_mode='int'. "
                                 f"Received: output_mode={output_mode!r}")
            if not isinstance(output_sequence_length, (int, np.integer)) or output_sequence_length < 1:
                raise ValueError("TextVectorization: `output_sequence_length` must be a positive int. Received: "
                                 f"{output_sequence_length!r}")
        if ragged and output_mode != "int":
            raise ValueError(f"TextVectorization: `ragged=True` needs output_mode='int'. Received: {output_mode!r}")
        if ragged and output_sequence_length is not None:
            raise ValueError("TextVectorization: `output_sequence_length` cannot be set with `ragged=True`")
        if sparse:
            raise NotImplementedError("TextVectorization: sparse=True is not supported (descend has no SparseTensor)")
        if encoding not in ("utf-8", "UTF-8"):
            raise ValueError(f"TextVectorization: only encoding='utf-8' is supported. Received: {encoding!r}")
        self._vocab = _Vocabulary("TextVectorization", max_tokens, 1, "" if output_mode == "int" else None, "[UNK]",
                                  output_mode, pad_to_max_tokens)
        self.standardize = standardize
        self.split = split
        self.ngrams = ngrams if not isinstance(ngrams, list) else tuple(ngrams)
        self._widths = widths
        self.output_sequence_length = None if output_sequence_length is None else int(output_sequence_length)
        self.ragged = bool(ragged)
        self.input_vocabulary = None if vocabulary is None else list(np.asarray(
            getattr(vocabulary, "_value", vocabulary), dtype=object).reshape(-1).tolist())
        self.input_idf_weights = idf_weights
        if vocabulary is not None:
            self._vocab.set(vocabulary, idf_weights)

    max_tokens = property(lambda self: self._vocab.max_tokens)
    output_mode = property(lambda self: self._vocab.mode)
    pad_to_max_tokens = property(lambda self: self._vocab.pad)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        return self._vocab.vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._vocab.size()

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        self._vocab.set(vocabulary, idf_weights)

    def _texts(self, inputs) -> tuple:
        """(the texts as a vector, whether the input was a scalar)."""
        a = _string_array(inputs, "TextVectorization")
        if a.ndim == 2 and a.shape[1] == 1:
            a = a[:, 0]
        if a.ndim > 1:
            raise ValueError(f"TextVectorization: inputs must be a scalar, a vector or a (batch, 1) matrix of "
                             f"strings; received shape {a.shape}")
        return (a.reshape(1), True) if a.ndim == 0 else (a, False)

    def _tokens(self, texts: np.ndarray) -> list:
        """Each text's tokens (a list of bytes) after standardize, split and ngrams."""
        x = Tensor(texts)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            x = _lower(x)  # ASCII letters only, as Keras (tf.strings.lower without an encoding)
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            x = _regex_replace(x, _PUNCTUATION, "")
        if callable(self.standardize):
            x = convert_to_tensor(self.standardize(x))
        if self.split is None:
            rows = [[t] for t in x._value.reshape(-1).tolist()]
        else:
            if self.split == "whitespace":
                r = _split(x)
            elif self.split == "character":
                r = _unicode_split(x, "UTF-8")
            else:
                r = self.split(x)
            if not isinstance(r, RaggedTensor):
                r = RaggedTensor.from_rows([np.asarray(row, dtype=object) for row in convert_to_tensor(r)._value])
            rows = r.to_list()
        if self._widths is not None:
            rows = _ngrams(RaggedTensor.from_rows([np.array(row + [b""], dtype=object)[:-1] for row in rows],
                                                  dtype="string"), list(self._widths)).to_list()
        return rows

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learn the vocabulary (and idf weights) from texts: an array, list, Tensor or Dataset of strings."""
        def documents():
            for i, arr in enumerate(_batches(data, "TextVectorization.adapt")):
                if steps is not None and i >= steps:
                    return
                texts, _ = self._texts(arr)
                yield from self._tokens(texts)
        self._vocab.learn(documents())

    def call(self, inputs):
        texts, scalar = self._texts(inputs)
        rows = self._tokens(texts)
        lookup = self._vocab.lookup
        ids = [lookup(np.array(row + [b""], dtype=object)[:-1]) for row in rows]
        if self.output_mode != "int":
            width = self._vocab.depth()
            out = np.stack([self._vocab.encode(row) for row in ids]) if ids else np.zeros((0, width))
            return Tensor(out[0] if scalar else out)
        if self.ragged:
            return RaggedTensor.from_rows(ids, dtype="int64")
        if self.split is None and self.output_sequence_length is None:  # one token per text: the texts' shape
            out = np.array([row[0] for row in ids], dtype=np.int64)
            return Tensor(out[0] if scalar else out)
        width = self.output_sequence_length
        if width is None:
            width = max((row.shape[0] for row in ids), default=0)
        out = np.zeros((len(ids), width), dtype=np.int64)
        for r, row in enumerate(ids):
            row = row[:width]
            out[r, :row.shape[0]] = row
        return Tensor(out[0] if scalar else out)

    def compute_output_shape(self, input_shape):
        batch = tuple(input_shape)[0] if len(tuple(input_shape)) else None
        if self.output_mode == "int":
            return (batch, self.output_sequence_length)
        return (batch, self._vocab.depth())

    def get_config(self) -> dict:
        return {**super().get_config(), "max_tokens": self.max_tokens, "standardize": self.standardize,
                "split": self.split, "ngrams": self.ngrams, "output_mode": self.output_mode,
                "output_sequence_length": self.output_sequence_length, "pad_to_max_tokens": self.pad_to_max_tokens,
                "sparse": False, "ragged": self.ragged,
                **self._vocab.config(self.input_vocabulary, self.input_idf_weights),
                "encoding": "utf-8", "vocabulary_size": self.vocabulary_size()}
