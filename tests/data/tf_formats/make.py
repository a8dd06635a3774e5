"""Make the TensorFlow and Keras files that tests/test_tf_formats.py reads (run with TensorFlow and Keras 3
installed: ``python tests/data/tf_formats/make.py``). Every model is trained a few steps, saved mid-training,
then trained 3 steps more; ``expected.npz`` holds the data and the values TensorFlow / Keras reached, so that
the tests check descend's continuation without TensorFlow. The files are small (tens of KB in all).

* ``keras_functional.keras`` / ``.weights.h5``: a Keras 3 functional model (Dense 5 relu, Dense 2), Adam,
  3 steps;
* ``keras_sequential.keras``: Sequential (Dense without bias, BatchNormalization, Dense), RMSprop with momentum and
  centered, 2 steps;
* ``keras_subclassed.weights.h5``: a subclassed model (attributes hidden, bn, out), SGD with momentum, 2 steps;
* ``tf2_functional/ckpt-1``: ``tf.train.Checkpoint(model=, optimizer=)`` of the functional model (Adam, 3 steps);
* ``tf2_sequential/ckpt-1``: the same for a Sequential model with Nadam (its ``_u_product``);
* ``tf2_keras2_style/ckpt-1``: TF 2 objects named as Keras 2 names a model's layers
  (``layer_with_weights-<n>/kernel``) trained by TF 1's AdamOptimizer in eager mode (slot variables);
* ``tf1_<optimizer>/model.ckpt-3``: TF 1 graph-mode ``Saver`` checkpoints (Adam, Adagrad, RMSProp centered,
  Momentum) of variables ``dense/kernel``, ``dense/bias``, ``out/kernel``, ``out/bias`` and ``global_step``.
"""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.RandomState(0)
X = RNG.randn(8, 4).astype(np.float32)
Y = RNG.randn(8, 2).astype(np.float32)
expected: dict[str, np.ndarray] = {"x": X, "y": Y}


def out(*parts) -> str:
    path = os.path.join(HERE, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def record(prefix: str, values) -> None:
    for i, v in enumerate(values):
        expected[f"{prefix}/{i}"] = np.asarray(v)


def keras_files():
    import keras

    keras.utils.set_random_seed(0)
    inp = keras.Input((4,), name="x")
    h = keras.layers.Dense(5, activation="relu", name="d1")(inp)
    model = keras.Model(inp, keras.layers.Dense(2, name="d2")(h), name="functional_adam")
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    for _ in range(3):
        model.train_on_batch(X, Y)
    model.save(out("keras_functional.keras"))
    model.save_weights(out("keras_functional.weights.h5"))
    for _ in range(3):
        model.train_on_batch(X, Y)
    record("keras_functional/weights", model.get_weights())
    record("keras_functional/optimizer", [v.numpy() for v in model.optimizer.variables])

    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="a", use_bias=False), keras.layers.BatchNormalization(),
                              keras.layers.Dense(2, name="b")], name="sequential_rmsprop")
    model.compile(optimizer=keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True), loss="mse")
    for _ in range(2):
        model.train_on_batch(X, Y)
    model.save(out("keras_sequential.keras"))
    for _ in range(3):
        model.train_on_batch(X, Y)
    record("keras_sequential/weights", model.get_weights())

    class Sub(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hidden = keras.layers.Dense(3)
            self.bn = keras.layers.BatchNormalization()
            self.out = keras.layers.Dense(2)

        def call(self, x, training=None):
            return self.out(self.bn(self.hidden(x), training=training))

    keras.utils.set_random_seed(2)
    model = Sub()
    model.compile(optimizer=keras.optimizers.SGD(0.01, momentum=0.9), loss="mse")
    for _ in range(2):
        model.train_on_batch(X, Y)
    model.save_weights(out("keras_subclassed.weights.h5"))
    record("keras_subclassed/before", [v.numpy() for v in model.weights])
    for _ in range(3):
        model.train_on_batch(X, Y)
    record("keras_subclassed/weights", [v.numpy() for v in model.weights])


def tf2_files():
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(3)
    inp = keras.Input((4,), name="x")
    h = keras.layers.Dense(5, activation="relu", name="d1")(inp)
    model = keras.Model(inp, keras.layers.Dense(2, name="d2")(h))
    opt = keras.optimizers.Adam(0.01)
    model.compile(optimizer=opt, loss="mse")
    for _ in range(3):
        model.train_on_batch(X, Y)
    shutil.rmtree(out("tf2_functional", "x"), ignore_errors=True)
    tf.train.Checkpoint(model=model, optimizer=opt).write(out("tf2_functional", "ckpt-1"))
    record("tf2_functional/before", model.get_weights())
    record("tf2_functional/before_optimizer", [v.numpy() for v in opt.variables])
    for _ in range(3):
        model.train_on_batch(X, Y)
    record("tf2_functional/weights", model.get_weights())
    record("tf2_functional/optimizer", [v.numpy() for v in opt.variables])

    keras.utils.set_random_seed(4)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(2)])
    opt = keras.optimizers.Nadam(0.01)
    model.compile(optimizer=opt, loss="mse")
    for _ in range(2):
        model.train_on_batch(X, Y)
    tf.train.Checkpoint(model=model, optimizer=opt).write(out("tf2_sequential", "ckpt-1"))
    for _ in range(3):
        model.train_on_batch(X, Y)
    record("tf2_sequential/weights", model.get_weights())

    # Keras 2's names for a model's layers, on plain TF 2 objects, trained by TF 1's Adam in eager mode
    class Dense(tf.Module):
        def __init__(self, n_in, n_out, seed):
            super().__init__()
            init = np.random.RandomState(seed)
            self.kernel = tf.Variable(init.uniform(-0.5, 0.5, (n_in, n_out)).astype(np.float32))
            self.bias = tf.Variable(np.zeros(n_out, np.float32))

    net = tf.Module()
    first, second = Dense(4, 3, 5), Dense(3, 2, 6)
    setattr(net, "layer_with_weights-0", first)
    setattr(net, "layer_with_weights-1", second)
    opt = tf.compat.v1.train.AdamOptimizer(0.05)
    variables = [first.kernel, first.bias, second.kernel, second.bias]

    def loss():
        hidden = tf.nn.relu(tf.matmul(X, first.kernel) + first.bias)
        return tf.reduce_mean(tf.square(tf.matmul(hidden, second.kernel) + second.bias - Y))

    for _ in range(3):
        opt.minimize(loss, var_list=variables)
    tf.train.Checkpoint(model=net, optimizer=opt).write(out("tf2_keras2_style", "ckpt-1"))
    for _ in range(3):
        opt.minimize(loss, var_list=variables)
    record("tf2_keras2_style/weights", [v.numpy() for v in variables])


def tf1_files():
    import tensorflow as tf

    tf1 = tf.compat.v1
    makers = {"adam": lambda: tf1.train.AdamOptimizer(0.05),
              "adagrad": lambda: tf1.train.AdagradOptimizer(0.1),
              "rmsprop": lambda: tf1.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
              "momentum": lambda: tf1.train.MomentumOptimizer(0.05, 0.9)}
    for name, make in makers.items():
        graph = tf.Graph()
        with graph.as_default():
            x = tf1.placeholder(tf.float32, (None, 4))
            y = tf1.placeholder(tf.float32, (None, 2))
            init = np.random.RandomState(7)
            with tf1.variable_scope("dense"):
                k1 = tf1.get_variable("kernel", initializer=init.uniform(-0.5, 0.5, (4, 3)).astype(np.float32))
                b1 = tf1.get_variable("bias", initializer=np.zeros(3, np.float32))
            with tf1.variable_scope("out"):
                k2 = tf1.get_variable("kernel", initializer=init.uniform(-0.5, 0.5, (3, 2)).astype(np.float32))
                b2 = tf1.get_variable("bias", initializer=np.zeros(2, np.float32))
            pred = tf.matmul(tf.nn.relu(tf.matmul(x, k1) + b1), k2) + b2
            loss = tf.reduce_mean(tf.square(pred - y))
            step = tf1.train.get_or_create_global_step()
            train = make().minimize(loss, global_step=step)
            saver = tf1.train.Saver()
            folder = out(f"tf1_{name}", "x")
            shutil.rmtree(os.path.dirname(folder), ignore_errors=True)
            os.makedirs(os.path.dirname(folder))
            with tf1.Session(graph=graph) as sess:
                sess.run(tf1.global_variables_initializer())
                for _ in range(3):
                    sess.run(train, {x: X, y: Y})
                saver.save(sess, os.path.join(os.path.dirname(folder), "model.ckpt"), global_step=step,
                           write_meta_graph=False)
                for _ in range(3):
                    sess.run(train, {x: X, y: Y})
                record(f"tf1_{name}/weights", sess.run([k1, b1, k2, b2]))
                # the checkpoint file names absolute paths: keep the relative name only
                with open(os.path.join(os.path.dirname(folder), "checkpoint"), "w") as f:
                    f.write('model_checkpoint_path: "model.ckpt-3"\nall_model_checkpoint_paths: "model.ckpt-3"\n')


if __name__ == "__main__":
    keras_files()
    tf2_files()
    tf1_files()
    np.savez(out("expected.npz"), **expected)
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(HERE) for f in fs if f != "make.py")
    print(f"wrote {len(expected)} expected values; {total} bytes of test data")
