"""TensorFlow's ``tensorflow.python.ops`` modules over descend (see tfshim/__init__.py)."""
