"""``Model.summary()`` prints Keras 3's text (issue 35): the same table (rich's box, Keras' column widths, word
wrapping), output shapes, parameter counts and totals with sizes, for Sequential, functional and subclassed
models. Each case runs on descend and, where Keras is installed, on Keras; the recorded texts are what Keras
3.15 printed (a test checks them against Keras too)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

import descend as ds
from descend.models import model_summary


def _sequential(keras):
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.BatchNormalization(),
                             keras.layers.Dense(1)], name="seq")


def _branching(keras):
    i = keras.Input((4,), name="inp")
    a = keras.layers.Dense(3, name="d1")(i)
    b = keras.layers.Dense(2, name="d2")(i)
    c = keras.layers.Concatenate()([a, b])
    return keras.Model(i, keras.layers.Dense(1)(c), name="func")


def _chain(keras):
    i = keras.Input((4,), name="inp")
    return keras.Model(i, keras.layers.Dense(3, name="d1")(i), name="chain")


def _subclassed(called):
    def make(keras):
        class Sub(keras.Model):
            def __init__(self):
                super().__init__(name="sub")
                self.d = keras.layers.Dense(2)
                self.e = keras.layers.Dense(1)

            def call(self, x):
                return self.e(self.d(x))

        model = Sub()
        if called:
            model(np.ones((1, 3), np.float32))
        return model

    return make


def _unbuilt(keras):
    return keras.Sequential([keras.layers.Dense(2)], name="unbuilt")


def _trained(keras):
    model = _sequential(keras)
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 4), np.float32), np.ones((4, 1), np.float32), verbose=0)
    return model


def _nested_functional(keras):
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2), keras.layers.Dropout(0.1)], name="inner")
    i = keras.Input((4,), name="inp")
    frozen = keras.layers.Dense(2, name="d2")
    frozen.trainable = False
    c = keras.layers.Concatenate()([inner(i), frozen(i)])
    return keras.Model(i, keras.layers.Dense(1)(c), name="outer")


def _nested_sequential(keras):
    inner = keras.Sequential([keras.layers.Dense(2), keras.layers.Dense(3)], name="inner")
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), inner, keras.layers.BatchNormalization(),
                             keras.layers.Dense(1)], name="seq")


def _functional_in_functional(keras):
    i2 = keras.Input((3,), name="xi")
    inner = keras.Model(i2, keras.layers.Dense(2, name="di")(i2), name="innerf")
    deepest = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, name="deep")], name="deepest")
    mid = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, name="dd"), deepest], name="mid")
    i = keras.Input((3,), name="x")
    return keras.Model(i, mid(inner(i)), name="outer")


@dataclass
class Case:
    id: str
    make: Callable
    want: str
    kwargs: dict = field(default_factory=dict)


_SEQ_BODY = """\
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ (None, 3)              │            15 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ batch_normalization             │ (None, 3)              │            12 │
│ (BatchNormalization)            │                        │               │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_1 (Dense)                 │ (None, 1)              │             4 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
"""

CASES = [
    Case("sequential", _sequential, 'Model: "seq"\n' + _SEQ_BODY + """\
 Total params: 31 (124.00 B)
 Trainable params: 25 (100.00 B)
 Non-trainable params: 6 (24.00 B)
"""),
    Case("functional_branching", _branching, """\
Model: "func"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ inp (InputLayer)    │ (None, 4)         │          0 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ d1 (Dense)          │ (None, 3)         │         15 │ inp[0][0]         │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ d2 (Dense)          │ (None, 2)         │         10 │ inp[0][0]         │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ concatenate         │ (None, 5)         │          0 │ d1[0][0],         │
│ (Concatenate)       │                   │            │ d2[0][0]          │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dense (Dense)       │ (None, 1)         │          6 │ concatenate[0][0] │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 31 (124.00 B)
 Trainable params: 31 (124.00 B)
 Non-trainable params: 0 (0.00 B)
"""),
    Case("functional_chain", _chain, """\
Model: "chain"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ inp (InputLayer)                │ (None, 4)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ d1 (Dense)                      │ (None, 3)              │            15 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 15 (60.00 B)
 Trainable params: 15 (60.00 B)
 Non-trainable params: 0 (0.00 B)
"""),
    Case("subclassed_unbuilt", _subclassed(False), """\
Model: "sub"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ ?                      │   0 (unbuilt) │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_1 (Dense)                 │ ?                      │   0 (unbuilt) │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""),
    Case("subclassed_called", _subclassed(True), """\
Model: "sub"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ (1, 2)                 │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_1 (Dense)                 │ (1, 1)                 │             3 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 11 (44.00 B)
 Trainable params: 11 (44.00 B)
 Non-trainable params: 0 (0.00 B)
"""),
    Case("sequential_unbuilt", _unbuilt, """\
Model: "unbuilt"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ ?                      │   0 (unbuilt) │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""),
    Case("trained_with_optimizer", _trained, 'Model: "seq"\n' + _SEQ_BODY + """\
 Total params: 83 (336.00 B)
 Trainable params: 25 (100.00 B)
 Non-trainable params: 6 (24.00 B)
 Optimizer params: 52 (212.00 B)
"""),
    Case("line_length_60", _sequential, """\
Model: "seq"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┓
┃ Layer (type)             ┃ Output Shape      ┃   Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━┩
│ dense (Dense)            │ (None, 3)         │        15 │
├──────────────────────────┼───────────────────┼───────────┤
│ batch_normalization      │ (None, 3)         │        12 │
│ (BatchNormalization)     │                   │           │
├──────────────────────────┼───────────────────┼───────────┤
│ dense_1 (Dense)          │ (None, 1)         │         4 │
└──────────────────────────┴───────────────────┴───────────┘
 Total params: 31 (124.00 B)
 Trainable params: 25 (100.00 B)
 Non-trainable params: 6 (24.00 B)
""", {"line_length": 60}),
    # expand_nested (nested rows indented, no connections of the outer graph), show_trainable (Y/N/-, a centred
    # column whose header rich cuts to "Trai…"; long words cut with "…" too), layer_range (regexes, re.match; a
    # range given backwards is taken the other way round)
    Case("expand_nested_functional", _nested_functional, """\
Model: "outer"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ inp (InputLayer)    │ (None, 4)         │          0 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ inner (Sequential)  │ (None, 2)         │         10 │ inp[0][0]         │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│    └ dense (Dense)  │ (None, 2)         │         10 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│    └ dropout        │ (None, 2)         │          0 │ -                 │
│ (Dropout)           │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ d2 (Dense)          │ (None, 2)         │         10 │ inp[0][0]         │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ concatenate         │ (None, 4)         │          0 │ inner[0][0],      │
│ (Concatenate)       │                   │            │ d2[0][0]          │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dense_1 (Dense)     │ (None, 1)         │          5 │ concatenate[0][0] │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 25 (100.00 B)
 Trainable params: 15 (60.00 B)
 Non-trainable params: 10 (40.00 B)
""", {"expand_nested": True}),
    Case("show_trainable_functional", _nested_functional, """\
Model: "outer"
┏━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┳━━━━━━━┓
┃ Layer (type)      ┃ Output Shape    ┃   Param # ┃ Connected to   ┃ Trai… ┃
┡━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━━━━━━━╇━━━━━━━┩
│ inp (InputLayer)  │ (None, 4)       │         0 │ -              │   -   │
├───────────────────┼─────────────────┼───────────┼────────────────┼───────┤
│ inner             │ (None, 2)       │        10 │ inp[0][0]      │   Y   │
│ (Sequential)      │                 │           │                │       │
├───────────────────┼─────────────────┼───────────┼────────────────┼───────┤
│    └ dense        │ (None, 2)       │        10 │ -              │   Y   │
│ (Dense)           │                 │           │                │       │
├───────────────────┼─────────────────┼───────────┼────────────────┼───────┤
│    └ dropout      │ (None, 2)       │         0 │ -              │   -   │
│ (Dropout)         │                 │           │                │       │
├───────────────────┼─────────────────┼───────────┼────────────────┼───────┤
│ d2 (Dense)        │ (None, 2)       │        10 │ inp[0][0]      │   N   │
├───────────────────┼─────────────────┼───────────┼────────────────┼───────┤
│ concatenate       │ (None, 4)       │         0 │ inner[0][0],   │   -   │
│ (Concatenate)     │                 │           │ d2[0][0]       │       │
├───────────────────┼─────────────────┼───────────┼────────────────┼───────┤
│ dense_1 (Dense)   │ (None, 1)       │         5 │ concatenate[0… │   Y   │
└───────────────────┴─────────────────┴───────────┴────────────────┴───────┘
 Total params: 25 (100.00 B)
 Trainable params: 15 (60.00 B)
 Non-trainable params: 10 (40.00 B)
""", {"show_trainable": True, "expand_nested": True}),
    Case("show_trainable_sequential", _nested_sequential, """\
Model: "seq"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓
┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩
│ dense_2 (Dense)             │ (None, 3)             │         15 │   Y   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ inner (Sequential)          │ (None, 3)             │         17 │   Y   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ batch_normalization         │ (None, 3)             │         12 │   Y   │
│ (BatchNormalization)        │                       │            │       │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ dense_3 (Dense)             │ (None, 1)             │          4 │   Y   │
└─────────────────────────────┴───────────────────────┴────────────┴───────┘
 Total params: 48 (192.00 B)
 Trainable params: 42 (168.00 B)
 Non-trainable params: 6 (24.00 B)
""", {"show_trainable": True}),
    Case("layer_range_regex", _nested_sequential, """\
Model: "seq"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense_2 (Dense)                 │ (None, 3)              │            15 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ inner (Sequential)              │ (None, 3)              │            17 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 48 (192.00 B)
 Trainable params: 42 (168.00 B)
 Non-trainable params: 6 (24.00 B)
""", {"layer_range": ["d", "inner"]}),
    Case("layer_range_backwards_expanded", _nested_sequential, """\
Model: "seq"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ inner (Sequential)              │ (None, 3)              │            17 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│    └ dense (Dense)              │ (None, 2)              │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│    └ dense_1 (Dense)            │ (None, 3)              │             9 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ batch_normalization             │ (None, 3)              │            12 │
│ (BatchNormalization)            │                        │               │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 48 (192.00 B)
 Trainable params: 42 (168.00 B)
 Non-trainable params: 6 (24.00 B)
""", {"layer_range": ["batch", "inner"], "expand_nested": True}),
    # a functional model's type is Keras' class, Functional; two levels of nesting
    Case("expand_nested_two_levels", _functional_in_functional, """\
Model: "outer"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ x (InputLayer)                  │ (None, 3)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ innerf (Functional)             │ (None, 2)              │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│    └ xi (InputLayer)            │ (None, 3)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│    └ di (Dense)                 │ (None, 2)              │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ mid (Sequential)                │ (None, 1)              │             9 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│    └ dd (Dense)                 │ (None, 2)              │             6 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│    └ deepest (Sequential)       │ (None, 1)              │             3 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│       └ deep (Dense)            │ (None, 1)              │             3 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 17 (68.00 B)
 Trainable params: 17 (68.00 B)
 Non-trainable params: 0 (0.00 B)
""", {"expand_nested": True}),
    Case("nested_functional_unexpanded", _functional_in_functional, """\
Model: "outer"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ x (InputLayer)                  │ (None, 3)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ innerf (Functional)             │ (None, 2)              │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ mid (Sequential)                │ (None, 1)              │             9 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 17 (68.00 B)
 Trainable params: 17 (68.00 B)
 Non-trainable params: 0 (0.00 B)
"""),
]


def _text(model, **kwargs):
    lines = []
    assert model.summary(print_fn=lines.append, **kwargs) is None
    assert len(lines) == 1  # one call with the whole text, as Keras
    return lines[0]


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # the default width depends on the terminal, as Keras'
    monkeypatch.setenv("LINES", "24")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_summary_text_as_recorded_from_keras(case):
    ds.clear_session()
    assert _text(case.make(ds.keras), **case.kwargs) == case.want


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_summary_text_equals_keras(case):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    keras = pytest.importorskip("keras")
    keras.utils.clear_session()
    theirs = _text(case.make(keras), **case.kwargs)
    ds.clear_session()
    assert _text(case.make(ds.keras), **case.kwargs) == theirs
    assert theirs == case.want  # the recorded text is Keras'


@pytest.mark.parametrize("n_bytes,want", [(0, "0.00 B"), (124, "124.00 B"), (1023, "1023.00 B"),
                                          (1024, "1.00 KB"), (1536, "1.50 KB"), (3 * 1024 ** 2, "3.00 MB")])
def test_sizes_read_as_keras(n_bytes, want):
    assert model_summary.readable_size(n_bytes) == want


def test_print_fn_none_prints_and_narrow_columns_are_refused(capsys):
    model = _sequential(ds.keras)
    model.summary()
    assert capsys.readouterr().out.startswith('Model: "seq"\n┏')
    with pytest.raises(ValueError, match="insufficient width"):
        model.summary(line_length=8)


@pytest.mark.parametrize("layer_range,match", [
    (["dense"], "layer_range must be a list or tuple of length 2"),
    ("dense", "layer_range must be a list or tuple of length 2"),
    (["dense", 1], "layer_range should contain strings only"),
    (["conv", "dense"], r"does not match the layer names of the model \['dense', 'batch_normalization', 'dense_1'\]"),
])
def test_a_bad_layer_range_is_refused_naming_the_layers(layer_range, match):
    ds.clear_session()
    with pytest.raises(ValueError, match=match):
        _sequential(ds.keras).summary(layer_range=layer_range, print_fn=lambda text: None)
