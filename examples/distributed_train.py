"""Data-parallel training over MPI with TensorFlow's distribution API.

    mpiexec -n 2 python examples/distributed_train.py      # 2 processes, one replica each
    python examples/distributed_train.py                   # the same script as one replica

Each global batch of 128 digits is split over the replicas; each replica's loss is divided by the
global batch (compute_average_loss) and the optimizer sums the gradients across replicas, so every
process applies the update one process with the whole batch would.
"""

import numpy as np

import descend as ds

np.random.seed(0)  # the same initial weights as a one-process run: the printed figures match it
strategy = ds.distribute.MultiWorkerMirroredStrategy()
GLOBAL_BATCH = 128

(x, y), (x_test, y_test) = ds.datasets.load_digits()
with strategy.scope():  # variables created here start identical on every rank (broadcast from rank 0)
    model = ds.Sequential([ds.layers.Dense(64, activation="relu"), ds.layers.Dense(10)])
    model(ds.constant(x[:1]))
    optimizer = ds.optimizers.AdamW(3e-3)
loss_fn = ds.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
dataset = ds.data.Dataset.from_tensor_slices((x, y)).shuffle(2048, seed=0).batch(GLOBAL_BATCH)


def train_step(bx, by):
    with ds.GradientTape() as tape:
        per_example = loss_fn(by, model(bx))
        loss = ds.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # summed across replicas
    return loss


for epoch in range(5):
    total, steps = 0.0, 0
    for bx, by in strategy.experimental_distribute_dataset(dataset):
        total += float(strategy.reduce("SUM", strategy.run(train_step, args=(bx, by))))  # the global mean loss
        steps += 1
    accuracy = float(np.mean(np.argmax(model(ds.constant(x_test)).numpy(), axis=1) == y_test))
    if strategy.replica_id == 0:  # one log line, from rank 0
        print(f"epoch {epoch + 1}: loss {total / steps:.4f}  test accuracy {accuracy:.3f}  "
              f"({strategy.num_replicas_in_sync} replicas)")
