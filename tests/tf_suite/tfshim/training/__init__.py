"""TensorFlow's ``tensorflow.python.training`` modules over descend (see tfshim/__init__.py)."""
