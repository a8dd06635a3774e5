"""TensorFlow's ``tensorflow.python.eager`` modules over descend (see tfshim/__init__.py)."""
