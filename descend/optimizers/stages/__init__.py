"""The stages of the update pipeline (see :mod:`descend.optimizers.pipeline`), by concern:

* :mod:`.gradients`: ``validate``, ``check_input``, ``clip``, ``check_applied``;
* :mod:`.accumulate`: ``accumulate``;
* :mod:`.update`: ``resolve``, ``update`` (weight decay, the rule, constraints) and ``count``;
* :mod:`.finish`: ``ema``.

The ``aggregate`` stage comes from the distribution strategy an update runs under.
"""

from __future__ import annotations

from .accumulate import Accumulate
from .finish import MovingAverage
from .gradients import CheckApplied, CheckInput, Clip, Validate
from .update import Count, Resolve, Update

__all__ = ["Accumulate", "CheckApplied", "CheckInput", "Clip", "Count", "MovingAverage", "Resolve", "Update",
           "Validate", "default"]


def default() -> list:
    """A new optimizer's stages, in order."""
    return [Validate(), CheckInput(), Accumulate(), Clip(), CheckApplied(), Resolve(), Update(), Count(),
            MovingAverage()]
