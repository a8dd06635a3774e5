"""The map of descend's public surface: the top level's names that load on first use (:mod:`.top_level`) and
the names of TensorFlow's and Keras' namespaces descend leaves out on purpose, with the reason (:mod:`.exclusions`)."""
