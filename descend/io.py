"""``tf.io``: parsing ``tf.train.Example`` records into tensors, TFRecord files, whole-file reads and writes,

The public namespace; the implementation is :mod:`descend.persistence.tf_io`."""

from .persistence.tf_io import (  # noqa: F401
    FixedLenFeature,
    TFRecordOptions,
    TFRecordWriter,
    VarLenFeature,
    decode_base64,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_png,
    decode_raw,
    encode_base64,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
    matching_files,
    parse_example,
    parse_single_example,
    read_file,
    write_file,
)

__all__ = ['FixedLenFeature', 'TFRecordOptions', 'TFRecordWriter', 'VarLenFeature', 'decode_base64', 'decode_bmp', 'decode_gif', 'decode_image', 'decode_png', 'decode_raw', 'encode_base64', 'encode_png', 'extract_jpeg_shape', 'is_jpeg', 'matching_files', 'parse_example', 'parse_single_example', 'read_file', 'write_file']
