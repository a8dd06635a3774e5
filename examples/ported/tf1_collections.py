"""A TF 1 training program in the style of seed 003: variables made with ``variable_scope`` /
``get_variable``, split into modules through the ``TRAINABLE_VARIABLES`` collection with a scope
filter, and two optimizers on the two lists: DeepRec's ``AdagradDecayOptimizer`` (counting its decay
periods on the global step) for the embedding table, ``AdamOptimizer`` for the dense part, which
also advances the global step. The model is a small click model: the mean of three embedding rows
per example, a linear layer, sigmoid cross-entropy.

Written for ``import tensorflow as tf`` in TF 1's style; here the import is descend's. It runs
eagerly (descend has no graph or Session), so the loss is computed under a ``GradientTape`` where a
TF 1 program would build it once and call ``sess.run(train_op)``.

    python examples/ported/tf1_collections.py
"""

import numpy as np

import descend as tf

v1 = tf.compat.v1
VOCAB, DIM, BATCH, FIELDS = 200, 8, 32, 3


def main(steps=60, seed=0, record=None):
    """Train; returns the losses. ``record`` (a dict) receives the initial values and each step's gradients."""
    v1.reset_default_graph()
    tf.random.set_seed(seed)
    rng = np.random.default_rng(seed)
    hidden_table = rng.standard_normal((VOCAB, DIM))
    hidden_w = rng.standard_normal(DIM)

    with v1.variable_scope("scope_emb"):
        table = v1.get_variable("input_from_feature_columns/word_embedding/weights", shape=[VOCAB, DIM],
                                dtype=tf.float64)
    with v1.variable_scope("dnn"):
        w = v1.get_variable("logits/kernel", shape=[DIM, 1], dtype=tf.float64)
        b = v1.get_variable("logits/bias", shape=[1], dtype=tf.float64, initializer=v1.zeros_initializer())
    global_step = v1.train.get_or_create_global_step()

    # several optimizers on different variable lists, found through the collection
    emb_vars = v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, scope="scope_emb")
    dnn_vars = v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, scope="dnn")
    emb_opt = v1.train.AdagradDecayOptimizer(0.5, global_step, accumulator_decay_step=20, accumulator_decay_rate=0.5)
    dnn_opt = v1.train.AdamOptimizer(0.05)
    if record is not None:
        record.update(initial={v.name: v.numpy() for v in emb_vars + dnn_vars}, grads=[],
                      emb=[v.name for v in emb_vars], dnn=[v.name for v in dnn_vars])

    losses = []
    for _ in range(steps):
        ids = rng.integers(0, VOCAB, size=(BATCH, FIELDS))
        labels = (hidden_table[ids].mean(axis=1) @ hidden_w > 0).astype(np.float64)[:, None]
        with tf.GradientTape() as tape:
            pooled = tf.reduce_mean(tf.nn.embedding_lookup(table, ids), axis=1)
            logits = tf.matmul(pooled, w) + b
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = tape.gradient(loss, emb_vars + dnn_vars)
        if record is not None:
            record["grads"].append(grads)
        emb_opt.apply_gradients(zip(grads[:len(emb_vars)], emb_vars))
        dnn_opt.apply_gradients(zip(grads[len(emb_vars):], dnn_vars), global_step=global_step)
        losses.append(float(loss))

    print(f"trainable: {[v.name for v in v1.trainable_variables()]}")
    print(f"global_step: {int(global_step.numpy())}")
    print(f"loss: first 10 steps {np.mean(losses[:10]):.4f}, last 10 steps {np.mean(losses[-10:]):.4f}")
    if record is not None:
        record["final"] = {v.name: v.numpy() for v in emb_vars + dnn_vars}
    return losses


if __name__ == "__main__":
    main()
