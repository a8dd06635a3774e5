"""TensorFlow's ``tensorflow.python.client`` modules over descend (see tfshim/__init__.py)."""
