"""Model and Sequential: layers that train, and saving/loading/cloning whole models."""

from __future__ import annotations

import weakref

from ..persistence import object_config as _serialization
from . import functional as _functional
from ..framework import context
from ..framework.variable import unique_name
from ..layers import _rebuild
from ..layers.base import Layer
from ..layers.input_layer import Input, InputLayer
from ..layers.keras_tensor import KerasTensor
from ..persistence.registry import register_builtins
from ..training.loop import Trainer

__all__ = ["Model", "Sequential", "clone_model", "load_model", "model_from_json", "save_model"]


def _saving():
    """The model files' code (:mod:`descend.persistence.model_saving`: Keras' and descend's formats), imported
    when a model is first saved or loaded, not before a model trains."""
    from ..persistence import model_saving

    return model_saving


class _DirectSublayers:
    """``Model.layers`` of a model that does not list its own (a subclassed model): its direct sublayers, in the
    order its attributes hold them, as Keras 3. Sequential and functional models set ``layers`` themselves (an
    instance attribute, which this non-data descriptor gives way to)."""

    def __get__(self, model, owner=None):
        if model is None:
            return self
        return model._flatten_layers(include_self=False, recursive=False)


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

    layers = _DirectSublayers()

    # -- persistence (descend.saving) ------------------------------------------------------------
    def save_weights(self, filepath, overwrite: bool = True) -> None:
        """Write the model's state: to Keras 3's weights file for a path ending ``.weights.h5``, else to
        descend's checkpoint directory ``filepath`` (weights and layer states); see :mod:`descend.saving`."""
        _saving().save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, strict: bool = True):
        """Restore :meth:`save_weights` output (a ``.weights.h5`` file Keras or descend wrote, descend's
        checkpoint directory matched by path, or a TensorFlow checkpoint prefix)."""
        return _saving().load_weights(self, filepath, strict=strict)

    def save(self, filepath, overwrite: bool = True, include_optimizer: bool = True) -> None:
        """Write the architecture (JSON config), the compile arguments, the state and the optimizer's
        state: Keras 3's archive for a path ending ``.keras``, else descend's directory ``filepath``;
        :func:`descend.models.load_model` reads both back."""
        _saving().save_model(self, filepath, overwrite=overwrite, include_optimizer=include_optimizer)

    def __init__(self, *args, **kwargs):
        """``Model(inputs, outputs, name=None)`` builds a functional model (named ``functional``, made unique, as
        Keras 3); ``Model(name=...)`` (what a subclass's ``super().__init__()`` passes) a subclassed one (named
        after its class in snake case: ``MyNet`` is ``my_net``)."""
        if args or "inputs" in kwargs or "outputs" in kwargs:
            if len(args) > 2:
                raise TypeError(f"Model() takes inputs and outputs as positional arguments; received {len(args)}")
            inputs = args[0] if args else kwargs.pop("inputs", None)
            outputs = args[1] if len(args) > 1 else kwargs.pop("outputs", None)
            if inputs is None or outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs` (KerasTensors from "
                                 "keras.Input and the layers called on them)")
            if kwargs.get("name") is None and type(self) is Model:  # Keras 3 names a functional Model by its class
                kwargs["name"] = unique_name("functional")           # Functional; a subclass by its own name
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
        found = self.layers
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
        """Rebuild a model from :meth:`get_config` (new layers, same graph; weights are not in a config).
        Class and function names in it are found in ``custom_objects``, an active
        ``custom_object_scope``, the registry and descend's built-ins; never imported."""
        if not isinstance(config, dict):
            raise TypeError(f"{cls.__name__}.from_config expects a dict. Received: {type(config).__name__}")
        with _serialization.extend_scope(custom_objects):
            if "input_layers" in config:
                inputs, outputs, name = _functional.graph_from_config(config)
                model = cls(inputs, outputs, name=name)
                if config.get("trainable") is False:
                    model.trainable = False
                return model
            return cls(**config)

    def build_from_config(self, config) -> None:
        """Build the model from :meth:`get_build_config`'s dict. A subclassed model without a ``build`` of its
        own is built as Keras 3 builds it: called once on symbolic inputs of the recorded shape, which makes the
        weights of every layer its ``call`` reaches."""
        if type(self).build is Layer.build and isinstance(config, dict) and config.get("input_shape") is not None:
            from ..layers.base import _checked_shape

            shape = _checked_shape(config["input_shape"], f"model '{self.name}' build_config input_shape")
            self(KerasTensor(shape) if isinstance(shape, tuple) else [KerasTensor(s) for s in shape])
            return
        super().build_from_config(config)

    def get_compile_config(self) -> dict | None:
        """Keras 3's: the arguments the model was compiled with, as a config (``optimizer``, ``loss``,
        ``metrics``, ...; None before ``compile``). ``model.save`` writes it; ``load_model`` gives it to
        :meth:`compile_from_config`. Override both to save other compile arguments (a custom ``compile``)."""
        from ..persistence.keras_files import keras_compile_config

        return keras_compile_config(self)

    def compile_from_config(self, config: dict) -> None:
        """Compile the model as :meth:`get_compile_config`'s dict says (``load_model`` calls it). A model whose
        class overrides ``compile`` is left uncompiled with Keras' warning, unless it overrides this method too."""
        if type(self).compile is not Model.compile:
            import warnings

            warnings.warn(f"`compile()` was not called as part of model loading because the model's `compile()` "
                          f"method is custom ({type(self).__name__}). All subclassed Models that have `compile()` "
                          "overridden should also override `get_compile_config()` and `compile_from_config(config)`. "
                          "Alternatively, you can call `compile()` manually after loading.", stacklevel=2)
            return
        from ..persistence.keras_files import compile_from_keras_config

        compile_from_keras_config(self, config)

    def to_json(self, **kwargs) -> str:
        """The model's config (Keras 3's ``serialize_keras_object`` format) as a JSON string;
        :func:`descend.models.model_from_json` rebuilds the model (new weights). ``kwargs`` go to ``json.dumps``."""
        import json

        return json.dumps(_serialization.serialize_keras_object(self), **kwargs)

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None) -> None:
        """Keras 3's summary: a table of the layers with their output shapes and parameter counts (and, for a
        functional model that is not a chain, the layers each one reads), then the totals of the trainable,
        non-trainable and, once it has state, the optimizer's parameters with their sizes. The text is
        Keras' (its rich table, without colours); ``print_fn`` receives it in one call (default: printed to
        stdout).

        Args:
            line_length: the width of the table (default ``min(88, columns - 4)``, 108 with a
                "Connected to" column).
            positions: where each column ends, as fractions of ``line_length`` or absolute positions.
            print_fn: a callable given the text; None prints it.
            expand_nested: also list the layers of each nested model (``layers``), indented under it.
            show_trainable: add a "Trainable" column: ``Y``/``N`` for a layer with weights, ``-`` without.
            layer_range: two names (or regexes, ``re.match``): the rows from the first layer matching the
                first to the last layer matching the second, both included (the totals stay the model's).

        Raises:
            ValueError: a ``layer_range`` that is not two strings or matches no layer's name; too narrow a
                ``line_length``.
        """
        from . import model_summary

        graph = _functional.is_graph_model(self)
        sequential_like = not graph or _functional.is_chain(self)
        if graph:
            top = [(layer, [f"{name} ({model_summary.class_name(layer)})", shape, count, sources])
                   for layer, (name, _, shape, count, sources) in zip(self.layers, _functional.graph_summary_rows(self))]
        else:
            top = [(layer, [f"{layer.name} ({model_summary.class_name(layer)})", _functional.layer_output_shape(layer),
                            f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"])
                   for layer in self._flatten_layers(include_self=False, recursive=False)]
        first, end = model_summary.layer_range_bounds([layer.name for layer, _ in top], layer_range)

        def nested(layer, level):  # Keras' rows under a nested model: no connections of the outer graph
            fields = [f"{model_summary.nested_prefix(level)}{layer.name} ({model_summary.class_name(layer)})",
                      _functional.layer_output_shape(layer),
                      f"{layer.count_params():,}" if layer.built else "0 (unbuilt)", "-"]
            return [(layer, fields), *expand(layer, level)]

        def expand(layer, level):
            inner = getattr(layer, "layers", None) if expand_nested else None
            return [row for sub in (inner or []) for row in nested(sub, level + 1)]

        rows = []
        for layer, fields in top[first:end]:
            for row_layer, row in [(layer, fields), *expand(layer, 0)]:
                row = row[:3] if sequential_like else row
                rows.append((*row, model_summary.trainable_mark(row_layer)) if show_trainable else tuple(row))
        optimizer = getattr(self, "optimizer", None)
        opt_vars = None
        iterations = getattr(optimizer, "iterations", None)
        if getattr(self, "compiled", False) and iterations is not None and hasattr(optimizer, "variables"):
            opt_vars = list(optimizer.variables)
            if int(iterations.numpy()) == 0 and len(opt_vars) <= 1:
                opt_vars = None  # not built yet (Keras builds it at the first step)
            elif isinstance(getattr(optimizer, "hyperparameters", dict)().get("learning_rate"), float):
                opt_vars.append(model_summary.KERAS_LEARNING_RATE)  # Keras 3 holds it in a float32 variable
        text = model_summary.summary_text(self.name, rows, sequential_like=sequential_like,
                                          trainable=self.trainable_weights, non_trainable=self.non_trainable_weights,
                                          optimizer=opt_vars, line_length=line_length, positions=positions,
                                          show_trainable=show_trainable)
        if print_fn is None:
            print(text, end="")
        else:
            print_fn(text)


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
        TensorShape([3, 2])
        >>> [w.path for w in model.weights][:2]
        ['sequential/dense/kernel', 'sequential/dense/bias']
    """

    def __init__(self, layers=None, name: str | None = None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.layers = []
        # the InputLayer (an ``Input`` given first, or made by ``build``): not one of ``layers``, as in Keras 3,
        # and not tracked (it has no state); the symbolic graph of the stack on its output, once built
        object.__setattr__(self, "_input_layer", None)
        object.__setattr__(self, "_graph", None)
        self._build_input_shape = None
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build()

    def add(self, layer: Layer, rebuild: bool = True) -> None:
        """Append a layer (or, first, a ``keras.Input`` giving the input shape). When the input shape is
        known (a first ``Input``, or ``input_shape=`` on the first layer) the model is built now, as in
        Keras: its weights exist at once."""
        if isinstance(layer, KerasTensor) and isinstance(layer.node.layer, InputLayer):
            layer = layer.node.layer
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add expects a descend Layer. Received: {type(layer).__name__}")
        if isinstance(layer, InputLayer):
            if self._input_layer is not None:
                raise ValueError(f"Sequential model '{self.name}' already has the input shape "
                                 f"{self._input_layer.batch_shape}; it cannot take a second Input")
            if self.layers:
                raise ValueError(f"Sequential model '{self.name}': an Input can only come first, before "
                                 f"{self.layers[0].name}")
            object.__setattr__(self, "_input_layer", layer)
        else:
            self.layers = self.layers + [layer]  # reassign so that the new sublayer is tracked and built in scope
        self.built = False
        object.__setattr__(self, "_graph", None)
        if rebuild:
            self._maybe_build()

    def _maybe_build(self) -> None:
        """Build when the input shape is known (Keras' Sequential does): from an ``Input``, from
        ``input_shape=`` on the first layer, or from a first layer that is a model with a known input shape."""
        if not self.layers:
            return
        first = self.layers[0]
        if self._input_layer is not None:
            self.build(self._input_layer.batch_shape)
        elif first._input_shape_arg is not None:
            self.build((first._batch_size_arg,) + tuple(first._input_shape_arg))
        elif len(self.layers) > 1 and isinstance(first, Model):
            # a first layer that is a model with a known input shape (Keras 3 reads its `input_shape`)
            shape = _model_input_shape(first)
            if shape is not None:
                self.build(shape)

    def pop(self) -> Layer:
        """Remove and return the last layer."""
        if not self.layers:
            raise TypeError("There are no layers in the model")
        layer = self.layers[-1]
        self.layers = self.layers[:-1]
        object.__setattr__(self, "_graph", None)
        return layer

    def build(self, input_shape=None) -> None:
        if input_shape is None and self._input_layer is not None:
            input_shape = self._input_layer.batch_shape
        if input_shape is None:
            first = self.layers[0]._input_shape_arg if self.layers else None
            if first is None:
                raise ValueError("Sequential.build needs an input_shape (or input_shape= on the first layer)")
            input_shape = (None,) + tuple(first)
        import numpy as np

        from ..framework.tensor import Tensor

        input_shape = tuple(input_shape)
        if self._input_layer is not None and tuple(self._input_layer.batch_shape[1:]) != input_shape[1:]:
            raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                             f"{self._input_layer.batch_shape}. You cannot build it with input_shape {input_shape}")
        shape = tuple(1 if d is None else d for d in input_shape)
        _rebuild.check_probe(shape, self._dtype)  # a model rebuilt from a file: a bounded probe
        probe = Tensor(np.zeros(shape, self._dtype))
        if self._input_layer is not None and self._input_layer.output.dtype.kind == "O":  # an Input of strings
            probe = Tensor(np.full(shape, b"", dtype=object))
        self.call(probe, training=False)
        if self._input_layer is None and self.layers:  # as Keras 3: the input the model was built for
            object.__setattr__(self, "_input_layer", InputLayer(batch_shape=(None,) + input_shape[1:],
                                                                dtype=self.layers[0].compute_dtype.name))
        self._build_input_shape = tuple(self._input_layer.batch_shape) if self._input_layer is not None else \
            (None,) + input_shape[1:]
        self._record_graph()

    def _record_graph(self) -> None:
        """The stack called on the Input's KerasTensor (Keras 3's functional view of a Sequential model), so
        that ``model.inputs``/``outputs`` and each layer's ``input``/``output`` exist; left out where a layer
        cannot be called symbolically (as Keras)."""
        if self._input_layer is None or not self.layers:
            return
        x = self._input_layer.output
        try:
            for layer in self.layers:
                x = layer(x)
        except Exception:  # noqa: BLE001 - the model is built (its probe ran); only this view is missing
            return
        object.__setattr__(self, "_graph", (self._input_layer.output, x))

    def _graph_part(self, index: int, what: str):
        graph = self.__dict__.get("_graph")
        if graph is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")
        return graph[index]

    @property
    def inputs(self) -> list:
        """``[the Input's KerasTensor]`` once the model is built (Keras 3)."""
        return [self._graph_part(0, "inputs")]

    @property
    def outputs(self) -> list:
        return [self._graph_part(1, "outputs")]

    @property
    def input(self):
        return self._graph_part(0, "input")

    @property
    def output(self):
        return self._graph_part(1, "output")

    @property
    def input_shape(self) -> tuple:
        return tuple(self._graph_part(0, "input shape").shape)

    @property
    def output_shape(self) -> tuple:
        return tuple(self._graph_part(1, "output shape").shape)

    def call(self, inputs, training=None):
        x = inputs
        if self._input_layer is not None:  # as Keras 3's (a Sequential with an input is a functional model)
            x = _functional.adjust_rank(x, self._input_layer.batch_shape)
        for layer in self.layers:
            x = layer(x, training=training)
        return x

    def get_config(self) -> dict:
        """Keras 3's Sequential config: each layer's config (``serialize_keras_object``) and, once built,
        ``build_input_shape`` (so that ``from_config`` builds it again)."""
        stack = ([self._input_layer] if self._input_layer is not None else []) + list(self.layers)
        config = {**Layer.get_config(self), "layers": [_serialization.serialize_keras_object(la) for la in stack]}
        if self.built and getattr(self, "_build_input_shape", None) is not None:
            config["build_input_shape"] = list(self._build_input_shape)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        if not isinstance(config, dict) or not isinstance(config.get("layers", []), list):
            raise ValueError(f"A Sequential config must be a dict whose 'layers' is a list. Received: "
                             f"{str(config)[:200]}")
        found = []
        with _serialization.extend_scope(custom_objects):
            for i, item in enumerate(config.get("layers", [])):
                name = item.get("config", {}).get("name") if isinstance(item, dict) and \
                    isinstance(item.get("config"), dict) else None
                _rebuild.note_layer(f"{i} ('{str(name)[:100]}')" if name is not None else str(i))
                if not isinstance(item, dict):
                    raise ValueError(f"Sequential config: layer {i} must be a layer config (a dict). Received: "
                                     f"{str(item)[:200]}")
                layer = _serialization.build_object(item, "layers", "layer")
                if not isinstance(layer, Layer):
                    raise ValueError(f"Sequential config: layer {i} is not a layer ({type(layer).__name__})")
                found.append(layer)
            _rebuild.note_layer(None)
            model = cls(found, name=config.get("name"), dtype=config.get("dtype"))
            shape = config.get("build_input_shape")
            if shape is not None and not model.built and found:
                if (not isinstance(shape, list) or not 1 <= len(shape) <= 32
                        or not all(d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
                                   for d in shape)):
                    raise ValueError(f"Sequential config: 'build_input_shape' must be a list of at most 32 sizes "
                                     f"(non-negative ints or null). Received: {str(shape)[:200]}")
                model.build(tuple(shape))
        if config.get("trainable") is False:
            model.trainable = False
        return model


register_builtins("layers", {"Functional": Model, "Model": Model, "Sequential": Sequential})  # models are layers in configs


def _model_input_shape(model) -> tuple | None:
    """The batch shape a model takes, when it is known: a functional model's single input, a Sequential
    model's build shape; else None."""
    if _functional.is_graph_model(model):
        flat = model._graph_flat_inputs
        return tuple(flat[0].shape) if len(flat) == 1 else None
    if isinstance(model, Sequential) and model.built:
        return getattr(model, "_build_input_shape", None)
    return None


def load_model(filepath, custom_objects: dict | None = None, compile: bool = True, safe_mode: bool = True):
    """The model :meth:`Model.save` wrote (see :func:`descend.saving.load_model`)."""
    return _saving().load_model(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def save_model(model, filepath, overwrite: bool = True, include_optimizer: bool = True) -> None:
    """``model.save(filepath)`` (see :func:`descend.saving.save_model`)."""
    _saving().save_model(model, filepath, overwrite=overwrite, include_optimizer=include_optimizer)


def model_from_json(json_string, custom_objects: dict | None = None, safe_mode: bool = True):
    """The model :meth:`Model.to_json` described, with new weights (``keras.models.model_from_json``).

    Names in it resolve as in :func:`descend.saving.deserialize_keras_object`: nothing is imported,
    and a lambda's bytecode is refused unless ``safe_mode=False``. At most
    :data:`descend.saving.MAX_CONFIG_BYTES` of JSON are read.

    Example:
        >>> import descend as ds
        >>> model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2)])
        >>> again = ds.models.model_from_json(model.to_json())
        >>> [tuple(w.shape) for w in again.weights]
        [(3, 2), (2,)]
    """
    return _saving().model_from_json(json_string, custom_objects=custom_objects, safe_mode=safe_mode)


def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive: bool = False,
                **kwargs):
    """A copy of a functional or Sequential model with new layers and new weights (``keras.models.clone_model``).

    Args:
        model: a functional or Sequential model (a subclassed model is rebuilt from its config, without
            ``clone_function`` or ``input_tensors``).
        input_tensors: KerasTensors (from ``keras.Input``) to build the copy on, in the structure of
            ``model.input``; default: new Inputs of the same shapes, dtypes and names.
        clone_function: ``fn(layer) -> layer`` making each layer of the copy (InputLayers excepted);
            default ``layer.__class__.from_config(layer.get_config())``. A layer used twice is cloned once.
        call_function: ``fn(layer, *args, **kwargs)`` calling each cloned layer (functional models only).
        recursive: clone inner Sequential and functional models with ``clone_model`` too.

    Example:
        >>> import descend as ds
        >>> model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2, name="d")])
        >>> copy = ds.models.clone_model(model)
        >>> copy.layers[-1] is model.layers[-1], copy.layers[-1].name, len(copy.weights)
        (False, 'd', 2)
    """
    cache = kwargs.pop("cache", None)
    if kwargs:
        raise TypeError(f"clone_model: unexpected keyword argument(s): {sorted(kwargs)}")
    if cache is None:
        cache = {}
    if clone_function is not None and not callable(clone_function):
        raise ValueError(f"clone_model: `clone_function` must be callable. Received: {clone_function!r}")

    def clone(layer):
        if id(layer) in cache:
            return cache[id(layer)]
        if recursive and isinstance(layer, Model) and (isinstance(layer, Sequential)
                                                       or _functional.is_graph_model(layer)):
            made = clone_model(layer, clone_function=clone_function,
                               call_function=None if isinstance(layer, Sequential) else call_function,
                               recursive=True, cache=cache)
        elif clone_function is not None:
            made = clone_function(layer)
        else:
            made = type(layer).from_config(layer.get_config())
        if not isinstance(made, Layer):
            raise ValueError(f"clone_model: clone_function must return a Layer; for '{layer.name}' it returned "
                             f"{type(made).__name__}")
        cache[id(layer)] = made
        return made

    if isinstance(model, Sequential):
        if call_function is not None:
            raise ValueError("clone_model: `call_function` is only supported with functional models (a Sequential "
                             "model's layers are listed, not called, when it is made)")
        new_layers = [clone(layer) for layer in model.layers]
        first = model.__dict__.get("_input_layer")
        if input_tensors is not None:
            tensors = input_tensors if isinstance(input_tensors, (list, tuple)) else [input_tensors]
            if len(tensors) != 1 or not isinstance(tensors[0], KerasTensor):
                raise ValueError(f"clone_model: `input_tensors` must be one KerasTensor (from keras.Input) for a "
                                 f"Sequential model. Received: {input_tensors!r}")
            new_layers = [tensors[0]] + new_layers
        elif first is not None:
            new_layers = [Input(batch_shape=first.batch_shape, dtype=first.output.dtype.name, name=first.name)] + \
                new_layers
        copy = Sequential(new_layers, name=model.name)
        if not copy.built and model.built and getattr(model, "_build_input_shape", None) is not None:
            copy.build(model._build_input_shape)
        return copy
    if _functional.is_graph_model(model):
        inputs, outputs = _functional.clone_graph(model, clone, input_tensors, call_function)
        return Model(inputs, outputs, name=model.name)
    if clone_function is not None or input_tensors is not None:
        raise ValueError(f"clone_model: `clone_function` and `input_tensors` need a Sequential or functional "
                         f"model; '{model.name}' is a subclassed {type(model).__name__}")
    if call_function is not None:
        raise ValueError("clone_model: `call_function` is only supported with functional models")
    return _serialization.deserialize_keras_object(_serialization.serialize_keras_object(model))
