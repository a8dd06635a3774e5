"""Keras 3.15's ``keras.src.ops.linalg`` Operation classes as data (issue 37): one row per class,
``(class name, function name, __init__ parameter names, call parameter names)``, read from Keras' class
signatures (tools/keras_operation_signatures.py drafted it) and reviewed. ``*name`` is a variadic call argument.
descend.keras.operations makes each class from its function in descend.keras.ops."""

ROWS = (
    ('Cholesky', 'cholesky', ('upper',), ('x',)),
    ('CholeskyInverse', 'cholesky_inverse', ('upper',), ('x',)),
    ('Det', 'det', (), ('x',)),
    ('Eig', 'eig', (), ('x',)),
    ('Eigh', 'eigh', (), ('x',)),
    ('Inv', 'inv', (), ('x',)),
    ('JVP', 'jvp', ('has_aux',), ('fun', 'primals', 'tangents')),
    ('Lstsq', 'lstsq', ('rcond',), ('a', 'b')),
    ('LuFactor', 'lu_factor', (), ('x',)),
    ('MatrixRank', 'matrix_rank', ('tol',), ('x',)),
    ('Norm', 'norm', ('ord', 'axis', 'keepdims'), ('x',)),
    ('Pinv', 'pinv', ('rcond',), ('x',)),
    ('Qr', 'qr', ('mode',), ('x',)),
    ('SVD', 'svd', ('full_matrices', 'compute_uv'), ('x',)),
    ('Solve', 'solve', (), ('a', 'b')),
    ('SolveTriangular', 'solve_triangular', ('lower',), ('a', 'b')),
)
