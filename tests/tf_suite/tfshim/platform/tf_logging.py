"""TF's ``tf_logging`` (``tf.compat.v1.logging``): the test files log with it; Python's logging does the same."""

import logging as _logging

_log = _logging.getLogger("tensorflow")
info = _log.info
warning = _log.warning
warn = _log.warning
error = _log.error
debug = _log.debug
