"""``tf.summary``: TensorBoard event files written as TF 2 writes them (TFRecord-framed ``Event`` protocol

The public namespace; the implementation is :mod:`descend.persistence.summary_events`."""

from .persistence.summary_events import (  # noqa: F401
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    experimental,
    flush,
    histogram,
    image,
    record_if,
    scalar,
    should_record_summaries,
    text,
    write,
)

__all__ = ['SummaryWriter', 'create_file_writer', 'create_noop_writer', 'experimental', 'flush', 'histogram', 'image', 'record_if', 'scalar', 'should_record_summaries', 'text', 'write']
