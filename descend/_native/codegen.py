"""The one generator of elementwise-loop source: a :class:`~descend._native.backend.LoopSpec` (inputs and their
layouts, literals, a body of statements, outputs, column sums) becomes the lines of a numba-compilable loop, and
those lines a kernel module. Pure Python: nothing here imports numba.

Both users of elementwise loops go through it: an optimizer's update rule (its
:attr:`~descend._native.backend.KernelSpec.loop`, placed by :mod:`descend._native.cpu` inside its dense chunk table,
its sparse rows and its replay: those wrappers choose the indices and the element each input and output is, nothing
else) and the compiled plan's fused loops (:mod:`descend._native.loops`: a 2-D iteration space). So a change to how
an element is read, computed and written is made once, and :data:`CODEGEN_VERSION` keys the on-disk cache of every
generated module.

Example:
    >>> from descend._native.backend import LoopSpec
    >>> from descend._native.codegen import element_lines, nest
    >>> spec = LoopSpec(name="axpy", inputs=(("x", "full"), ("y", "full")), literals=(("_L0", None, 2.0),),
    ...                 body=("v_z = v_x * _L0 + v_y",), outputs=(("z", "v_z"),), sums=())
    >>> print("\\n".join(nest(["for _j in range(_n):"], element_lines(
    ...     spec, read=lambda k, name, layout: f"_A{k}[_j]", write=lambda k, name: f"_Z{k}[_j]", dtype="float32"))))
    for _j in range(_n):
        v_x = _A0[_j]
        v_y = _A1[_j]
        v_z = v_x * _L0_float32 + v_y
        _Z0[_j] = v_z
"""

from __future__ import annotations

import re

__all__ = ["CODEGEN_VERSION", "constant_lines", "element_lines", "module_source", "nest"]

#: bump when a generated module changes meaning: it is part of the on-disk cache key of every generated module
#: (the optimizers' kernels and the plans' loops), so modules written by another version are never reused
CODEGEN_VERSION = 6

_INDENT = "    "


def nest(headers: list, inner: list) -> list[str]:
    """``inner`` inside the loop ``headers`` (each header opens a block inside the one before)."""
    lines = []
    for depth, header in enumerate(headers):
        lines.append(_INDENT * depth + header)
    return lines + [_INDENT * len(headers) + line for line in inner]


def _typed_literals(spec, dtype: str | None):
    """``body``'s line rewriter naming each dtype-generic literal (dtype None in ``spec.literals``) ``<name>_<dtype>``
    (the module constant :func:`constant_lines` makes for that dtype)."""
    generic = [name for name, lit_dtype, _ in spec.literals if lit_dtype is None]
    if not generic:
        return lambda line: line
    if dtype is None:
        raise ValueError(f"LoopSpec {spec.name!r} has literals of the kernel's dtype ({', '.join(generic)}): "
                         "element_lines needs the dtype of the kernel; received dtype=None")
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, generic)) + r")\b")
    return lambda line: pattern.sub(rf"\1_{dtype}", line)


def element_lines(spec, read, write, *, dtype: str | None = None, after_read: dict | None = None,
                  sum_target=None, first: str = "_i == 0") -> list[str]:
    """The statements computing one element of ``spec`` (a :class:`~descend._native.backend.LoopSpec`):

    * ``v_<input> = read(k, input, layout)`` for input ``k``, each followed by ``after_read[input]``'s lines
      where given (an optimizer's decoupled weight decay acts on the parameter as it is read);
    * the body, each dtype-generic literal named for ``dtype`` (see :func:`constant_lines`);
    * ``write(k, output) = <value>`` for output ``k``;
    * column sums: ``sum_target(k) = <value>`` where ``first`` holds (the first row starts the sum), else
      ``sum_target(k) += <value>``: the rows added in order.
    """
    lines = []
    after_read = after_read or {}
    for k, (name, layout) in enumerate(spec.inputs):
        lines.append(f"v_{name} = {read(k, name, layout)}")
        lines += list(after_read.get(name, ()))
    typed = _typed_literals(spec, dtype)
    lines += [typed(line) for line in spec.body]
    lines += [f"{write(k, name)} = {value}" for k, (name, value) in enumerate(spec.outputs)]
    if spec.sums:
        if sum_target is None:
            raise ValueError(f"LoopSpec {spec.name!r} has column sums ({', '.join(n for n, _ in spec.sums)}): "
                             "element_lines needs their sum_target; received None")
        lines += [f"if {first}:"]
        lines += [f"{_INDENT}{sum_target(k)} = {value}" for k, (_, value) in enumerate(spec.sums)]
        lines += ["else:"]
        lines += [f"{_INDENT}{sum_target(k)} += {value}" for k, (_, value) in enumerate(spec.sums)]
    return lines


def constant_lines(spec, dtypes=()) -> list[str]:
    """The module constants of ``spec``'s literals: ``<name> = np.<dtype>(<value>)`` for a literal of a fixed dtype,
    and ``<name>_<dtype> = _T_<dtype>(<value>)`` for each of ``dtypes`` (their names) for a literal of the kernel's
    dtype (dtype None; the module defines ``_T_<dtype>``)."""
    lines = []
    for name, dtype, value in spec.literals:
        if dtype is None:
            lines += [f"{name}_{d} = _T_{d}({value!r})" for d in dtypes]
        else:
            lines.append(f"{name} = np.{dtype}({value!r})")
    return lines


def module_source(doc: list, imports: list, constants: list, functions: list) -> str:
    """A kernel module: the docstring ``doc`` (lines), ``imports``, ``constants`` and ``functions`` (each a list of
    lines, ``def`` first), as plain Python that numba compiles."""
    lines = ['"""' + doc[0], *doc[1:], '"""', "", *imports, "", *constants]
    for function in functions:
        lines += ["", "", *function]
    return "\n".join(lines) + "\n"
