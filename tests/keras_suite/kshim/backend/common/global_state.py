from descend.keras.backend import clear_session  # noqa: F401
