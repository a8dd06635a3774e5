"""Port of the TensorFlow guide "Training checkpoints": save_weights, a training loop with tf.train.Checkpoint
and CheckpointManager (the step, the optimizer, the model and the dataset iterator saved every 10 steps),
resuming from the latest checkpoint, and restoring through the object graph.

Source: https://www.tensorflow.org/guide/checkpoint (tensorflow/docs, site/en/guide/checkpoint.ipynb),
Copyright The TensorFlow Authors, Apache License 2.0.

Changed from the guide: the imports; the shell cell (``!ls``) is left out, and so is
``net.save_weights('easy_checkpoint')`` of the unbuilt model, which TensorFlow 2.21 refuses too (Keras 3 wants
a ``.weights.h5`` name and a built model). Left out, for what descend lacks: the sections after the
training loop (nested ``tf.train.Checkpoint`` objects, deferred restoration on assignment and on list append,
``tf.train.load_checkpoint`` and TF's object-graph key names).

    python examples/ported/checkpoint.py
"""

import descend as tf

class Net(tf.keras.Model):
  """A simple linear model."""

  def __init__(self):
    super(Net, self).__init__()
    self.l1 = tf.keras.layers.Dense(5)

  def call(self, x):
    return self.l1(x)
net = Net()
# Left out: net.save_weights('easy_checkpoint') (Keras 3 requires a .weights.h5 name, and a built model:
# TensorFlow 2.21 refuses it as well).
def toy_dataset():
  inputs = tf.range(10.)[:, None]
  labels = inputs * 5. + tf.range(5.)[None, :]
  return tf.data.Dataset.from_tensor_slices(
    dict(x=inputs, y=labels)).repeat().batch(2)
def train_step(net, example, optimizer):
  """Trains `net` on `example` using `optimizer`."""
  with tf.GradientTape() as tape:
    output = net(example['x'])
    loss = tf.reduce_mean(tf.abs(output - example['y']))
  variables = net.trainable_variables
  gradients = tape.gradient(loss, variables)
  optimizer.apply_gradients(zip(gradients, variables))
  return loss
opt = tf.keras.optimizers.Adam(0.1)
dataset = toy_dataset()
iterator = iter(dataset)
ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net, iterator=iterator)
manager = tf.train.CheckpointManager(ckpt, './tf_ckpts', max_to_keep=3)
def train_and_checkpoint(net, manager):
  ckpt.restore(manager.latest_checkpoint)
  if manager.latest_checkpoint:
    print("Restored from {}".format(manager.latest_checkpoint))
  else:
    print("Initializing from scratch.")

  for _ in range(50):
    example = next(iterator)
    loss = train_step(net, example, opt)
    ckpt.step.assign_add(1)
    if int(ckpt.step) % 10 == 0:
      save_path = manager.save()
      print("Saved checkpoint for step {}: {}".format(int(ckpt.step), save_path))
      print("loss {:1.2f}".format(loss.numpy()))
train_and_checkpoint(net, manager)
opt = tf.keras.optimizers.Adam(0.1)
net = Net()
dataset = toy_dataset()
iterator = iter(dataset)
ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net, iterator=iterator)
manager = tf.train.CheckpointManager(ckpt, './tf_ckpts', max_to_keep=3)

train_and_checkpoint(net, manager)
print(manager.checkpoints)  # List the three remaining checkpoints
to_restore = tf.Variable(tf.zeros([5]))
print(to_restore.numpy())  # All zeros
# Left out, from here to the end: restoring through nested Checkpoints (descend refuses a Checkpoint inside a
# Checkpoint), the deferred restoration of a variable assigned later, tf.train.load_checkpoint's reader and
# the object-graph keys (TensorFlow 2.21 fails there too: Keras 3 has no 'net/l1/kernel' key), and the
# restoration of lists and dicts assigned to a Checkpoint after its restore().
