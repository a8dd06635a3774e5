"""The compiler behind ``descend.function``: trace, plan, kernels.

* :mod:`.graph`: the recorded graph (values, nodes, subgraphs);
* :mod:`.tracer`: the recorder the framework's tracing hooks report to;
* :mod:`.function`: ``descend.function`` (TF's tracing rules), ``Function``, ``ConcreteFunction``;
* :mod:`.control_flow`: ``descend.cond`` and ``descend.while_loop``;
* :mod:`.autograph`: plain ``if``/``while`` statements on computed Tensors, converted;
* :mod:`.interpret`: a graph run op by op (the reference; gradients through calls);
* :mod:`.plan`: a graph as one generated Python function over preallocated buffers;
* :mod:`.fusion`: chains of elementwise ops as generated kernels (through :mod:`descend._native`);
* :mod:`.nodes`: calls recorded whole (``Optimizer.apply_gradients``).
"""

from .control_flow import cond, while_loop
from .function import ConcreteFunction, Function, FunctionEagerWarning, function

__all__ = ["ConcreteFunction", "Function", "FunctionEagerWarning", "cond", "function", "while_loop"]
