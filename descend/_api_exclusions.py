"""The names of TensorFlow's and Keras' namespaces that descend leaves out on purpose, with the reason and the
alternative: the table and its helpers live in :mod:`descend.api.exclusions` (this is the old path)."""

from .api.exclusions import EXCLUDED, excluded_count, refuse, render_markdown  # noqa: F401

__all__ = ["EXCLUDED", "excluded_count", "refuse", "render_markdown"]
