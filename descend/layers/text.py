"""Text preprocessing layers: ``StringLookup`` (tokens to indices) and ``TextVectorization`` (texts to token
indices or bag-of-words vectors), with Keras 3's arguments, vocabulary order and outputs.

``StringLookup`` is a thin :class:`~descend.layers.index_lookup.IndexLookup` whose tokens are strings (the OOV
token ``"[UNK]"``; with ``num_oov_indices > 1`` an OOV token's index is picked by TF's fingerprint64, as Keras);
the vocabulary learning, OOV/mask handling, output modes and config are there. ``TextVectorization``
standardizes, splits and makes n-grams, then looks the tokens up through a ``StringLookup`` (the mask token
``""`` in ``"int"`` mode, one OOV index), as Keras does. Not supported (a clear error): ``sparse=True``,
vocabulary files.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework.tensor import Tensor, convert_to_tensor
from ..strings import RaggedTensor
from ..strings import lower as _lower
from ..strings import ngrams as _ngrams
from ..strings import regex_replace as _regex_replace
from ..strings import split as _split
from ..strings import to_hash_bucket_fast as _hash_bucket
from ..strings import unicode_split as _unicode_split
from .base import Layer
from .index_lookup import DEPRECATED_MODES, IndexLookup, adapt_elements

__all__ = ["StringLookup", "TextVectorization"]

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


class StringLookup(IndexLookup):
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

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, **kwargs):
        if encoding not in ("utf-8", "UTF-8"):
            raise ValueError(f"{self._label()}: only encoding='utf-8' is supported. Received: encoding={encoding!r}")
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, name=name, **kwargs)

    def _token(self, value, what):
        return _token(value, f"{self._label()}: {what}")

    def _keys(self, inputs) -> np.ndarray:
        return _string_array(inputs, self._label())

    def _hash(self, keys, n):
        arr = np.empty(len(keys), dtype=object)
        arr[:] = keys
        return _hash_bucket(Tensor(arr), n)._value

    def _public(self, key):
        return key.decode("utf-8", "replace")

    def _tokens_out(self, keys):
        return Tensor(keys)

    def get_config(self) -> dict:
        return {**super().get_config(), "encoding": "utf-8"}


class _TextVectorizationLookup(StringLookup):
    """The ``StringLookup`` inside a ``TextVectorization``: its errors name the outer layer."""

    def _label(self) -> str:
        return "TextVectorization"


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
        output_mode = DEPRECATED_MODES.get(output_mode, output_mode)  # Keras' old names ("tf-idf", "binary")
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
        self._lookup = _TextVectorizationLookup(max_tokens=max_tokens, mask_token="" if output_mode == "int" else None,
                                                vocabulary=vocabulary, idf_weights=idf_weights,
                                                output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens)
        self.standardize = standardize
        self.split = split
        self.ngrams = ngrams if not isinstance(ngrams, list) else tuple(ngrams)
        self._widths = widths
        self.output_sequence_length = None if output_sequence_length is None else int(output_sequence_length)
        self.ragged = bool(ragged)

    max_tokens = property(lambda self: self._lookup.max_tokens)
    output_mode = property(lambda self: self._lookup.output_mode)
    pad_to_max_tokens = property(lambda self: self._lookup.pad_to_max_tokens)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        return self._lookup.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._lookup.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        self._lookup.set_vocabulary(vocabulary, idf_weights)

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
            for element in adapt_elements(data, steps):
                texts, _ = self._texts(element)
                yield from self._tokens(texts)
        self._lookup.learn(documents())

    def call(self, inputs):
        texts, scalar = self._texts(inputs)
        rows = self._tokens(texts)
        lookup = self._lookup.lookup
        ids = [lookup(np.array(row + [b""], dtype=object)[:-1]) for row in rows]
        if self.output_mode != "int":
            width = self._lookup.depth()
            out = np.stack([self._lookup.encode(row) for row in ids]) if ids else np.zeros((0, width))
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
        return (batch, self._lookup.depth())

    def get_config(self) -> dict:
        lookup_config = self._lookup.get_config()
        return {**super().get_config(), "max_tokens": self.max_tokens, "standardize": self.standardize,
                "split": self.split, "ngrams": self.ngrams, "output_mode": self.output_mode,
                "output_sequence_length": self.output_sequence_length, "pad_to_max_tokens": self.pad_to_max_tokens,
                "sparse": False, "ragged": self.ragged,
                **{k: lookup_config[k] for k in ("vocabulary", "idf_weights")},
                "encoding": "utf-8", "vocabulary_size": self.vocabulary_size()}
