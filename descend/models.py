"""``Model`` and ``Sequential``: layers that train (``compile`` / ``fit`` / ``evaluate`` / ``predict``)."""

from __future__ import annotations

import weakref

from . import functional as _functional
from .framework import context
from .layers.base import Layer
from .layers.input_layer import InputLayer
from .layers.keras_tensor import KerasTensor
from .training.loop import Trainer

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

    def __init__(self, *args, **kwargs):
        """``Model(inputs, outputs, name=None)`` builds a functional model; ``Model(name=...)``
        (what a subclass's ``super().__init__()`` passes) a subclassed one."""
        if args or "inputs" in kwargs or "outputs" in kwargs:
            if len(args) > 2:
                raise TypeError(f"Model() takes inputs and outputs as positional arguments; received {len(args)}")
            inputs = args[0] if args else kwargs.pop("inputs", None)
            outputs = args[1] if len(args) > 1 else kwargs.pop("outputs", None)
            if inputs is None or outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs` (KerasTensors from "
                                 "keras.Input and the layers called on them)")
            super().__init__(**kwargs)
            self._remember_strategy()
            _functional.init_graph(self, inputs, outputs)
            return
        super().__init__(**kwargs)
        self._remember_strategy()

    def _remember_strategy(self) -> None:
        """A model built under a strategy's ``scope()`` trains under it even when its variables are created
        later (a layer without an input shape builds on its first call, inside ``fit``), as in Keras."""
        current = context.current_strategy()
        if current is not None and not current.is_default:  # weakly: a copy or pickle never copies the group
            self.__dict__["_distribute_strategy"] = weakref.ref(current)

    @property
    def distribute_strategy(self):
        """The strategy this model was built under (Keras' ``model.distribute_strategy``), or None."""
        ref = self.__dict__.get("_distribute_strategy")
        return None if ref is None else ref()

    # -- the functional API ----------------------------------------------------------
    def call(self, inputs, training=None, mask=None):
        """Run the graph of a functional model (subclassed models override ``call``)."""
        if not _functional.is_graph_model(self):
            raise NotImplementedError(f"Model {type(self).__name__} does not implement call(): subclass Model and "
                                      "define call(), or build it as Model(inputs, outputs)")
        return _functional.run_graph(self, inputs, training=training)

    def _graph_only(self, what: str):
        if not _functional.is_graph_model(self):
            raise AttributeError(f"`{what}` is defined for functional models (Model(inputs, outputs)); "
                                 f"'{self.name}' is a subclassed model")

    @property
    def inputs(self) -> list:
        """The model's symbolic inputs (a flat list), as Keras' ``model.inputs``."""
        self._graph_only("inputs")
        return list(self._graph_flat_inputs)

    @property
    def outputs(self) -> list:
        self._graph_only("outputs")
        return list(self._graph_flat_outputs)

    @property
    def input(self):
        """The inputs in the structure they were given (a KerasTensor for one input)."""
        self._graph_only("input")
        return self._graph_inputs

    @property
    def output(self):
        self._graph_only("output")
        return self._graph_outputs

    @property
    def input_names(self) -> list:
        self._graph_only("input_names")
        return [t.name for t in self._graph_flat_inputs]

    @property
    def output_names(self) -> list:
        """The output names: the keys of dict outputs, else the names of the layers that produce them."""
        self._graph_only("output_names")
        if isinstance(self._graph_outputs, dict):
            return list(self._graph_outputs)
        return [t.node.layer.name for t in self._graph_flat_outputs]

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A sublayer by name (or by position in ``layers``)."""
        found = self.layers if hasattr(self, "layers") else self._flatten_layers(include_self=False, recursive=False)
        if index is not None:
            if not 0 <= index < len(found):
                raise ValueError(f"get_layer: index {index} is out of range: the model has {len(found)} layers")
            return found[index]
        for layer in found:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[la.name for la in found]}")

    def get_config(self) -> dict:
        """A functional model's graph config (Keras' format); a subclassed model's constructor arguments."""
        if _functional.is_graph_model(self):
            return _functional.graph_config(self)
        return super().get_config()

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        """Rebuild a model from :meth:`get_config` (new layers, same graph; weights are not in a config)."""
        if "input_layers" in config:
            inputs, outputs, name = _functional.graph_from_config(config, custom_objects)
            return cls(inputs, outputs, name=name)
        return cls(**config)

    def summary(self, print_fn=print) -> str:
        """A table of the model's layers, their weights' shapes and parameter counts
        (a functional model's: output shapes and the layers each one reads)."""
        if _functional.is_graph_model(self):
            return self._graph_summary(print_fn)
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


    def _graph_summary(self, print_fn) -> str:
        rows = [("Layer (type)", "Output Shape", "Param #", "Connected to")]
        rows += [(a, b, f"{n:,}", c) for a, b, n, c in _functional.graph_summary_rows(self)]
        total = sum(w.size for w in self.weights)
        trainable = sum(w.size for w in self.trainable_weights)
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        line = "-" * (sum(widths) + 6)
        out = [f'Model: "{self.name}"', line]
        for k, r in enumerate(rows):
            out.append(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:<{widths[3]}}".rstrip())
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
        """Append a layer (or, first, a ``keras.Input`` giving the input shape)."""
        if isinstance(layer, KerasTensor) and isinstance(layer.node.layer, InputLayer):
            layer = layer.node.layer
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
