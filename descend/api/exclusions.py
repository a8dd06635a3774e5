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

_OP_REGISTRY = "registers by op-type name in TF's graph op registry (descend's ops are Python functions, not graph op types)"
_CODEC = "needs an image codec descend does not have (JPEG, WebP or JPEG XL; PNG, GIF and BMP are read)"
_PILLOW = "Pillow (or imageio) to read the file into a NumPy array, then descend.image"
_FFT = "numpy.fft on the tensor's .numpy() (no gradient)"
_PYDOT = "draws with pydot and Graphviz, which descend does not depend on"

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


# issue 37, the second wave: names of tf, tf.image, keras and keras.utils that need TF's runtime, complex
# tensors, a codec or a drawing library
EXCLUDED["tf"].update({
    "Operation": (_GRAPH + " (a node of a tf.Graph)", _FUNCTION),
    "gradients": (_GRAPH + " (symbolic gradients, only inside a graph; TF 2 refuses it when executing eagerly)",
                  "descend.GradientTape (tape.gradient)"),
    "hessians": (_GRAPH + " (symbolic second derivatives, only inside a graph)",
                 "nested descend.GradientTape blocks (the gradient of a gradient)"),
    "RegisterGradient": (_OP_REGISTRY, "descend.custom_gradient, or a descend op with its VJP (docs/writing_an_op.md)"),
    "no_gradient": (_OP_REGISTRY, "descend.stop_gradient on the op's output"),
    "CriticalSection": (_GRAPH + " (serialises resource access inside TF's executor)",
                        "a Python threading.Lock around the code: descend's ops run eagerly"),
    "variable_creator_scope": (_GRAPH + " (intercepts variable creation for tf.distribute's internals)",
                               _DISTRIBUTE),
    "queue": (_GRAPH + " (TF 1's input queues, run by queue runners in a session)", "descend.data.Dataset"),
    "profiler": (_NATIVE + " (profiles TF's kernels and devices for TensorBoard's profiler)",
                 "Python's cProfile around the step"),
    "tools": ("TF's source tools (tf_upgrade_v2, API documentation generation)", "nothing: descend's API is TF 2's"),
    "security": ("fuzzing annotations for TF's C++ kernels", "nothing: descend has no C++ kernels"),
    "ragged_fill_empty_rows": (_NATIVE + " (a raw kernel exported at the top level)",
                               "descend.sparse.fill_empty_rows"),
    "ragged_fill_empty_rows_grad": (_NATIVE + " (a raw kernel's gradient exported at the top level)",
                                    "descend.sparse.fill_empty_rows"),
    "feature_column": ("TF 1's Estimator feature columns (deprecated; Keras 3 has none)",
                       "descend.layers' preprocessing layers (StringLookup, Hashing, CategoryEncoding, "
                       "Discretization, Normalization)"),
    "bfloat16": ("NumPy, descend's array library, has no bfloat16 dtype", "float16, or the 'mixed_float16' policy"),
    "complex": (_COMPLEX, "two real tensors (real and imaginary parts)"),
    "complex64": (_COMPLEX, "two real float32 tensors (real and imaginary parts)"),
    "complex128": (_COMPLEX, "two real float64 tensors (real and imaginary parts)"),
    "eig": (_COMPLEX, "descend.linalg.eigh for symmetric matrices (real eigenvalues and vectors)"),
    "eigvals": (_COMPLEX, "descend.linalg.eigvalsh for symmetric matrices"),
    "fftnd": (_COMPLEX, _FFT),
    "ifftnd": (_COMPLEX, _FFT),
    "rfftnd": (_COMPLEX, _FFT),
    "irfftnd": (_COMPLEX, _FFT),
})
EXCLUDED["tf.image"] = {
    "decode_jpeg": (_CODEC, _PILLOW),
    "encode_jpeg": (_CODEC, "Pillow's Image.save(..., format='JPEG') on the array"),
    "decode_and_crop_jpeg": (_CODEC, _PILLOW + " (then descend.image.crop_to_bounding_box)"),
    "adjust_jpeg_quality": (_CODEC + " (it re-encodes the image as JPEG)", "Pillow's JPEG encoder and decoder"),
    "random_jpeg_quality": (_CODEC + " (it re-encodes the image as JPEG)", "Pillow's JPEG encoder and decoder"),
    "stateless_random_jpeg_quality": (_CODEC + " (it re-encodes the image as JPEG)",
                                      "Pillow's JPEG encoder and decoder"),
    "decode_webp": (_CODEC, _PILLOW),
    "decode_jxl": (_CODEC, _PILLOW + " (with a JPEG XL plugin)"),
}
EXCLUDED["keras"].update({
    "src": ("Keras' private implementation package", "the public descend.keras namespaces"),
    "Function": ("Keras' symbolic-op machinery of its multi-backend graph (a graph of Operations as a callable)",
                 "descend.Model (the functional API)"),
    "SymbolicScope": ("Keras' symbolic tracing internals of its multi-backend graph", "descend.function"),
    "StatelessScope": ("Keras' stateless execution for JAX-style functional back ends",
                       "ordinary eager code: descend's variables are assigned in place"),
    "export": (_NATIVE + " (ExportArchive writes TF SavedModels, ONNX and OpenVINO graphs)",
               "descend.saving (.keras and .weights.h5 files)"),
})
EXCLUDED["keras.utils"] = {
    "plot_model": (_PYDOT, "model.summary(), or the model's get_config()"),
    "model_to_dot": (_PYDOT, "model.summary(), or the model's get_config()"),
}
