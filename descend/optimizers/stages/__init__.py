"""The stages of the update pipeline (see :mod:`descend.optimizers.pipeline`), by concern:

* :mod:`.gradients`: ``validate``, ``check_input``, ``clip``, ``check_applied``;
* :mod:`.accumulate`: ``accumulate``;
* :mod:`.update`: ``resolve`` and ``update`` (weight decay, the rule, constraints);
* :mod:`.finish`: ``count`` and ``ema``.

The ``aggregate`` stage comes from the distribution strategy an update runs under.
"""

from __future__ import annotations

from .accumulate import Accumulate
from .finish import Count, MovingAverage
from .gradients import CheckApplied, CheckInput, Clip, Validate
from .update import Resolve, Update

__all__ = ["Accumulate", "CheckApplied", "CheckInput", "Clip", "Count", "MovingAverage", "Resolve", "Update",
           "Validate", "default"]


def default() -> list:
    """A new optimizer's stages, in order."""
    return [Validate(), CheckInput(), Accumulate(), Clip(), CheckApplied(), Resolve(), Update(), Count(),
            MovingAverage()]
