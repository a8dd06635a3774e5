"""Writes tests/data/checkpoint_v2_descend_paths: a checkpoint written by descend before its manifest recorded
TensorFlow's keys (written with main at 7bbb114: PYTHONPATH=<main checkout> python make.py <folder>)."""
import os
import sys

import numpy as np

import descend as ds

out = sys.argv[1]
ds.clear_session()
init = ds.initializers.GlorotUniform
model = ds.Sequential([ds.layers.Dense(3, kernel_initializer=init(seed=1)),
                       ds.layers.Dense(2, kernel_initializer=init(seed=2))])
opt = ds.optimizers.Adam(0.05)
x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], np.float32)
for _ in range(2):
    with ds.GradientTape() as t:
        loss = ds.reduce_mean((model(x) - y) ** 2)
    g = t.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(g, model.trainable_variables))
rng = np.random.default_rng(5)
rng.random(3)
step = ds.Variable(np.int64(2), name="step", trainable=False)
ckpt = ds.train.Checkpoint(model=model, optimizer=opt, rng=rng, step=step, alias={"k": model.layers[0].kernel})
path = ckpt.save(os.path.join(out, "ckpt"))
r = ds.train.load_checkpoint(path)
np.savez(os.path.join(out, "values.npz"), **{k.replace("/", "|"): r.get_tensor(k) for k in r.keys()},
         **{"rng_next": rng.random(2)})
print(path, r.keys())
