"""``Model`` and ``Sequential``: layers that train (``compile`` / ``fit`` / ``evaluate`` / ``predict``)."""

from __future__ import annotations

from .layers.base import Layer
from .trainer import Trainer

__all__ = ["Model", "Sequential", "load_model"]


class Model(Trainer, Layer):
    """A layer with a training loop. Subclass it: create layers in ``__init__``,
    compute in ``call``; layers and Variables assigned as attributes are tracked.

    Example:
        >>> import numpy as np, descend as ds
        >>> class MLP(ds.Model):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = ds.layers.Dense(8, activation="relu")
        ...         self.out = ds.layers.Dense(1)
        ...     def call(self, x, training=None):
        ...         return self.out(self.hidden(x))
        >>> model = MLP()
        >>> _ = model.compile(optimizer="adam", loss="mse")
        >>> history = model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=2, verbose=0)
        >>> len(history.history["loss"])
        2
    """

    # -- persistence (descend.saving) ------------------------------------------------------------
    def save_weights(self, filepath, overwrite: bool = True) -> None:
        """Write the model's state (weights, layer states) to the checkpoint directory ``filepath``."""
        from .saving import save_weights

        save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, strict: bool = True):
        """Restore :meth:`save_weights` output, matched by path (any model of the same architecture)."""
        from .saving import load_weights

        return load_weights(self, filepath, strict=strict)

    def save(self, filepath, overwrite: bool = True, include_optimizer: bool = True) -> None:
        """Write the architecture (JSON config), the compile arguments, the state and the optimizer's
        state to the directory ``filepath``; :func:`descend.models.load_model` reads it back."""
        from .saving import save_model

        save_model(self, filepath, overwrite=overwrite, include_optimizer=include_optimizer)

    def summary(self, print_fn=print) -> str:
        """A table of the model's layers, their weights' shapes and parameter counts."""
        rows = [("Layer (type)", "Weights", "Param #")]
        total = trainable = 0
        for layer in self._flatten_layers(include_self=False, recursive=False) or [self]:
            weights = layer.weights
            n = sum(w.size for w in weights)
            shapes = ", ".join(str(tuple(w.shape)) for w in weights) or "-"
            rows.append((f"{layer.name} ({type(layer).__name__})", shapes, f"{n:,}"))
        for w in self.weights:
            total += w.size
        trainable = sum(w.size for w in self.trainable_weights)
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        line = "-" * (sum(widths) + 4)
        out = [f'Model: "{self.name}"', line]
        for k, r in enumerate(rows):
            out.append(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}")
            if k == 0:
                out.append(line)
        out += [line, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
                f"Non-trainable params: {total - trainable:,}"]
        text = "\n".join(out)
        if print_fn is not None:
            print_fn(text)
        return text


class Sequential(Model):
    """A stack of layers, each feeding the next.

    Args:
        layers: the layers, in order (more can be added with :meth:`add`).
        name: the model's name (default ``sequential``, made unique).

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> model = ds.Sequential([ds.layers.Dense(4, activation="relu"), ds.layers.Dense(2)])
        >>> model(ds.ones((3, 5))).shape
        (3, 2)
        >>> [w.name for w in model.weights][:2]
        ['sequential/dense/kernel', 'sequential/dense/bias']
    """

    def __init__(self, layers=None, name: str | None = None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.layers = []
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Layer) -> None:
        """Append a layer."""
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add expects a descend Layer. Received: {type(layer).__name__}")
        self.layers = self.layers + [layer]  # reassign so that the new sublayer is tracked and built in scope
        self.built = False

    def pop(self) -> Layer:
        """Remove and return the last layer."""
        if not self.layers:
            raise TypeError("There are no layers in the model")
        layer = self.layers[-1]
        self.layers = self.layers[:-1]
        return layer

    def build(self, input_shape=None) -> None:
        if input_shape is None:
            first = self.layers[0]._input_shape_arg if self.layers else None
            if first is None:
                raise ValueError("Sequential.build needs an input_shape (or input_shape= on the first layer)")
            input_shape = (None,) + tuple(first)
        import numpy as np

        from .framework.tensor import Tensor

        probe = Tensor(np.zeros(tuple(1 if d is None else d for d in input_shape), self._dtype))
        self.call(probe, training=False)

    def call(self, inputs, training=None):
        x = inputs
        for layer in self.layers:
            x = layer(x, training=training)
        return x

    def get_config(self) -> dict:
        return {"name": self.name, "layers": [{"class_name": type(la).__name__, "config": la.get_config()}
                                              for la in self.layers]}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        from . import layers as layers_module

        found = []
        for item in config.get("layers", []):
            name = item["class_name"]
            klass = (custom_objects or {}).get(name) or getattr(layers_module, name, None)
            if klass is None:
                raise ValueError(f"Unknown layer class '{name}'; pass it in custom_objects")
            found.append(klass.from_config(item["config"]))
        return cls(found, name=config.get("name"))


def load_model(filepath, custom_objects: dict | None = None, compile: bool = True):
    """The model :meth:`Model.save` wrote (see :func:`descend.saving.load_model`)."""
    from .saving import load_model as _load

    return _load(filepath, custom_objects=custom_objects, compile=compile)
