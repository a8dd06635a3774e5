"""TensorFlow's ``tensorflow.python.platform`` modules over descend (see tfshim/__init__.py)."""
