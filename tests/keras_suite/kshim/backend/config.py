"""Keras' backend config. descend has no flash attention: the flag is kept, as Keras keeps it, but attention is
always computed the plain way."""

from descend.keras.backend import epsilon, floatx, image_data_format, set_epsilon, set_floatx  # noqa: F401

_flash = {"enabled": None}


def is_flash_attention_enabled():
    return _flash["enabled"]


def enable_flash_attention():
    _flash["enabled"] = None  # Keras: "let the backend decide"; descend decides on the plain computation


def disable_flash_attention():
    _flash["enabled"] = False


def backend():
    return "descend"
