"""Port of the Keras guide "Writing a training loop from scratch" (TensorFlow backend).

Changed from the guide: the imports (``import descend as tf``, ``from descend import keras``),
and the data: descend ships no MNIST, so the guide's loop runs on the bundled 8x8 digits
(64 features instead of 784, a 300-example validation split instead of 10,000).
``optimizer.apply_gradients(zip(...))`` is written as in the guide's TF 2 edition.

    python examples/ported/training_loop_from_scratch.py
"""


import descend as tf
from descend import keras
from descend.datasets import load_digits

# ---- the model (the guide's get_model, on 64 features) ----
inputs = keras.Input(shape=(64,), name="digits")
x1 = keras.layers.Dense(64, activation="relu")(inputs)
x2 = keras.layers.Dense(64, activation="relu")(x1)
outputs = keras.layers.Dense(10, name="predictions")(x2)
model = keras.Model(inputs=inputs, outputs=outputs)

optimizer = keras.optimizers.Adam(learning_rate=1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# ---- the data ----
batch_size = 32
(x_train, y_train), (x_test, y_test) = load_digits()
x_val = x_train[-300:]
y_val = y_train[-300:]
x_train = x_train[:-300]
y_train = y_train[:-300]

train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)
val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val))
val_dataset = val_dataset.batch(batch_size)

# ---- metrics and the compiled steps ----
train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
val_acc_metric = keras.metrics.SparseCategoricalAccuracy()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss_value = loss_fn(y, logits)
    grads = tape.gradient(loss_value, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    train_acc_metric.update_state(y, logits)
    return loss_value


@tf.function
def test_step(x, y):
    val_logits = model(x, training=False)
    val_acc_metric.update_state(y, val_logits)


epochs = 3
train_accs, val_accs, first_losses = [], [], []
for epoch in range(epochs):
    print(f"\nStart of epoch {epoch}")
    for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
        loss_value = train_step(x_batch_train, y_batch_train)
        if step == 0:
            first_losses.append(float(loss_value))
        if step % 10 == 0:
            print(f"Training loss (for 1 batch) at step {step}: {float(loss_value):.4f}")
            print(f"Seen so far: {(step + 1) * batch_size} samples")

    train_acc = train_acc_metric.result()
    print(f"Training acc over epoch: {float(train_acc):.4f}")
    train_accs.append(float(train_acc))
    train_acc_metric.reset_state()

    for x_batch_val, y_batch_val in val_dataset:
        test_step(x_batch_val, y_batch_val)

    val_acc = val_acc_metric.result()
    val_acc_metric.reset_state()
    print(f"Validation acc: {float(val_acc):.4f}")
    val_accs.append(float(val_acc))
