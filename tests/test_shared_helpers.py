"""Logic that stood twice and is now written once: each case goes through the shared helper from every caller."""

import struct

import numpy as np
import pytest

import descend as ds
from descend.errors import InvalidArgumentError


def _gif(screen_flags: int, frame_flags: int, cut: int | None = None) -> bytes:
    """A 1 x 1 GIF whose screen and frame carry a 2-colour table when their flag bit 0x80 is set."""
    out = b"GIF89a" + struct.pack("<HHBBB", 1, 1, screen_flags, 0, 0)
    if screen_flags & 0x80:
        out += bytes([0, 0, 0, 255, 255, 255])
    out += b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, frame_flags)
    if frame_flags & 0x80:
        out += bytes([10, 20, 30, 40, 50, 60])
    out += bytes([2, 2, 0x44, 0x01, 0]) + b"\x3b"  # LZW min size 2: clear, index 0, end
    return out if cut is None else out[:cut]


@pytest.mark.parametrize("data, message", [
    (_gif(0x80, 0x00, cut=15), "the global colour table is cut off"),
    (_gif(0x00, 0x80, cut=13 + 10 + 3), "a local colour table is cut off"),
    (_gif(0x00, 0x00), "a frame without a colour table"),
])
def test_gif_colour_tables_are_read_by_one_helper(data, message):
    with pytest.raises(InvalidArgumentError, match=message):
        ds.io.decode_gif(data)


@pytest.mark.parametrize("screen, frame, pixel", [(0x80, 0x00, [0, 0, 0]), (0x00, 0x80, [10, 20, 30]),
                                                  (0x80, 0x80, [10, 20, 30])])
def test_gif_frame_uses_its_own_table_else_the_global_one(screen, frame, pixel):
    out = ds.io.decode_gif(_gif(screen, frame)).numpy()
    assert out.shape == (1, 1, 1, 3) and out[0, 0, 0].tolist() == pixel


IMG = np.arange(12.0).reshape(3, 4, 1)


@pytest.mark.parametrize("fn", [ds.image.crop_to_bounding_box, ds.image.pad_to_bounding_box])
@pytest.mark.parametrize("args, message", [
    ((-1, 0, 3, 4), "offset_height must be >= 0; received -1"),
    ((0, -2, 3, 4), "offset_width must be >= 0; received -2"),
])
def test_bounding_box_offsets_checked_once_for_crop_and_pad(fn, args, message):
    with pytest.raises(ValueError, match=f"{fn.__name__}: {message}"):
        fn(IMG, *args)


@pytest.mark.parametrize("module, what", [(ds.losses, "loss"), (ds.metrics, "metric")])
@pytest.mark.parametrize("config, message", [
    ({"class_name": "Nope", "config": {}}, "Unknown {what} class 'Nope'. Known classes: "),
    ({"class_name": "function", "config": "nope"}, "Unknown {what} function 'nope'. Known functions: "),
    ({"class_name": "MeanSquaredError", "config": [1]}, "The config of {what} 'MeanSquaredError' must be a dict"),
    ([1, 2], "A {what} config must be a dict with 'class_name' and 'config'"),
])
def test_losses_and_metrics_deserialize_through_one_function(module, what, config, message):
    with pytest.raises(ValueError, match=message.format(what=what).replace(".", r"\.")):
        module.deserialize(config)


@pytest.mark.parametrize("module", [ds.losses, ds.metrics])
def test_losses_and_metrics_deserialize_round_trip(module):
    obj = module.MeanSquaredError(name="m")
    back = module.deserialize(module.serialize(obj))
    assert type(back) is type(obj) and back.get_config() == obj.get_config()


@pytest.mark.parametrize("data, expected", [(5, (5, None, None)), ((5,), (5, None, None)), ((5, 6), (5, 6, None)),
                                            ((5, 6, 7), (5, 6, 7)), ([5, 6], (5, 6, None))])
def test_keras_unpack_is_fits_unpack(data, expected):
    from descend.keras.utils import unpack_x_y_sample_weight
    from descend.training.step import unpack

    assert tuple(unpack_x_y_sample_weight(data)) == expected
    if not isinstance(data, list):  # fit's own elements: a list is one x
        assert tuple(unpack(data)) == expected


@pytest.mark.parametrize("fn", ["unpack_x_y_sample_weight", "unpack"])
def test_four_parts_refused_with_one_message(fn):
    import descend.keras.utils as ku
    import descend.training.step as st

    f = getattr(ku, fn, None) or getattr(st, fn)
    with pytest.raises(ValueError, match=r"`\(x, y, sample_weight\)`, found: a tuple of 4 items"):
        f((1, 2, 3, 4))


@pytest.mark.parametrize("op", ["unsorted_segment_sum", "unsorted_segment_prod", "unsorted_segment_max",
                                "unsorted_segment_min"])
def test_segment_ids_shape_rule_is_one_check(op):
    data = np.ones((3, 2), np.float32)
    with pytest.raises(InvalidArgumentError, match=rf"{op}: segment_ids shape \(2,\) must be a prefix of data shape "
                                                   r"\(3, 2\)"):
        getattr(ds.math, op)(data, [0, 1], num_segments=2)


@pytest.mark.parametrize("make", [
    lambda v: ds.optimizers.SGD(0.1),
    lambda v: ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(0.1)),
    lambda v: ds.optimizers.MultiOptimizer([(ds.optimizers.SGD(0.1), [v])]),
    lambda v: ds.compat.v1.train.GradientDescentOptimizer(0.1),
], ids=["keras", "loss_scale", "multi", "tf1"])
def test_every_apply_gradients_refuses_a_non_pair_alike_and_changes_nothing(make):
    """Every entrance reads its (gradient, variable) pairs through optimizers/update_plan.pairs_of."""
    v = ds.Variable([1.0, 2.0])
    opt = make(v)
    with pytest.raises(TypeError, match=r"apply_gradients expects \(gradient, variable\) pairs. Received: 3"):
        opt.apply_gradients([(np.ones(2, np.float32), v), 3])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
