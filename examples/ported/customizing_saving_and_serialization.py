"""Port of the Keras guide "Customizing Saving and Serialization": the hooks ``model.save`` and
``keras.models.load_model`` call on layers and models, in the order loading calls them: ``build_from_config``,
``compile_from_config``, ``load_own_variables``, ``load_assets`` (and their saving counterparts
``get_build_config``, ``get_compile_config``, ``save_own_variables``, ``save_assets``).

Source: https://keras.io/guides/customizing_saving_and_serialization/ (keras-team/keras-io,
guides/customizing_saving_and_serialization.py), author Neel Kovelamudi, Apache License 2.0.

Changed from the guide (each as Keras 3.15 needs it: as written, three of its four sections fail under
TensorFlow 2.21 and Keras 3.15): the imports; the first section's targets have the shape of the model's
outputs, (8, 10) instead of (8,) (its layer multiplies a Dense(1) output by a vector of 10: "Incompatible
shapes: [8] vs. [8,10]"); the third section's ``build_from_config`` reads the input shape from
``config["shapes_dict"]`` (Keras 3.15's ``get_build_config`` gives ``{"shapes_dict": {"input_shape": ...,
"layer_init": ...}}`` for a ``build`` of two arguments, so the guide's ``config["input_shape"]`` is a KeyError);
the fourth section's model takes the keyword arguments of its config (Keras 3.15 rebuilds it with ``trainable``
and ``dtype``, which the guide's ``__init__(self)`` refuses). Added: each section checks that the restored model
predicts what the saved one does, and the last evaluates the restored model.

    python examples/ported/customizing_saving_and_serialization.py
"""

import os

import numpy as np
import descend as tf
from descend import keras

# ## State saving customization
#
# ### `save_own_variables()` and `load_own_variables()`
#
# The default `save_own_variables()` stores the layer's weights as `store["0"]`, `store["1"]`, ...;
# a layer can store more, or other things, under names of its own.


@keras.utils.register_keras_serializable(package="my_custom_package")
class LayerWithCustomVariables(keras.layers.Dense):
    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.stored_variables = tf.Variable(np.random.random((10,)), name="special_arr", dtype=tf.float32)

    def save_own_variables(self, store):
        super().save_own_variables(store)
        # Stores the value of the `tf.Variable` upon saving
        store["variables"] = self.stored_variables.numpy()

    def load_own_variables(self, store):
        # Assigns the value of the `tf.Variable` upon loading
        self.stored_variables.assign(store["variables"])
        # Load the remaining weights
        for i, v in enumerate(self.weights):
            v.assign(store[f"{i}"])
        # Note: You must specify how all variables (including layer weights)
        # are loaded in `load_own_variables.`

    def call(self, inputs):
        return super().call(inputs) * self.stored_variables


model = keras.Sequential([LayerWithCustomVariables(1)])

ref_input = np.random.random((8, 10))
ref_output = np.random.random((8, 10))
model.compile(optimizer="adam", loss="mean_squared_error")
model.fit(ref_input, ref_output)

model.save("custom_vars_model.keras")
restored_model = keras.models.load_model("custom_vars_model.keras")

np.testing.assert_allclose(
    model.layers[0].stored_variables.numpy(),
    restored_model.layers[0].stored_variables.numpy(),
)
np.testing.assert_allclose(model.predict(ref_input), restored_model.predict(ref_input))

# ### `save_assets()` and `load_assets()`
#
# A layer can keep files (a vocabulary, a lookup table) in the archive's `assets/` folder.


@keras.saving.register_keras_serializable(package="my_custom_package")
class LayerWithCustomAssets(keras.layers.Dense):
    def __init__(self, vocab=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.vocab = vocab

    def save_assets(self, inner_path):
        # Writes the vocab (sentence) to text file at save time.
        with open(os.path.join(inner_path, "vocabulary.txt"), "w") as f:
            f.write(self.vocab)

    def load_assets(self, inner_path):
        # Reads the vocab (sentence) from text file at load time.
        with open(os.path.join(inner_path, "vocabulary.txt"), "r") as f:
            text = f.read()
        self.vocab = text.replace("<unk>", "little")


model = keras.Sequential([LayerWithCustomAssets(vocab="Mary had a <unk> lamb.", units=5)])

x = np.random.random((10, 10))
y = model(x)

model.save("custom_assets_model.keras")
restored_model = keras.models.load_model("custom_assets_model.keras")

np.testing.assert_string_equal(restored_model.layers[0].vocab, "Mary had a little lamb.")
np.testing.assert_allclose(model.predict(x), restored_model.predict(x))

# ## `build` and `compile` saving customization
#
# ### `get_build_config()` and `build_from_config()`


@keras.saving.register_keras_serializable(package="my_custom_package")
class LayerWithCustomBuild(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        return dict(units=self.units, **super().get_config())

    def build(self, input_shape, layer_init):
        # Note the customization in overriding `build()` adds an extra argument.
        # Therefore, we will need to manually call build with `layer_init` argument
        # before the first execution of `call()`.
        super().build(input_shape)
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer=layer_init,
            trainable=True,
        )
        self.b = self.add_weight(
            shape=(self.units,),
            initializer=layer_init,
            trainable=True,
        )
        self.layer_init = layer_init

    def get_build_config(self):
        build_config = super().get_build_config()  # the arguments `build` was called with
        build_config.update(
            {"layer_init": self.layer_init}  # Stores our initializer for `build()`
        )
        return build_config

    def build_from_config(self, config):
        # Calls `build()` with the parameters at loading time
        self.build(config["shapes_dict"]["input_shape"], config["layer_init"])


custom_layer = LayerWithCustomBuild(units=16)
custom_layer.build(input_shape=(8,), layer_init="random_normal")

model = keras.Sequential(
    [
        custom_layer,
        keras.layers.Dense(1, activation="sigmoid"),
    ]
)

x = np.random.random((16, 8))
y = model(x)

model.save("custom_build_model.keras")
restored_model = keras.models.load_model("custom_build_model.keras")

np.testing.assert_equal(restored_model.layers[0].layer_init, "random_normal")
np.testing.assert_equal(restored_model.built, True)
np.testing.assert_allclose(model.predict(x), restored_model.predict(x))

# ### `get_compile_config()` and `compile_from_config()`


@keras.saving.register_keras_serializable(package="my_custom_package")
def small_square_sum_loss(y_true, y_pred):
    loss = tf.math.squared_difference(y_pred, y_true)
    loss = loss / 10.0
    loss = tf.reduce_sum(loss, axis=1)
    return loss


@keras.saving.register_keras_serializable(package="my_custom_package")
def mean_pred(y_true, y_pred):
    return tf.reduce_mean(y_pred)


@keras.saving.register_keras_serializable(package="my_custom_package")
class ModelWithCustomCompile(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense1 = keras.layers.Dense(8, activation="relu")
        self.dense2 = keras.layers.Dense(4, activation="softmax")

    def call(self, inputs):
        x = self.dense1(inputs)
        return self.dense2(x)

    def compile(self, optimizer, loss_fn, metrics):
        super().compile(optimizer=optimizer, loss=loss_fn, metrics=metrics)
        self.model_optimizer = optimizer
        self.loss_fn = loss_fn
        self.loss_metrics = metrics

    def get_compile_config(self):
        # These parameters will be serialized at saving time.
        return {
            "model_optimizer": self.model_optimizer,
            "loss_fn": self.loss_fn,
            "metric": self.loss_metrics,
        }

    def compile_from_config(self, config):
        # Deserializes the compile parameters (important, since many are custom)
        optimizer = keras.utils.deserialize_keras_object(config["model_optimizer"])
        loss_fn = keras.utils.deserialize_keras_object(config["loss_fn"])
        metrics = keras.utils.deserialize_keras_object(config["metric"])

        # Calls compile with the deserialized parameters
        self.compile(optimizer=optimizer, loss_fn=loss_fn, metrics=metrics)


model = ModelWithCustomCompile()
model.compile(optimizer="SGD", loss_fn=small_square_sum_loss, metrics=["accuracy", mean_pred])

x = np.random.random((4, 8))
y = np.random.random((4,))

model.fit(x, y)

model.save("custom_compile_model.keras")
restored_model = keras.models.load_model("custom_compile_model.keras")

np.testing.assert_equal(model.model_optimizer, restored_model.model_optimizer)
np.testing.assert_equal(model.loss_fn, restored_model.loss_fn)
np.testing.assert_equal(model.loss_metrics, restored_model.loss_metrics)
np.testing.assert_allclose(model.predict(x), restored_model.predict(x))
print(restored_model.evaluate(x, y))
