"""TensorFlow's ``tensorflow.python.framework`` modules over descend (see tfshim/__init__.py)."""
