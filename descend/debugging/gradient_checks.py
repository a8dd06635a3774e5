"""Why a gradient is None, numeric checks and the other tf.debugging helpers (public as ``descend.debugging``)."""

from __future__ import annotations

from ..framework import nest
from ..framework import tape as _tape_module
from ..framework.tape import GradientTape
from ..framework.tensor import ArrayLike
from ..framework.variable import Variable

__all__ = ["explain_gradient", "explain_missing_gradients", "missing_gradients_report"]

_FLOAT_KINDS = "fc"


def _describe(x) -> str:
    if isinstance(x, Variable):
        return f"variable '{x.scoped_name}'"
    return f"the {x.dtype.name} tensor of shape {tuple(x.shape)}"


def explain_gradient(tape: GradientTape, target, source) -> str:
    """Say why ``tape.gradient(target, source)`` is ``None`` (or that it is not).

    Args:
        tape: the :class:`~descend.GradientTape` that recorded the computation.
        target: the target passed to ``gradient`` (a Tensor or a structure of them).
        source: one source: a Variable or a Tensor.

    Returns:
        One paragraph naming the cause, the variables and the ops involved.
        When the tape does connect ``source`` to ``target``, it says so.

    Raises:
        TypeError: ``tape`` is not a GradientTape, or ``source`` is not a Tensor or Variable.

    Example:
        >>> import descend as ds
        >>> x = ds.constant(2.0)
        >>> with ds.GradientTape() as tape:
        ...     y = x * x
        >>> print(ds.debugging.explain_gradient(tape, y, x))  # doctest: +ELLIPSIS
        The gradient ... is None: the float32 tensor of shape () is not watched: ... tape.watch(x) ...
    """
    if not isinstance(tape, GradientTape):
        raise TypeError(f"explain_gradient expects a GradientTape as `tape`. Received: {type(tape).__name__}")
    if not isinstance(source, ArrayLike):
        raise TypeError(f"explain_gradient expects a Tensor or Variable as `source`. Received: {type(source).__name__}")
    targets = [t for t in nest.flatten(target) if isinstance(t, ArrayLike)]
    name = _describe(source)
    head = f"The gradient of the target with respect to {name} is None: "
    return _explain(tape, targets, source, name, head)


def _explain(tape, targets, source, name, head) -> str:
    # 1. integer sources have no gradient at all
    if source.dtype.kind not in _FLOAT_KINDS:
        return (head + f"{name} has the integer dtype {source.dtype.name}; only floating-point values have "
                "gradients (tape.gradient refuses an integer source). Cast it to a float dtype before the "
                "computation if it should be trained.")
    if any(t is source for t in targets):
        return (f"{name} is itself the target: its gradient is the upstream gradient (ones), whether or not "
                "the tape watches it. Nothing is missing.")
    # 2. a spent non-persistent tape
    if tape._used:
        missing = tape._missing
        asked = missing is not None and tape._released is not None and any(s is source for s in missing[1])
        if not asked:
            return (head + "the gradient was asked of a non-persistent GradientTape a second time. A "
                    "non-persistent tape releases its record after its first gradient()/jacobian() call, "
                    "so a second call raises RuntimeError. Compute every gradient in one call "
                    "(tape.gradient(loss, [a, b])) or use GradientTape(persistent=True).")
        targets = targets or missing[0]
    entries, watched, keep, cuts, seen = tape._record_for_explain()
    seen = set(seen)
    producers = _producers(entries, cuts)
    # 3. a target the tape never saw being computed
    if targets and all(id(t) not in watched and id(t) not in cuts and id(t) not in seen for t in targets):
        return (head + "the target was computed outside the tape's block (or under tape.stop_recording()). "
                "A tape records only the ops run inside `with tape:`; compute the loss inside the block.")
    # 4. an unwatched source
    if id(source) not in watched:
        return head + _unwatched(tape, source, name, cuts)
    # 5. a watched source: which values depend on it, and does the target?
    dep = _dependents(entries, source)
    ancestors = _ancestors(producers, targets)
    if any(id(t) in dep for t in targets):
        on_path = dep & ancestors
        ops = sorted({e[0].name for e in entries
                      if any(id(o) in on_path for o in (e[2] if type(e[2]) is tuple else (e[2],)))})
        return (f"The tape connects {name} to the target (through ops {', '.join(repr(o) for o in ops)}), so "
                "tape.gradient gives it a gradient. If it still came back None, a VJP on that path returned "
                "None for it (for example the gradient of an integer input).")
    cut = _cut_on_path(ancestors, cuts, dep | {id(source)})
    if cut is not None:
        op_name, reason, value = cut
        if reason == "stop_gradient":
            return (head + f"the path from {name} to the target is cut by stop_gradient (op '{op_name}'). "
                    "Remove the stop_gradient if the gradient should flow.")
        if reason == "integer":
            return (head + f"the path from {name} to the target goes through op '{op_name}', whose output has "
                    f"the integer dtype {value.dtype.name}; integer values carry no gradient. Keep the "
                    "computation in a floating-point dtype.")
        return (head + f"the path from {name} to the target goes through op '{op_name}', which has no "
                "gradient (its output does not change smoothly with its input). Use a differentiable "
                "op instead, or give it one with descend.custom_gradient.")
    depends = [o for o in keep if id(o) in ancestors and o is not source]
    if depends:
        listed = ", ".join(_describe(o) for o in depends)
        what = f"the target depends on {listed}, not on it"
    else:
        what = "the target depends on no value the tape watches"
    return (head + f"{name} is not on any path to the target: {what}. Check that the loss uses it (a layer "
            "that was built but not called, a variable replaced by a copy, a branch not taken).")


def _unwatched(tape, source, name, cuts) -> str:
    read_by = [note[0] for note in cuts.values() if note[3] is source]
    if isinstance(source, Variable):
        if not source.trainable:
            return (f"{name} is not watched: it is not trainable, and a tape watches only trainable "
                    f"variables by itself. Call tape.watch({source.scoped_name.split('/')[-1]}) inside the block.")
        if not tape._watch_accessed:
            return (f"{name} is not watched: the tape was made with watch_accessed_variables=False and "
                    "tape.watch was not called for it.")
        if read_by:
            op = read_by[0]
            if op == "stop_gradient":
                return (f"{name} is not watched: inside the block it was read only by stop_gradient, which "
                        "cuts the path to the target.")
            return (f"{name} is not watched: inside the block it was read only by op '{op}', which has no "
                    "gradient.")
        return (f"{name} is not watched: it was not read inside the tape's block (values computed from it "
                "before the block do not count). Read it inside `with tape:`.")
    return (f"{name} is not watched: a tape follows constants only after tape.watch(x) (called inside the "
            "block, before x is used); only trainable Variables are watched by themselves.")


def _producers(entries, cuts) -> dict:
    """id(value) -> ids of the values it was computed from, for everything the tape noted."""
    out = {}
    for e in entries:
        parents = tuple(id(x) for x in e[1])
        res = e[2]
        for o in (res if type(res) is tuple else (res,)):
            out[id(o)] = parents
    for i, note in cuts.items():
        out[i] = note[2]
    return out


def _dependents(entries, source) -> set:
    dep = {id(source)}
    for e in entries:
        if any(id(x) in dep for x in e[1]):
            res = e[2]
            dep.update(id(o) for o in (res if type(res) is tuple else (res,)))
    return dep


def _ancestors(producers, targets) -> set:
    seen = set()
    todo = [id(t) for t in targets]
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        todo.extend(producers.get(i, ()))
    return seen


def _cut_on_path(ancestors, cuts, reach):
    """The cut noted on a path from ``reach`` (the source and its dependents) to the target, if any."""
    for i in ancestors:
        note = cuts.get(i)
        if note is None or note[1] is None:
            continue
        if any(p in reach for p in note[2]):
            return note[0], note[1], note[4]
    return None


def explain_missing_gradients(variables) -> list:
    """One explanation per variable, for an optimizer that received ``None`` gradients for them.

    The explanations come from the latest ``GradientTape.gradient`` call of
    this thread that left a source without a gradient, while its tape lives
    (the note holds the tape weakly; a non-persistent tape keeps its record
    for this after such a call).

    Args:
        variables: the variables whose gradient was ``None``.

    Returns:
        A list of strings, one per variable, each naming the variable.
    """
    call = _tape_module.last_missing_gradients()
    out = []
    for v in variables:
        if call is not None and any(s is v for s in call[2]):
            if call[0] is None:
                out.append(f"{_describe(v)}: the latest GradientTape.gradient call of this thread gave it no "
                           "gradient, and that tape no longer exists to say why; call "
                           "descend.debugging.explain_gradient(tape, loss, variable) while the tape is alive.")
            else:
                out.append(explain_gradient(call[0], call[1], v))
        else:
            out.append(f"{_describe(v)}: no GradientTape.gradient call of this thread left it without a "
                       "gradient; its gradient was None before it reached the optimizer (check the list "
                       "of gradients passed to apply_gradients).")
    return out


def missing_gradients_report(variables) -> str:
    """The text for the warning ``apply_gradients`` gives when some gradients are ``None``.

    One line per variable (``- <explanation>``), from :func:`explain_missing_gradients`.

    Example:
        >>> import descend as ds
        >>> a, b = ds.Variable(1.0, name="a"), ds.Variable(2.0, name="b")
        >>> with ds.GradientTape() as tape:
        ...     loss = a * 3.0
        >>> grads = tape.gradient(loss, [a, b])
        >>> print(ds.debugging.missing_gradients_report([b]))  # doctest: +ELLIPSIS
        - The gradient of the target with respect to variable 'b' is None: variable 'b' is not watched: ...
    """
    return "\n".join(f"- {line}" for line in explain_missing_gradients(variables))
