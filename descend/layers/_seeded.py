"""The generator of a layer that draws (dropout, noise, augmentation): its ``seed`` argument and its state.

Every drawing layer checks ``seed`` the same way, starts its own ``numpy`` generator from it (from a fresh
draw of Python's ``random`` when ``seed`` is None, as Keras' ``SeedGenerator``: NumPy's global state is left
alone, and ``keras.utils.set_random_seed`` reproduces the draw) and gives that generator's position to
checkpoints through the state protocol, so a resumed run draws the same values.
"""

from __future__ import annotations

import random as _py_random

import numpy as np

__all__ = ["GeneratorState", "check_seed", "default_seed", "layer_rng", "start_rng"]


def default_seed() -> int:
    """The seed of an unseeded drawing layer: a draw of Python's ``random`` in [1, 1e9], as Keras'
    ``SeedGenerator(seed=None)`` (``random.seed``/``keras.utils.set_random_seed`` reproduce it; NumPy's global
    generator is not touched)."""
    return _py_random.randint(1, int(1e9))


def start_rng(seed: int | None) -> np.random.Generator:
    """A generator started from ``seed`` (already checked), or from :func:`default_seed` when it is None."""
    return np.random.default_rng(default_seed() if seed is None else seed)


def check_seed(seed, owner: str) -> int | None:
    """``seed`` checked: None or a non-negative int (returned as an ``int``).

    Raises:
        ValueError: naming ``owner`` and the value received.
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"{owner}: seed must be None or a non-negative int. Received: seed={seed!r}")
    return None if seed is None else int(seed)


def layer_rng(seed, owner: str):
    """``(seed, generator)``: ``seed`` checked (:func:`check_seed`) and the generator started from it
    (:func:`start_rng`)."""
    seed = check_seed(seed, owner)
    return seed, start_rng(seed)


class GeneratorState:
    """The state protocol of a layer drawing from ``self._rng`` (a mixin, before ``Layer`` in the bases): the
    generator's position, so a resumed run draws the same values."""

    def state_dict(self) -> dict:
        """``{"rng": <the bit generator's state>}`` (JSON-able)."""
        return {"rng": self._rng.bit_generator.state}

    def restore_plan(self, state: dict):
        """Check a :meth:`state_dict`; return the commit that moves the generator there (nothing changes before).

        Raises:
            ValueError: naming the layer, for another set of keys or a state that is not the generator's kind.
        """
        owner = f"{type(self).__name__} '{self.name}'"
        if not isinstance(state, dict) or set(state) != {"rng"}:
            raise ValueError(f"{owner}: expected the state {{'rng': ...}}; received keys "
                             f"{sorted(state) if isinstance(state, dict) else type(state).__name__}")
        bitgen = self._rng.bit_generator
        probe = type(bitgen)()
        if not isinstance(state["rng"], dict) or state["rng"].get("bit_generator") != type(probe).__name__:
            raise ValueError(f"{owner}: 'rng' must be a {type(probe).__name__} state")
        try:
            probe.state = state["rng"]
        except (TypeError, ValueError, KeyError) as e:
            raise ValueError(f"{owner}: 'rng' is not a valid generator state ({e})") from None
        value = probe.state

        def commit():
            bitgen.state = value
        return commit
