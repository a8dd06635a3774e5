"""``AugMix`` (Hendrycks et al. 2020), as Keras 3's: a blend of the image with a mix of augmentation chains.

``num_chains`` chains of up to ``chain_depth`` augmentations each (every step picks uniformly one of the
augmentations or none; ``all_ops=False`` keeps the first seven of Keras' list: shear, translation, rotation,
posterization, solarization, auto-contrast, equalization; ``True`` adds brightness, colour degeneration, contrast
and sharpness), mixed with weights ``w ~ Dirichlet(alpha)``, then ``clip(m x + (1 - m) sum_i w_i chain_i(x),
value_range)`` with ``m ~ Beta(alpha, alpha)``, one draw per call for the batch, as Keras. The sub-layers are
RandAugment's (``factor`` as there). ``get_random_transformation`` returns Keras' structure (``chain_mixing_weights``,
``weight_sample``, ``chain_transforms``: lists of ``{"layer_name": ...}``); ``transform_images`` runs it, each step
drawing its own parameters (Keras draws them with the structure): chains of deterministic steps give Keras'
images. ``training=False`` returns the images unchanged.

Example:
    >>> import descend as ds, numpy as np
    >>> ds.layers.AugMix(seed=1)(np.random.default_rng(0).uniform(0, 255, (2, 8, 8, 3)).astype(np.float32)).shape
    TensorShape([2, 8, 8, 3])
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..ops import math_ops
from ..ops.random_draw import draw
from .rand_augment import _NAMES, RandAugment

__all__ = ["AugMix"]

_ALL = ("random_shear", "random_translation", "random_rotation", "random_posterization", "solarization",
        "auto_contrast", "equalization", "random_brightness", "random_color_degeneration", "random_contrast",
        "random_sharpness")


class AugMix(RandAugment):
    """AugMix augmentation (``keras.layers.AugMix``).

    Args:
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        num_chains: the number of chains (a positive int, default 3).
        chain_depth: the most steps per chain (a positive int, default 3).
        factor: the augmentations' strength, as ``RandAugment``'s (default 0.3).
        alpha: the Dirichlet and Beta parameter (a positive number, default 1.0).
        all_ops: use all eleven augmentations (default True) or the first seven.
        interpolation, seed, data_format: as ``RandAugment``.
    """

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3, alpha=1.0, all_ops=True,
                 interpolation="bilinear", seed=None, data_format=None, **kwargs):
        for what, value in (("num_chains", num_chains), ("chain_depth", chain_depth)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"AugMix: `{what}` must be a positive int. Received: {what}={value!r}")
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.number)) or not alpha > 0:
            raise ValueError(f"AugMix: `alpha` must be a positive number. Received: alpha={alpha!r}")
        super().__init__(value_range=value_range, num_ops=0, factor=factor, interpolation=interpolation, seed=seed,
                         data_format=data_format, **kwargs)
        self.num_chains, self.chain_depth, self.alpha, self.all_ops = int(num_chains), int(chain_depth), \
            float(alpha), bool(all_ops)
        self._choices = _ALL if self.all_ops else _ALL[:7]

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras' structure: ``chain_mixing_weights`` (num_chains,), ``weight_sample`` (), ``chain_transforms``."""
        if not training:
            return None
        k, depth, options = self.num_chains, self.chain_depth, len(self._choices) + 1

        def sample():
            gamma = self._rng.gamma(self.alpha, size=k)
            m = self._rng.beta(self.alpha, self.alpha)
            steps = self._rng.integers(0, options, size=(k, depth))
            return np.concatenate([gamma / gamma.sum(), [m], steps.ravel().astype(np.float64)])

        drawn = draw(fn=sample).numpy()
        steps = drawn[k + 1:].astype(int).reshape(k, depth)
        chains = [[{"layer_name": self._choices[s], "transformation": None} for s in row if s < len(self._choices)]
                  for row in steps]
        dt = self.compute_dtype.dtype
        return {"chain_mixing_weights": Tensor(drawn[:k].astype(dt)), "weight_sample": Tensor(np.asarray(drawn[k], dt)),
                "chain_transforms": chains}

    def transform_images(self, images, transformation, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        dt = x.dtype.dtype
        weights = np.asarray(getattr(transformation["chain_mixing_weights"], "numpy", lambda: transformation[
            "chain_mixing_weights"])(), dt).reshape(-1)
        m = np.asarray(getattr(transformation["weight_sample"], "numpy", lambda: transformation["weight_sample"])(), dt)
        mixed = None
        for w, chain in zip(weights, transformation["chain_transforms"]):
            y = x
            for step in chain:
                name = step["layer_name"]
                if name not in _NAMES:
                    raise ValueError(f"AugMix: unknown layer_name {name!r}; expected one of {list(_NAMES)}")
                y = self.layers[_NAMES.index(name)](y, training=True)
            term = math_ops.multiply(y, w)
            mixed = term if mixed is None else math_ops.add(mixed, term)
        out = math_ops.add(math_ops.multiply(x, m), math_ops.multiply(mixed, dt.type(1) - m))
        return math_ops.clip_by_value(out, np.asarray(self.value_range[0], dt), np.asarray(self.value_range[1], dt))

    def get_config(self):
        config = super().get_config()
        config.pop("num_ops")
        return {**config, "num_chains": self.num_chains, "chain_depth": self.chain_depth, "alpha": self.alpha,
                "all_ops": self.all_ops}
