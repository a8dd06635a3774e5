"""absl's ``parameterized`` for TF's test files: the one tests/keras_suite/kshim/parameterized.py implements (loaded
from its file, so that the two suites share one implementation and this one needs no ``kshim`` on the path)."""

import importlib.util
import os

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "keras_suite", "kshim", "parameterized.py")
_spec = importlib.util.spec_from_file_location("tfshim._kshim_parameterized", _PATH)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

parameters = _module.parameters
named_parameters = _module.named_parameters
product = _module.product
TestCase = _module.TestCase
