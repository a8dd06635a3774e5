"""Batch-mixing augmentations, as Keras 3's ``MixUp`` (Zhang et al. 2018) and ``CutMix`` (Yun et al. 2019).

Both pair each image with another of the batch (a random permutation) and mix images and, when the input is a
dict ``{"images": ..., "labels": ...}``, the labels by the same weights (the dict comes back with both mixed; one-hot
or soft labels ``(batch, classes)``). As Keras' image layers, ``get_random_transformation(images)`` draws the
parameters (descend's generator, ``seed``; a recorded random op) and ``transform_images`` / ``transform_labels``
apply them, pure functions of their arguments: on Keras' draws they give Keras' results
(tests/test_mixing.py). With ``training=False`` the inputs come back unchanged (images cast to the layer's dtype).

Example:
    >>> import descend as ds, numpy as np
    >>> out = ds.layers.MixUp(alpha=0.2, seed=1)({"images": np.ones((4, 2, 2, 3), np.float32),
    ...                                           "labels": np.eye(4, dtype=np.float32)})
    >>> out["images"].shape, np.allclose(out["labels"].numpy().sum(axis=1), 1.0)
    (TensorShape([4, 2, 2, 3]), True)
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ..ops.random_draw import draw
from .preprocessing import _Random

__all__ = ["MixUp", "CutMix"]


def _number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


class _Mixing(_Random):
    def __init__(self, data_format=None, seed=None, **kwargs):
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"{type(self).__name__}: `data_format` must be 'channels_last' or 'channels_first'. "
                             f"Received: data_format={data_format!r}")
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras
        super().__init__(seed=seed, **kwargs)

    def _as_tensor(self, value):
        return value if isinstance(value, Tensor) else Tensor(np.asarray(value))

    def call(self, inputs, training=True):
        if isinstance(inputs, dict):
            if "images" not in inputs:
                raise ValueError(f"{type(self).__name__}: a dict input needs an 'images' entry. Received keys: "
                                 f"{sorted(inputs)}")
            images = self._images(inputs["images"])
            out = dict(inputs)
        else:
            images, out = self._images(inputs), None
        t = self.get_random_transformation(images, training=training) if training else None
        mixed = self.transform_images(images, t, training=training)
        if out is None:
            return mixed
        out["images"] = mixed
        if "labels" in inputs:
            out["labels"] = self.transform_labels(inputs["labels"], t, training=training)
        return out

    def transform_labels(self, labels, transformation, training=True):
        """``w * labels + (1 - w) * labels[permutation]`` per example (Keras' rule)."""
        y = convert_to_tensor(labels)
        if not training or transformation is None:
            return y
        if y.dtype.kind != "f":
            y = math_ops.cast(y, dtype=self.compute_dtype)
        if y.ndim < 1:
            raise ValueError(f"{type(self).__name__}: labels need a batch axis. Received shape {tuple(y.shape)}")
        order = self._as_tensor(transformation["permutation_order"])
        w = math_ops.cast(array_ops.reshape(self._as_tensor(transformation["mix_weight"]), shape=(-1, 1)),
                          dtype=y.dtype)
        if y.ndim == 1:
            w = array_ops.reshape(w, shape=(-1,))
        other = array_ops.gather(y, order, axis=0)
        return math_ops.add(math_ops.multiply(w, y), math_ops.multiply(math_ops.subtract(1.0, w), other))


class MixUp(_Mixing):
    """Mixes each image (and label) with another of the batch: ``w x + (1 - w) x[perm]``, ``w ~ Beta(alpha,
    alpha)`` per example.

    Args:
        alpha: the Beta distribution's parameter (a positive number, default 0.2).
        data_format: ``"channels_last"`` or ``"channels_first"`` (the mix is elementwise).
        seed: seeds descend's draws.
    """

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        if not _number(alpha) or not alpha > 0:
            raise ValueError(f"MixUp: `alpha` must be a positive number. Received: alpha={alpha!r}")
        self.alpha = float(alpha)
        super().__init__(data_format=data_format, seed=seed, **kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        """``{"mix_weight": (batch,), "permutation_order": (batch,)}``."""
        images = self._images(data["images"] if isinstance(data, dict) else data)
        n = self._batch(images)
        dt = self.compute_dtype.dtype

        def sample():
            order = self._rng.permutation(n).astype(np.int64)
            weight = self._rng.beta(self.alpha, self.alpha, size=n).astype(dt)
            return np.concatenate([order.astype(np.float64), weight.astype(np.float64)])

        both = draw(fn=sample)
        return {"mix_weight": math_ops.cast(both[n:], dtype=dt),
                "permutation_order": math_ops.cast(both[:n], dtype="int64")}

    def transform_images(self, images, transformation=None, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        single = x.ndim == 3
        batch = array_ops.expand_dims(x, axis=0) if single else x
        w = math_ops.cast(array_ops.reshape(self._as_tensor(transformation["mix_weight"]), shape=(-1, 1, 1, 1)),
                          dtype=batch.dtype)
        other = array_ops.gather(batch, self._as_tensor(transformation["permutation_order"]), axis=0)
        out = math_ops.add(math_ops.multiply(w, batch), math_ops.multiply(math_ops.subtract(1.0, w), other))
        return out[0] if single else out

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha, "seed": self.seed, "data_format": self.data_format}


class CutMix(_Mixing):
    """Pastes a random box of another image of the batch into each image; labels mix by the kept area.

    Per batch ``alpha ~ U(factor) + 1e-6``; per image ``w ~ Beta(alpha, alpha)``, a box of ``sqrt(1 - w)`` of the
    height and width at a uniform position, ``x <- where(box, x[perm], x)``; the labels' weight is the area kept,
    ``1 - box area / image area``. A single (unbatched) image is returned unchanged, as Keras.

    Args:
        factor: a number ``f`` in ``[0, 1]`` (the range ``(0, f)``) or a pair in ``[0, 1]`` (default 1.0).
        seed: seeds descend's draws.
        data_format: ``"channels_last"`` or ``"channels_first"``.
    """

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        msg = f"CutMix: `factor` must be a number or a pair of numbers in [0, 1]. Received: factor={factor!r}"
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or not all(_number(f) for f in factor) or factor[0] > 1 or factor[1] < 0:
                raise ValueError(msg)
            self.factor = tuple(sorted(factor))
        elif _number(factor) and 0 <= factor <= 1:
            self.factor = (0, factor)
        else:
            raise ValueError(msg)
        super().__init__(data_format=data_format, seed=seed, **kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        """``{"permutation_order", "batch_masks" (bool, the images' shape), "mix_weight"}``; None for one image."""
        if not training:
            return None
        images = self._images(data["images"] if isinstance(data, dict) else data)
        if images.ndim == 3:
            return None
        n = images.shape[0]
        last = self.data_format == "channels_last"
        h, w = (images.shape[1], images.shape[2]) if last else (images.shape[2], images.shape[3])
        dt = self.compute_dtype.dtype

        def sample():
            alpha = dt.type(self._rng.uniform(self.factor[0], self.factor[1])) + dt.type(1e-6)
            weight = self._rng.beta(alpha, alpha, size=n).astype(dt)
            ratio = np.sqrt(dt.type(1) - weight)
            bounds = []
            for length in (w, h):
                crop = (ratio * dt.type(length)).astype(dt)
                start = (self._rng.uniform(0, 1, size=n).astype(dt) * (dt.type(length) - crop)).astype(dt)
                bounds += [start, start + crop]
            order = self._rng.permutation(n).astype(np.float64)
            return np.concatenate([np.stack(bounds).astype(np.float64).ravel(), order])

        drawn = draw(fn=sample)
        x0, x1, y0, y1 = (math_ops.cast(drawn[i * n:(i + 1) * n], dtype=dt) for i in range(4))
        order = math_ops.cast(drawn[4 * n:], dtype="int32")
        masks, weight = self._masks(tuple(images.shape), x0, x1, y0, y1)
        return {"permutation_order": order, "batch_masks": masks, "mix_weight": weight}

    def _masks(self, shape, x0, x1, y0, y1):
        last = self.data_format == "channels_last"
        h, w, c = (shape[1], shape[2], shape[3]) if last else (shape[2], shape[3], shape[1])
        dt = self.compute_dtype.dtype
        gy, gx = np.meshgrid(np.arange(h, dtype=dt), np.arange(w, dtype=dt), indexing="ij")
        grid_shape = (1, h, w, 1) if last else (1, 1, h, w)
        gx, gy = Tensor(gx.reshape(grid_shape)), Tensor(gy.reshape(grid_shape))

        def col(v):
            return array_ops.reshape(v, shape=(-1, 1, 1, 1))

        inside = math_ops.logical_and(
            math_ops.logical_and(math_ops.greater_equal(gx, col(x0)), math_ops.less(gx, col(x1))),
            math_ops.logical_and(math_ops.greater_equal(gy, col(y0)), math_ops.less(gy, col(y1))))
        masks = array_ops.tile(inside, multiples=(1, 1, 1, c) if last else (1, c, 1, 1))
        area = math_ops.multiply(math_ops.subtract(x1, x0), math_ops.subtract(y1, y0))
        weight = math_ops.subtract(np.asarray(1, dt), math_ops.divide(area, np.asarray(w * h, dt)))
        return masks, weight

    def transform_images(self, images, transformation=None, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        masks = self._as_tensor(transformation["batch_masks"])
        if tuple(masks.shape) != tuple(x.shape):
            raise ValueError(f"CutMix: the transformation's masks have shape {tuple(masks.shape)}; the images "
                             f"{tuple(x.shape)}")
        other = array_ops.gather(x, self._as_tensor(transformation["permutation_order"]), axis=0)
        return math_ops.where(math_ops.cast(masks, dtype="bool"), other, x)

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "seed": self.seed,
                "data_format": self.data_format}
