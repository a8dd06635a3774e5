from descend.keras.backend import result_type  # noqa: F401

ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                  "int64", "bool")
FLOAT_TYPES = ("float16", "float32", "float64")
INT_TYPES = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
BOOL_TYPES = ("bool",)
# descend has none of Keras' bfloat16, float8 and complex dtypes (NumPy has none), so the tests Keras generates
# for them are not generated here
FLOAT8_TYPES = ()
COMPLEX_TYPES = ()
