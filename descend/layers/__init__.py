"""``descend.layers``: Keras-style layers built on descend ops (as ``keras.layers``).

Example:
    >>> import descend as ds
    >>> import descend.layers as layers
    >>> ds.clear_session()
    >>> dense = layers.Dense(2)
    >>> dense(ds.ones((3, 4))).shape
    TensorShape([3, 2])
    >>> dense.kernel.path
    'dense/kernel'
"""

from ..api.lazy import lazy_facade
from ..persistence.registry import public_names, register_builtins
from .base import Layer, get_mask, register_weight_hook, set_mask, to_snake_case
from .op_layer import OpLambda  # (eager: it registers itself as the layer that operators on KerasTensors record)

# every layer loads its module on first use (descend.api.lazy): a program that builds a Dense model imports
# neither the image, text and audio preprocessing layers nor the attention and convolution ones
_LAZY = {
    "activation_layers": ("ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax"),
    "adaptive_pooling": ("AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
                         "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D"),
    "attention": ("MultiHeadAttention",),
    "aug_mix": ("AugMix",),
    "auto_contrast": ("AutoContrast",),
    "clahe": ("ContrastLimitedAdaptiveHistogramEqualization",),
    "color_augmentation": ("RandomColorDegeneration", "RandomHue", "RandomPosterization", "RandomSaturation",
                           "RandomSharpness", "Solarization"),
    "conv": ("Conv1D", "Conv2D"),
    "conv3d": ("Conv3D",),
    "conv_lstm": ("ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"),
    "convolutional_transpose": ("Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"),
    "core": ("Activation", "Dense", "Dropout", "Embedding", "Flatten"),
    "depthwise_conv": ("DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D"),
    "dot_attention": ("AdditiveAttention", "Attention"),
    "dot_merge": ("Dot", "dot"),
    "einsum_dense": ("EinsumDense",),
    "elementwise_layers": ("Identity", "UnitNormalization"),
    "global_pooling3d": ("GlobalAveragePooling3D", "GlobalMaxPooling3D"),
    "group_normalization": ("GroupNormalization", "RMSNormalization"),
    "grouped_query_attention": ("GroupedQueryAttention",),
    "hashed_crossing": ("HashedCrossing",),
    "hashing": ("Hashing",),
    "image_filters": ("Equalization", "RandomGaussianBlur"),
    "input_layer": ("Input", "InputLayer"),
    "input_spec": ("InputSpec",),
    "lambda_layer": ("Lambda",),
    "max_num_bounding_boxes": ("MaxNumBoundingBoxes",),
    "mel_spectrogram": ("MelSpectrogram",),
    "merging": ("Add", "Average", "Concatenate", "Maximum", "Minimum", "Multiply", "Subtract", "add", "average",
                "concatenate", "maximum", "minimum", "multiply", "subtract"),
    "mixing": ("CutMix", "MixUp"),
    "normalization": ("BatchNormalization", "LayerNormalization"),
    "pipeline": ("Pipeline",),
    "pooling": ("AveragePooling1D", "AveragePooling2D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
                "GlobalMaxPooling1D", "GlobalMaxPooling2D", "MaxPooling1D", "MaxPooling2D"),
    "pooling3d": ("AveragePooling3D", "MaxPooling3D"),
    "preprocessing": ("CategoryEncoding", "CenterCrop", "Discretization", "IntegerLookup", "Normalization",
                      "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip", "RandomRotation",
                      "RandomTranslation", "RandomZoom", "Rescaling", "Resizing"),
    "rand_augment": ("RandAugment",),
    "random_color_jitter": ("RandomColorJitter",),
    "random_elastic_transform": ("RandomElasticTransform",),
    "random_erasing": ("RandomErasing",),
    "random_grayscale": ("RandomGrayscale",),
    "random_invert": ("RandomInvert",),
    "random_perspective": ("RandomPerspective",),
    "random_shear": ("RandomShear",),
    "regularization_layers": ("ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise",
                              "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"),
    "reshaping": ("Masking", "Permute", "RepeatVector", "Reshape"),
    "reversible_embedding": ("ReversibleEmbedding",),
    "rnn": ("Bidirectional", "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "SimpleRNN", "SimpleRNNCell",
            "TimeDistributed"),
    "serialization": ("deserialize", "serialize"),
    "spatial_reshaping": ("Cropping1D", "Cropping2D", "Cropping3D", "UpSampling1D", "UpSampling2D", "UpSampling3D",
                          "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D"),
    "spectral_normalization": ("SpectralNormalization",),
    "stacked_rnn_cells": ("StackedRNNCells",),
    "stft_spectrogram": ("STFTSpectrogram",),
    "text": ("StringLookup", "TextVectorization"),
    "wrapper": ("Wrapper",),
}
_ALIASES = {  # Keras' other names
    "GlobalAvgPool1D": "GlobalAveragePooling1D", "GlobalAvgPool2D": "GlobalAveragePooling2D",
    "GlobalMaxPool1D": "GlobalMaxPooling1D", "GlobalMaxPool2D": "GlobalMaxPooling2D",
    "AvgPool2D": "AveragePooling2D", "MaxPool1D": "MaxPooling1D", "MaxPool2D": "MaxPooling2D",
    "AvgPool1D": "AveragePooling1D", "Convolution1D": "Conv1D", "Convolution2D": "Conv2D",
    "Convolution3D": "Conv3D", "Convolution1DTranspose": "Conv1DTranspose",
    "Convolution2DTranspose": "Conv2DTranspose", "SeparableConvolution1D": "SeparableConv1D",
    "SeparableConvolution2D": "SeparableConv2D", "GlobalAvgPool3D": "GlobalAveragePooling3D",
    "GlobalMaxPool3D": "GlobalMaxPooling3D", "MaxPool3D": "MaxPooling3D", "AvgPool3D": "AveragePooling3D",
    "Convolution3DTranspose": "Conv3DTranspose", "GroupQueryAttention": "GroupedQueryAttention",
}


def _refuse(name: str):
    from .._api_exclusions import refuse  # a name keras.layers has and descend leaves out says why

    return refuse("keras.layers", name, __name__)


__getattr__, __dir__, _LAZY_NAMES = lazy_facade(__name__, _LAZY, aliases=_ALIASES, missing=_refuse)

# (GroupedQueryAttention is exported as Keras' GroupQueryAttention)
__all__ = ["Layer", "OpLambda", "get_mask", "register_weight_hook", "set_mask", "to_snake_case",
           *(name for name in _LAZY_NAMES if name != "GroupedQueryAttention")]

# the layer classes a config names: this package's public layers, loaded at the kind's first look-up
register_builtins("layers", public_names(__name__, lambda obj: isinstance(obj, type) and issubclass(obj, Layer)))
