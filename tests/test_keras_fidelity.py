"""Details where descend's Keras must be Keras 3.15's (issue keras38): unseeded layers and initializers leave
NumPy's global generator alone (their seeds come from Python's ``random``, as Keras' ``SeedGenerator``), layers
resolve ``data_format=None`` from ``keras.config.image_data_format()`` when they are made, and the default names
of optimizers and models. Each table runs on descend and, where Keras is installed, on Keras too."""

from __future__ import annotations

import inspect
import os
import random

import numpy as np
import pytest

import descend as ds


def _keras():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return pytest.importorskip("keras")


# --- 1. NumPy's global generator is left alone; set_random_seed reproduces unseeded layers ----------------------
_SEQ = np.ones((2, 3, 4), np.float32)


def _call(layer, x=_SEQ):
    return layer(x, training=True)


def _attend(layer):
    return layer(_SEQ, _SEQ, training=True)


# (id, make(keras), run(layer)): each layer is made, then called in training (it builds and draws)
DRAWING = [
    ("Dropout", lambda k: k.layers.Dropout(0.5), _call),
    ("SpatialDropout1D", lambda k: k.layers.SpatialDropout1D(0.5), _call),
    ("SpatialDropout2D", lambda k: k.layers.SpatialDropout2D(0.5), lambda la: _call(la, np.ones((2, 3, 3, 2), "f"))),
    ("GaussianNoise", lambda k: k.layers.GaussianNoise(0.5), _call),
    ("GaussianDropout", lambda k: k.layers.GaussianDropout(0.5), _call),
    ("AlphaDropout", lambda k: k.layers.AlphaDropout(0.5), _call),
    ("Dense", lambda k: k.layers.Dense(3), _call),
    ("Embedding", lambda k: k.layers.Embedding(5, 2), lambda la: la(np.array([[1, 2]]))),
    ("MultiHeadAttention", lambda k: k.layers.MultiHeadAttention(2, 3, dropout=0.5), _attend),
    ("GroupQueryAttention", lambda k: k.layers.GroupQueryAttention(4, 2, 2, dropout=0.5), _attend),
    ("Attention", lambda k: k.layers.Attention(dropout=0.5), lambda la: la([_SEQ, _SEQ], training=True)),
    ("ConvLSTM1D", lambda k: k.layers.ConvLSTM1D(2, 3, dropout=0.5, recurrent_dropout=0.5),
     lambda la: _call(la, np.ones((2, 3, 5, 2), "f"))),
    ("LSTM", lambda k: k.layers.LSTM(3, dropout=0.5, recurrent_dropout=0.3), _call),
    ("GRU", lambda k: k.layers.GRU(3, dropout=0.5), _call),
    ("RandomFlip", lambda k: k.layers.RandomFlip(), lambda la: _call(la, np.arange(96, dtype="f").reshape(2, 4, 4, 3))),
    ("RandomRotation", lambda k: k.layers.RandomRotation(0.2),
     lambda la: _call(la, np.arange(96, dtype="f").reshape(2, 4, 4, 3))),
]


def _numpy_state_after(fn):
    """Whether ``fn()`` left NumPy's global generator where it was (its next draws the same)."""
    np.random.seed(11)
    want = np.random.random(4)
    np.random.seed(11)
    fn()
    return bool((np.random.random(4) == want).all())


@pytest.mark.parametrize("make,run", [c[1:] for c in DRAWING], ids=[c[0] for c in DRAWING])
def test_making_building_and_calling_a_layer_leaves_numpys_generator_alone(make, run):
    assert _numpy_state_after(lambda: run(make(ds.keras)))


@pytest.mark.parametrize("make,run", [c[1:] for c in DRAWING], ids=[c[0] for c in DRAWING])
def test_keras_leaves_numpys_generator_alone_too(make, run):
    keras = _keras()
    assert _numpy_state_after(lambda: run(make(keras)))


def test_building_a_model_leaves_numpys_generator_alone():
    def build():
        x = ds.keras.Input((3, 4))
        h = ds.layers.MultiHeadAttention(2, 2, dropout=0.1)(x, x)
        h = ds.layers.LSTM(3, dropout=0.2)(ds.layers.Dropout(0.3)(h))
        model = ds.keras.Model(x, ds.layers.Dense(1)(h))
        model(_SEQ, training=True)
    assert _numpy_state_after(build)


def _unseeded_run():
    """An unseeded model's first weights and a training-mode call of its dropout layers."""
    model = ds.Sequential([ds.keras.Input((3, 4)), ds.layers.Dense(4), ds.layers.Dropout(0.5),
                           ds.layers.LSTM(2, dropout=0.5), ds.layers.GaussianNoise(1.0)])
    return [w.numpy() for w in model.weights] + [model(_SEQ, training=True).numpy()]


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def test_set_random_seed_reproduces_unseeded_layers_and_numpy_seed_does_not_decide_them():
    ds.keras.utils.set_random_seed(7)
    first = _unseeded_run()
    ds.keras.utils.set_random_seed(7)
    assert _same(_unseeded_run(), first)
    ds.keras.utils.set_random_seed(8)
    assert not _same(_unseeded_run(), first)
    # without a global seed (after set_random_seed, initializers take the next seed of its sequence, as TF), Python's
    # random draws the seeds (as Keras' make_default_seed); NumPy's global state has no say
    ds.random.set_seed(None)
    random.seed(5)
    np.random.seed(1)
    a = _unseeded_run()
    random.seed(5)
    np.random.seed(2)
    assert _same(_unseeded_run(), a)


# --- 2. data_format=None is keras.config.image_data_format() when the layer is made ----------------------------
@pytest.fixture
def channels_first():
    ds.keras.config.set_image_data_format("channels_first")
    try:
        yield
    finally:
        ds.keras.config.set_image_data_format("channels_last")


# the arguments a layer needs besides data_format (the rest are defaults)
_ARGS = {"filters": 2, "kernel_size": 3, "output_size": 2, "factor": 0.1, "height": 4, "width": 4,
         "height_factor": 0.1, "width_factor": 0.1, "rate": 0.5, "pool_size": 2}

# the layers descend draws channels last only (composites of augmentations): a resolved channels_first is refused,
# naming the layer
CHANNELS_LAST_ONLY = {"AugMix", "RandAugment"}


def _data_format_layers(module) -> list[str]:
    """The layer classes of ``module`` (descend's or Keras' ``layers``) that take a ``data_format``."""
    out = []
    for name in sorted(dir(module)):
        cls = getattr(module, name)
        if inspect.isclass(cls) and "data_format" in inspect.signature(cls.__init__).parameters:
            out.append(name)
    return out


def _make(module, name):
    cls = getattr(module, name)
    params = inspect.signature(cls.__init__).parameters
    kwargs = {p: _ARGS[p] for p in params if p in _ARGS and params[p].default is inspect.Parameter.empty}
    if name == "RandomPosterization":
        kwargs["factor"] = (1, 2)
    return cls(**kwargs)


FORMAT_LAYERS = _data_format_layers(ds.layers)


def test_the_table_holds_the_layers_with_a_data_format():
    assert len(FORMAT_LAYERS) > 60 and {"Conv2D", "MaxPooling2D", "Flatten", "UpSampling2D", "Cropping2D",
                                        "ZeroPadding1D", "GlobalAveragePooling2D", "Resizing"} <= set(FORMAT_LAYERS)
    assert CHANNELS_LAST_ONLY <= set(FORMAT_LAYERS)


_IMAGES = np.random.default_rng(0).uniform(0, 255, (2, 6, 8, 3)).astype(np.float32)

# the layers computed channels last (descend/layers/_layout.py): channels first, the same seed gives the same images
# with the channel axis moved (a batch and one image), and the output shape moves with it
CHANNELS_LAST_KERNELS = [
    ("Resizing", lambda L, df: L.Resizing(3, 4, data_format=df)),
    ("Resizing_crop", lambda L, df: L.Resizing(3, 4, crop_to_aspect_ratio=True, data_format=df)),
    ("CenterCrop", lambda L, df: L.CenterCrop(4, 5, data_format=df)),
    ("RandomFlip", lambda L, df: L.RandomFlip(seed=1, data_format=df)),
    ("RandomRotation", lambda L, df: L.RandomRotation(0.2, seed=1, data_format=df)),
    ("RandomZoom", lambda L, df: L.RandomZoom(0.2, seed=1, data_format=df)),
    ("RandomTranslation", lambda L, df: L.RandomTranslation(0.2, 0.2, seed=1, data_format=df)),
    ("RandomCrop", lambda L, df: L.RandomCrop(4, 5, seed=1, data_format=df)),
    ("RandomBrightness", lambda L, df: L.RandomBrightness(0.2, seed=1, data_format=df)),
    ("RandomContrast", lambda L, df: L.RandomContrast(0.2, seed=1, data_format=df)),
    ("RandomPerspective", lambda L, df: L.RandomPerspective(seed=1, data_format=df)),
    ("RandomShear", lambda L, df: L.RandomShear(0.2, 0.2, seed=1, data_format=df)),
    ("RandomGrayscale", lambda L, df: L.RandomGrayscale(0.5, seed=1, data_format=df)),
    ("RandomColorJitter", lambda L, df: L.RandomColorJitter(brightness_factor=0.2, contrast_factor=0.2, seed=1,
                                                                 data_format=df)),
]


@pytest.mark.parametrize("make", [c[1] for c in CHANNELS_LAST_KERNELS], ids=[c[0] for c in CHANNELS_LAST_KERNELS])
def test_a_channels_last_kernel_takes_channels_first_images(make):
    last = make(ds.layers, "channels_last")(_IMAGES, training=True).numpy()
    first = make(ds.layers, "channels_first")(_IMAGES.transpose(0, 3, 1, 2), training=True).numpy()
    np.testing.assert_allclose(first, last.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-3)
    one = make(ds.layers, "channels_first")(_IMAGES[0].transpose(2, 0, 1), training=True).numpy()
    assert one.shape == first.shape[1:]
    shape = make(ds.layers, "channels_last").compute_output_shape((None, 6, 8, 3))
    assert make(ds.layers, "channels_first").compute_output_shape((None, 3, 6, 8)) == (None, shape[3], shape[1],
                                                                                          shape[2])


@pytest.mark.parametrize("make", [c[1] for c in CHANNELS_LAST_KERNELS if c[0] != "RandomColorJitter"],
                         ids=[c[0] for c in CHANNELS_LAST_KERNELS if c[0] != "RandomColorJitter"])
def test_keras_layers_take_channels_first_images_as_the_same_transposed(make):
    """What the kernels above do is Keras': its layers give the same images, the channel axis moved."""
    keras = _keras()
    last = np.asarray(make(keras.layers, "channels_last")(_IMAGES, training=True))
    first = np.asarray(make(keras.layers, "channels_first")(_IMAGES.transpose(0, 3, 1, 2), training=True))
    np.testing.assert_allclose(first, last.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-2)


@pytest.mark.parametrize("make", [lambda k: k.layers.Resizing(3, 4), lambda k: k.layers.Resizing(3, 4, pad_to_aspect_ratio=True),
                                  lambda k: k.layers.CenterCrop(4, 5), lambda k: k.layers.CenterCrop(7, 9),
                                  lambda k: k.layers.AutoContrast()],
                         ids=["Resizing", "Resizing_pad", "CenterCrop", "CenterCrop_up", "AutoContrast"])
def test_channels_first_images_by_default_as_keras(make, channels_first):
    """(AutoContrast: Keras takes the extremes over axes 1 and 2 whatever the data_format; descend as Keras.)"""
    keras = _keras()
    x = _IMAGES.transpose(0, 3, 1, 2)
    keras.config.set_image_data_format("channels_first")
    try:
        theirs = np.asarray(make(keras)(x))
    finally:
        keras.config.set_image_data_format("channels_last")
    np.testing.assert_allclose(make(ds.keras)(x).numpy(), theirs, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("name", FORMAT_LAYERS)
def test_data_format_none_follows_image_data_format(name, channels_first):
    if name in CHANNELS_LAST_ONLY:
        with pytest.raises(ValueError, match=rf"{name}: descend supports data_format='channels_last' only\. "
                                             r"Received: data_format='channels_first' \(keras.config"):
            _make(ds.layers, name)
        return
    layer = _make(ds.layers, name)
    assert layer.data_format == "channels_first"
    assert layer.get_config()["data_format"] == "channels_first"
    assert type(layer).from_config(layer.get_config()).data_format == "channels_first"
    ds.keras.config.set_image_data_format("channels_last")  # resolved when made: a later change leaves it
    assert layer.get_config()["data_format"] == "channels_first"
    assert _make(ds.layers, name).get_config()["data_format"] == "channels_last"


@pytest.mark.parametrize("name", FORMAT_LAYERS)
def test_data_format_in_the_config_is_keras(name, channels_first):
    keras = _keras()
    if not hasattr(keras.layers, name):
        pytest.skip(f"Keras 3 has no layers.{name}")
    keras.config.set_image_data_format("channels_first")
    try:
        theirs = _make(keras.layers, name).get_config()["data_format"]
    finally:
        keras.config.set_image_data_format("channels_last")
    assert theirs == "channels_first"
    if name not in CHANNELS_LAST_ONLY:
        assert _make(ds.layers, name).get_config()["data_format"] == theirs


def test_a_channels_first_default_computes_channels_first_as_keras(channels_first):
    keras = _keras()
    x = np.arange(2 * 3 * 6 * 5, dtype=np.float32).reshape(2, 3, 6, 5) / 100
    ours = [ds.layers.Conv2D(4, 3, kernel_initializer="ones"), ds.layers.MaxPooling2D(), ds.layers.Flatten(),
            ds.layers.ZeroPadding1D(2)]
    keras.config.set_image_data_format("channels_first")
    try:
        theirs = [keras.layers.Conv2D(4, 3, kernel_initializer="ones"), keras.layers.MaxPooling2D(),
                  keras.layers.Flatten(), keras.layers.ZeroPadding1D(2)]
        for mine, other, data in zip(ours, theirs, [x, x, x, x[0]]):
            np.testing.assert_allclose(mine(data).numpy(), np.asarray(other(data)), rtol=1e-6,
                                       err_msg=type(mine).__name__)
    finally:
        keras.config.set_image_data_format("channels_last")


def test_a_bad_data_format_names_what_was_received():
    with pytest.raises(ValueError, match=r"data_format must be 'channels_last' or 'channels_first'\. "
                                         r"Received: data_format='nhwc'"):
        ds.layers.Conv2D(2, 3, data_format="nhwc")
    with pytest.raises(ValueError, match=r"Resizing: data_format must be"):
        ds.layers.Resizing(2, 2, data_format="nhwc")


# --- 3. optimizers' default names ------------------------------------------------------------------------------
def _keras_optimizer_classes(keras) -> list[str]:
    """The names of Keras' optimizer classes that need no argument (MultiOptimizer does; descend has no Muon)."""
    return [name for name in sorted(dir(keras.optimizers))
            if inspect.isclass(getattr(keras.optimizers, name)) and name not in ("Optimizer", "MultiOptimizer", "Muon")
            and issubclass(getattr(keras.optimizers, name), keras.optimizers.Optimizer)]


def _optimizer_names(module, classes) -> dict:
    """Each optimizer class's default name, twice in one session (made unique as Keras: ``adam``, ``adam_1``)."""
    out = {}
    for name in classes:
        cls = getattr(module.optimizers, name)
        extra = {"inner_optimizer": module.optimizers.SGD(name="inner")} if name == "LossScaleOptimizer" else {}
        out[name] = [cls(**extra).name, cls(**extra).name]
    return out


def test_optimizer_default_names_are_keras():
    keras = _keras()
    keras.utils.clear_session()
    classes = _keras_optimizer_classes(keras)
    assert {"Adam", "AdamW", "RMSprop", "SGD", "Lion", "Ftrl", "LossScaleOptimizer"} <= set(classes)
    theirs = _optimizer_names(keras, classes)
    ds.clear_session()
    assert _optimizer_names(ds.keras, classes) == theirs
    assert theirs["RMSprop"] == ["rm_sprop", "rm_sprop_1"]  # Keras 3.15's snake case of the class name


# --- 4. models' default names -----------------------------------------------------------------------------------
def _model_names(k) -> list[str]:
    class MyNet(k.Model):
        def call(self, x):
            return x

    class HTTPBlock2D(k.Model):
        def call(self, x):
            return x

    class Tower(k.Sequential):
        pass

    class Head(k.Model):
        pass

    i = k.Input((3,))
    o = k.layers.Dense(2)(i)
    return [k.Model(i, o).name, k.Model(i, o).name, k.Model(inputs=i, outputs=o).name,
            k.models.Model(i, o).name, k.Sequential().name, k.Sequential([k.layers.Dense(1)]).name,
            MyNet().name, MyNet().name, HTTPBlock2D().name, k.Model().name, k.Model().name,
            k.Model(i, o, name="functional").name, k.Model(i, o).name, Tower().name, Head(i, o).name,
            k.layers.Dense(1).name] + [type(n, (k.Model,), {"call": lambda self, x: x})().name
                                       for n in ("ResNet50V2", "CNN1DNet", "UNet3Plus", "Foo__Bar")]


def test_model_default_names_as_recorded_from_keras():
    ds.clear_session()
    assert _model_names(ds.keras) == [
        "functional", "functional_1", "functional_2", "functional_3", "sequential", "sequential_1", "my_net",
        "my_net_1", "http_block2d", "model", "model_1", "functional", "functional_4", "tower", "head", "dense_2",
        "res_net50v2", "cnn1d_net", "u_net3_plus", "foo___bar"]


def test_model_default_names_are_keras():
    keras = _keras()
    keras.utils.clear_session()
    theirs = _model_names(keras)
    ds.clear_session()
    assert _model_names(ds.keras) == theirs
