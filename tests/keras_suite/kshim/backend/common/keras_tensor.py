from descend.layers.keras_tensor import KerasTensor, any_symbolic  # noqa: F401


def is_keras_tensor(x) -> bool:
    return isinstance(x, KerasTensor)


def any_symbolic_tensors(args=None, kwargs=None) -> bool:
    return any_symbolic(args or ()) or any_symbolic(kwargs or {})
