"""``descend.saved_model``: save a ``Module``'s variables and traced functions; load them without its Python.

A folder written by :func:`save` holds:

* ``variables/variables.index`` + ``.data-00000-of-00001``: the Module's
  Variables (and the traced functions' constants) as a TensorFlow tensor
  bundle, the layout of TF's SavedModel;
* ``descend_saved_model.json``: the Variables' names and flags and, for each
  ``descend.function`` method, its traced plans: the recorded ops, by their
  registered names, with their attributes as plain data.

Nothing in the folder is code. :func:`load` parses the JSON (bounded in size),
checks every field's type and range, looks every op name up in descend's op
registry (an unknown name is refused), and replays a plan by calling those ops,
so a ``GradientTape`` differentiates a loaded function as the original. It
never imports a module, unpickles or evaluates anything from the file.

:func:`load` of a TF SavedModel folder (``saved_model.pb``, no descend JSON)
reads its ``variables/`` (a TF checkpoint) through descend's TF checkpoint
reader: the result's ``variables`` are its values, keyed by TF's object-graph
names; TF's functions (graphs of TF's ops) are not loaded.

Not saved (``save`` raises ``ValueError`` naming the function and the node):
``cond``/``while_loop`` nodes, callbacks (``py_function``, metrics), optimizer
updates, ``descend.print``, Variables passed as arguments or not tracked by
the Module, ``custom_gradient`` functions (their rule is Python; the trace
records their forward ops only). A loaded function takes the shapes and dtypes
it was traced with.
"""

from .load import Loaded, LoadedFunction, load
from .save import save

__all__ = ["Loaded", "LoadedFunction", "load", "save"]
