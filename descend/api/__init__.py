"""The machinery of descend's public surface: the one way a facade (the root, a package, a module) loads its names
on first use (:mod:`.lazy`), and the names of TensorFlow's and Keras' namespaces descend leaves out on purpose, with
the reason (:mod:`.exclusions`)."""
