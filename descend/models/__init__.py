"""``Model`` and ``Sequential``: layers that train (``compile`` / ``fit`` / ``evaluate`` / ``predict``).

The implementation lives in :mod:`descend.models.model`; this module is the public namespace.
"""

from .model import *  # noqa: F403
from .model import __all__  # noqa: F401
