"""TensorFlow's functions that are compositions of descend's ops and Python (no gradient of their own: the
tape differentiates the ops they call): the higher-order functions and assertions of ``tf``
(:mod:`.higher_order`) and the composite ``tf.math`` functions (:mod:`.math_extras`). They are public
through ``descend`` and ``descend.math``."""
