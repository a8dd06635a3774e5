"""Keras 3.15's ``keras.src.ops.math`` Operation classes as data (issue 37): one row per class,
``(class name, function name, __init__ parameter names, call parameter names)``, read from Keras' class
signatures (tools/keras_operation_signatures.py drafted it) and reviewed. ``*name`` is a variadic call argument;
``"x:x1"`` is Keras' ``x``, descend's function's ``x1``.
descend.keras.operations makes each class from its function in descend.keras.ops."""

ROWS = (
    ('CDist', 'cdist', (), ('x:x1', 'y:x2')),
    ('Erf', 'erf', (), ('x',)),
    ('Erfc', 'erfc', (), ('x',)),
    ('Erfinv', 'erfinv', (), ('x',)),
    ('ExtractSequences', 'extract_sequences', ('sequence_length', 'sequence_stride'), ('x',)),
    ('FFT', 'fft', (), ('x',)),
    ('FFT2', 'fft2', (), ('x',)),
    ('IFFT2', 'ifft2', (), ('x',)),
    ('IRFFT', 'irfft', ('fft_length',), ('x',)),
    ('ISTFT', 'istft', ('sequence_length', 'sequence_stride', 'fft_length', 'length', 'window', 'center'), ('x',)),
    ('InTopK', 'in_top_k', ('k',), ('targets', 'predictions')),
    ('Logdet', 'logdet', (), ('x',)),
    ('Logsumexp', 'logsumexp', ('axis', 'keepdims'), ('x',)),
    ('RFFT', 'rfft', ('fft_length',), ('x',)),
    ('Rsqrt', 'rsqrt', (), ('x',)),
    ('STFT', 'stft', ('sequence_length', 'sequence_stride', 'fft_length', 'window', 'center'), ('x',)),
    ('SegmentMax', 'segment_max', ('num_segments', 'sorted'), ('data', 'segment_ids')),
    ('SegmentMin', 'segment_min', ('num_segments', 'sorted'), ('data', 'segment_ids')),
    ('SegmentProd', 'segment_prod', ('num_segments', 'sorted'), ('data', 'segment_ids')),
    ('SegmentSum', 'segment_sum', ('num_segments', 'sorted'), ('data', 'segment_ids')),
    ('TopK', 'top_k', ('k', 'sorted'), ('x',)),
    ('ViewAsComplex', 'view_as_complex', (), ('x',)),
    ('ViewAsReal', 'view_as_real', (), ('x',)),
)
