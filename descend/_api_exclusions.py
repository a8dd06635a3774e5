"""The names of TensorFlow's and Keras' namespaces that descend leaves out on purpose.

They only make sense inside TensorFlow's (or JAX's, or torch's) runtime: TPUs, DTensor, device
placement, graph and session internals beyond ``compat.v1``, quantization back ends, another
framework's modules. Each entry is ``name: (reason, alternative)``; the alternative is what a program
ported to descend uses instead. ``tests/test_api_coverage.py`` leaves these names out of the coverage
count (they must stay under 10% of all names) and checks that a namespace facade refuses each one with
:func:`refuse`'s message; ``docs/api.md`` lists them (its section is rendered by :func:`render_markdown`,
and ``tests/test_api_coverage.py`` checks the page matches).

Example:
    >>> import descend as ds
    >>> try:
    ...     ds.tpu
    ... except AttributeError as e:
    ...     print(str(e).split(":")[0])
    tf.tpu is not part of descend
"""

from __future__ import annotations

_TPU = "TPUs are TensorFlow's accelerator runtime; descend runs NumPy/numba on CPUs"
_DTENSOR = "DTensor is TensorFlow's device-mesh runtime for sharded tensors"
_DEVICE = "device placement and device meshes belong to TensorFlow's (or JAX's) runtime; descend runs on the host"
_GRAPH = "a graph/session internal of TensorFlow's runtime beyond compat.v1"
_QUANT = "a quantization back end (quantized dtypes and kernels of TensorFlow's or Keras' runtime)"
_FOREIGN = "wraps a module of another framework's runtime"
_NATIVE = "loads or converts TensorFlow's native kernels, libraries or compilers"
_CLUSTER = "describes a TensorFlow server cluster (gRPC runtime)"

_DISTRIBUTE = "descend.distribute (MPI data parallelism with tf.distribute's semantics)"
_FUNCTION = "descend.function (traced, compiled steps) and descend.compat.v1"
_NUMPY_DTYPES = "float16/float32/float64 and the integer dtypes"
_COMPLEX = "its results are complex tensors (complex64/complex128), and descend's tensors are real"

#: namespace -> {name: (reason, alternative)}
EXCLUDED: dict[str, dict[str, tuple[str, str]]] = {
    "tf": {
        "tpu": (_TPU, _DISTRIBUTE),
        "dtensor": (_DTENSOR, _DISTRIBUTE),
        "DeviceSpec": (_DEVICE, "descend.device (accepted and ignored: everything runs on the host)"),
        "check_pinned": (_DEVICE, "nothing: tensors live in host memory"),
        "xla": (_NATIVE, _FUNCTION),
        "mlir": (_NATIVE, _FUNCTION),
        "lite": (_NATIVE + " (TensorFlow Lite)", "descend.saving (Keras files) for the model's weights"),
        "load_library": (_NATIVE, "a descend op written in Python (docs/writing_an_op.md)"),
        "load_op_library": (_NATIVE, "a descend op written in Python (docs/writing_an_op.md)"),
        "raw_ops": (_NATIVE + " (the C++ kernel registry)", "the public descend ops (descend.math, descend.nn)"),
        "sysconfig": (_NATIVE + " (build flags of the C++ library)", "nothing: descend has no native build"),
        "Graph": (_GRAPH, _FUNCTION),
        "import_graph_def": (_GRAPH, _FUNCTION),
        "graph_util": (_GRAPH, _FUNCTION),
        "guarantee_const": (_GRAPH + " (a graph optimizer hint)", "nothing: the value is used as is"),
        "resource": (_GRAPH + " (the resource-handle dtype)", "descend.Variable"),
        "variant": (_GRAPH + " (the variant dtype)", "nothing: descend's tensors are NumPy arrays"),
        "nondifferentiable_batch_function": (_GRAPH + " (server-side batching)", "descend.data.Dataset.batch"),
        "qint8": (_QUANT, _NUMPY_DTYPES),
        "qint16": (_QUANT, _NUMPY_DTYPES),
        "qint32": (_QUANT, _NUMPY_DTYPES),
        "quint8": (_QUANT, _NUMPY_DTYPES),
        "quint16": (_QUANT, _NUMPY_DTYPES),
        "quantization": (_QUANT, "descend.mixed_precision for reduced-precision training"),
    },
    "tf.nn": {
        "RNNCellDeviceWrapper": (_DEVICE, "the cell itself (descend.layers.*Cell)"),
    },
    "tf.train": {
        "ClusterDef": (_CLUSTER, _DISTRIBUTE),
        "ClusterSpec": (_CLUSTER, _DISTRIBUTE),
        "JobDef": (_CLUSTER, _DISTRIBUTE),
        "ServerDef": (_CLUSTER, _DISTRIBUTE),
    },
    "keras": {
        "distribution": (_DEVICE + " (Keras' JAX device-mesh API)", _DISTRIBUTE),
        "quantizers": (_QUANT, "descend.mixed_precision for reduced-precision training"),
        "Quantizer": (_QUANT, "descend.mixed_precision for reduced-precision training"),
    },
    "keras.layers": {
        "FlaxLayer": (_FOREIGN + " (Flax)", "descend.layers.Lambda or a descend.layers.Layer subclass"),
        "JaxLayer": (_FOREIGN + " (JAX)", "descend.layers.Lambda or a descend.layers.Layer subclass"),
        "TorchModuleWrapper": (_FOREIGN + " (PyTorch)", "descend.layers.Lambda or a descend.layers.Layer subclass"),
        "TFSMLayer": (_FOREIGN + " (a TensorFlow SavedModel's graph)",
                      "descend.saving.load_model on a .keras file"),
    },
    "keras.callbacks": {
        "OrbaxCheckpoint": (_FOREIGN + " (Orbax, JAX's checkpoint library)",
                            "descend.callbacks.ModelCheckpoint or BackupAndRestore"),
    },
    "keras.ops": {
        "eig": (_COMPLEX, "descend.keras.ops.eigh for symmetric matrices (real eigenvalues and vectors)"),
        "polar": (_COMPLEX, "the (real, imag) pair (abs * cos(angle), abs * sin(angle)) that keras.ops.fft, ifft2, "
                            "irfft and istft take"),
        "view_as_complex": (_COMPLEX, "the (real, imag) pair (x[..., 0], x[..., 1]) that keras.ops.fft and its "
                                      "family take and return"),
        "view_as_real": (_COMPLEX, "keras.ops.stack([real, imag], axis=-1) of a (real, imag) pair"),
    },
    "tf.linalg": {
        "eig": (_COMPLEX, "descend.linalg.eigh for symmetric matrices (real eigenvalues and vectors)"),
        "eigvals": (_COMPLEX, "descend.linalg.eigvalsh for symmetric matrices"),
        "logm": (_COMPLEX + " (TF's logm takes complex64/complex128 input only)",
                 "descend.linalg.eigh: V diag(log e) V^T for a symmetric positive-definite matrix"),
    },
}


def excluded_count() -> int:
    """How many names are excluded, over all namespaces."""
    return sum(len(v) for v in EXCLUDED.values())


def refuse(namespace: str, name: str, module: str) -> AttributeError:
    """The error a descend namespace raises for ``name``: excluded names say why and what to use instead,
    any other missing name is the ordinary ``AttributeError``."""
    entry = EXCLUDED.get(namespace, {}).get(name)
    if entry is None:
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    reason, alternative = entry
    return AttributeError(f"{namespace}.{name} is not part of descend: {reason}. Use instead: {alternative}.")


def render_markdown() -> str:
    """The exclusion list as the Markdown table ``docs/api.md`` shows."""
    lines = ["| name | why it is left out | use instead |", "| --- | --- | --- |"]
    for namespace in sorted(EXCLUDED):
        for name in sorted(EXCLUDED[namespace]):
            reason, alternative = EXCLUDED[namespace][name]
            lines.append(f"| `{namespace}.{name}` | {reason} | {alternative} |")
    return "\n".join(lines) + "\n"
