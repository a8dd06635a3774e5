"""``tf.version``: descend's version in the fields of TF's module that describe a build: ``VERSION`` (as
``descend.__version__``), ``GIT_VERSION`` and ``COMPILER_VERSION`` (descend has no native build: the Python
that runs it). TF's ``GRAPH_DEF_VERSION*`` numbers are left out: descend writes no GraphDefs.

Example:
    >>> import descend as ds
    >>> ds.version.VERSION == ds.__version__
    True
"""

from __future__ import annotations

import platform

from . import __version__ as VERSION  # noqa: N812 - TF's name

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "VERSION"]

GIT_VERSION = f"v{VERSION}"
COMPILER_VERSION = f"{platform.python_implementation()} {platform.python_version()}"
