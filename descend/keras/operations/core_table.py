"""Keras 3.15's ``keras.src.ops.core`` Operation classes as data (issue 37): one row per class,
``(class name, function name, __init__ parameter names, call parameter names)``, read from Keras' class
signatures (tools/keras_operation_signatures.py drafted it) and reviewed. ``*name`` is a variadic call argument.
descend.keras.operations makes each class from its function in descend.keras.ops."""

ROWS = (
    ('AssociativeScan', 'associative_scan', ('reverse', 'axis'), ('f', 'elems')),
    ('Cast', 'cast', ('dtype',), ('x',)),
    ('Cond', 'cond', (), ('pred', 'true_fn', 'false_fn')),
    ('ConvertToTensor', 'convert_to_tensor', ('dtype', 'sparse'), ('x',)),  # Keras' ragged: descend has none
    ('ForiLoop', 'fori_loop', ('lower', 'upper', 'body_fun'), ('init_val',)),
    ('Map', 'map', (), ('f', 'xs')),
    ('SaturateCast', 'saturate_cast', ('dtype',), ('x',)),
    ('Scan', 'scan', ('length', 'reverse', 'unroll'), ('f', 'init', 'xs')),
    ('Scatter', 'scatter', ('shape',), ('indices', 'values')),
    ('ScatterUpdate', 'scatter_update', ('reduction',), ('inputs', 'indices', 'updates')),
    ('Slice', 'slice', ('shape',), ('inputs', 'start_indices')),
    ('SliceUpdate', 'slice_update', (), ('inputs', 'start_indices', 'updates')),
    ('StopGradient', 'stop_gradient', (), ('variable',)),
    ('Switch', 'switch', (), ('index', 'branches', '*operands')),
    ('Unstack', 'unstack', ('num', 'axis'), ('x',)),
    ('VectorizedMap', 'vectorized_map', ('function',), ('elements',)),
    ('WhileLoop', 'while_loop', ('cond', 'body', 'maximum_iterations'), ('loop_vars',)),
)
