"""Training: the one train/test/predict step (:mod:`.step`), its data-parallel context (:mod:`.replica`),
``compile``/``fit``/``evaluate``/``predict`` (:mod:`.loop`), the position of a fit (:mod:`.state`), the
callbacks (:mod:`.callbacks`) and backup and resume (:mod:`.backup`)."""

from .replica import LOCAL, Replica, replica_for
from .fit_state import FitState

__all__ = ["FitState", "LOCAL", "Replica", "replica_for"]
