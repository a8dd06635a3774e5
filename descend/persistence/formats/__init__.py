"""The files of TensorFlow and Keras, read and written without either: the byte-level formats.

* :mod:`~descend.persistence.formats.wire`: protocol buffers' wire format (the few messages descend needs);
* :mod:`~descend.persistence.formats.crc32c`: CRC-32C and LevelDB's masking;
* :mod:`~descend.persistence.formats.sstable`: LevelDB's sorted string table (a checkpoint's ``.index``);
* :mod:`~descend.persistence.formats.tf_bundle`: TensorFlow's tensor bundle (``.index`` + ``.data-*``) and the
  object graph of a TF 2 checkpoint;
* :mod:`~descend.persistence.formats.keras_h5`: Keras 3's ``.weights.h5`` (HDF5, through h5py);
* :mod:`~descend.persistence.formats.keras_zip`: the ``.keras`` zip archive.

Which objects a file's values belong to (TF 2's object graph, TF 1's variable names, Keras' paths) is
decided above these modules: :mod:`descend.persistence.checkpoint.tf_checkpoint` and :mod:`descend.persistence.keras_files`.
See ``docs/formats.md``.
"""
