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

from ..persistence.registry import public_names, register_builtins
from .activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from .attention import MultiHeadAttention
from .base import Layer, get_mask, register_weight_hook, set_mask, to_snake_case
from .serialization import deserialize, serialize
from .conv import Conv1D, Conv2D
from .conv3d import Conv3D
from .convolutional_transpose import Conv1DTranspose, Conv2DTranspose
from .depthwise_conv import DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D, SeparableConv2D
from .dot_attention import AdditiveAttention, Attention
from .dot_merge import Dot, dot
from .elementwise_layers import Identity, UnitNormalization
from .global_pooling3d import GlobalAveragePooling3D, GlobalMaxPooling3D
from .group_normalization import GroupNormalization, RMSNormalization
from .core import Activation, Dense, Dropout, Embedding, Flatten
from .input_layer import Input, InputLayer
from .input_spec import InputSpec
from .lambda_layer import Lambda
from .merging import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .normalization import BatchNormalization, LayerNormalization
from .op_layer import OpLambda
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)
from .preprocessing import (
    CategoryEncoding,
    CenterCrop,
    Discretization,
    IntegerLookup,
    Normalization,
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
    Rescaling,
    Resizing,
)
from .reshaping import Masking, Permute, RepeatVector, Reshape
from .regularization_layers import (
    ActivityRegularization,
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from .spatial_reshaping import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from .rnn import GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell, TimeDistributed




# Keras' aliases
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
AvgPool2D = AveragePooling2D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
AvgPool1D = AveragePooling1D
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D

# the layer classes a config names: this package's public layers (read at the first look-up, names appended below included)
register_builtins("layers", public_names(__name__, lambda obj: isinstance(obj, type) and issubclass(obj, Layer)))

__all__ = [
    "Layer", "register_weight_hook", "to_snake_case", "Dense", "Activation", "Flatten", "Dropout", "Embedding",
    "LayerNormalization", "BatchNormalization", "Conv2D", "MaxPooling2D", "Input", "InputLayer", "get_mask", "set_mask",
    "Conv1D", "MaxPooling1D", "AveragePooling1D", "AveragePooling2D", "GlobalAveragePooling1D",
    "GlobalMaxPooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling2D", "GlobalAvgPool1D", "GlobalAvgPool2D",
    "GlobalMaxPool1D", "GlobalMaxPool2D", "AvgPool2D", "MaxPool1D", "MaxPool2D", "Lambda", "Reshape", "Permute",
    "RepeatVector", "Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "concatenate",
    "add", "subtract", "multiply", "average", "maximum", "minimum", "RNN", "SimpleRNNCell", "LSTMCell", "GRUCell",
    "SimpleRNN", "LSTM", "GRU", "Bidirectional", "TimeDistributed", "MultiHeadAttention", "OpLambda", "Masking",
    "serialize", "deserialize",
    "Rescaling", "Normalization", "Resizing", "CenterCrop", "RandomFlip", "RandomRotation", "RandomZoom",
    "RandomTranslation", "RandomCrop", "RandomContrast", "RandomBrightness", "Discretization", "CategoryEncoding",
    "IntegerLookup",
    # issue 37
    "ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
    "DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D", "AdditiveAttention", "Attention",
    "InputSpec", "Cropping1D", "Cropping2D", "Cropping3D", "UpSampling1D", "UpSampling2D", "UpSampling3D",
    "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D", "AvgPool1D", "Convolution1D", "Convolution2D",
    "Convolution3D", "Convolution1DTranspose", "Convolution2DTranspose", "SeparableConvolution1D",
    "SeparableConvolution2D", "Dot", "dot", "Identity", "UnitNormalization", "GlobalAveragePooling3D",
    "GlobalMaxPooling3D", "GlobalAvgPool3D", "GlobalMaxPool3D", "GroupNormalization", "RMSNormalization",
    "ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise", "SpatialDropout1D",
    "SpatialDropout2D", "SpatialDropout3D",
]

# text preprocessing (string inputs)
from .text import StringLookup, TextVectorization  # noqa: E402

__all__ += ["StringLookup", "TextVectorization"]


def __getattr__(name: str):
    from .._api_exclusions import refuse  # a name keras.layers has and descend leaves out says why

    raise refuse("keras.layers", name, __name__)

# 3-D pooling and adaptive pooling (issue 37)
from .pooling3d import AveragePooling3D, MaxPooling3D  # noqa: E402

MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
__all__ += ["MaxPooling3D", "AveragePooling3D", "MaxPool3D", "AvgPool3D"]
from .adaptive_pooling import (  # noqa: E402
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
)

__all__ += ["AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
            "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D"]
from .einsum_dense import EinsumDense  # noqa: E402

__all__ += ["EinsumDense"]
from .hashing import Hashing  # noqa: E402

__all__ += ["Hashing"]
from .hashed_crossing import HashedCrossing  # noqa: E402

__all__ += ["HashedCrossing"]
from .auto_contrast import AutoContrast  # noqa: E402

__all__ += ["AutoContrast"]
from .pipeline import Pipeline  # noqa: E402

__all__ += ["Pipeline"]
from .random_grayscale import RandomGrayscale  # noqa: E402

__all__ += ["RandomGrayscale"]
from .random_invert import RandomInvert  # noqa: E402

__all__ += ["RandomInvert"]
from .wrapper import Wrapper  # noqa: E402
from .stacked_rnn_cells import StackedRNNCells  # noqa: E402

__all__ += ["Wrapper", "StackedRNNCells"]
from .convolutional_transpose import Conv3DTranspose  # noqa: E402

Convolution3DTranspose = Conv3DTranspose
__all__ += ["Conv3DTranspose", "Convolution3DTranspose"]
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D  # noqa: E402

__all__ += ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]
from .reversible_embedding import ReversibleEmbedding  # noqa: E402
from .spectral_normalization import SpectralNormalization  # noqa: E402

__all__ += ["ReversibleEmbedding", "SpectralNormalization"]
from .grouped_query_attention import GroupedQueryAttention  # noqa: E402

GroupQueryAttention = GroupedQueryAttention  # Keras exports the class under this name
__all__ += ["GroupQueryAttention"]
from .color_augmentation import (  # noqa: E402
    RandomColorDegeneration,
    RandomHue,
    RandomPosterization,
    RandomSaturation,
    RandomSharpness,
    Solarization,
)

__all__ += ["Solarization", "RandomPosterization", "RandomColorDegeneration", "RandomSaturation", "RandomHue",
            "RandomSharpness"]
from .mixing import CutMix, MixUp  # noqa: E402

__all__ += ["MixUp", "CutMix"]
from .image_filters import Equalization, RandomGaussianBlur  # noqa: E402

__all__ += ["Equalization", "RandomGaussianBlur"]
from .random_erasing import RandomErasing  # noqa: E402

__all__ += ["RandomErasing"]
from .random_color_jitter import RandomColorJitter  # noqa: E402

__all__ += ["RandomColorJitter"]
from .random_shear import RandomShear  # noqa: E402

__all__ += ["RandomShear"]
from .stft_spectrogram import STFTSpectrogram  # noqa: E402

__all__ += ["STFTSpectrogram"]
from .mel_spectrogram import MelSpectrogram  # noqa: E402

__all__ += ["MelSpectrogram"]
from .random_perspective import RandomPerspective  # noqa: E402

__all__ += ["RandomPerspective"]
from .max_num_bounding_boxes import MaxNumBoundingBoxes  # noqa: E402

__all__ += ["MaxNumBoundingBoxes"]
from .rand_augment import RandAugment  # noqa: E402

__all__ += ["RandAugment"]
from .aug_mix import AugMix  # noqa: E402

__all__ += ["AugMix"]
from .random_elastic_transform import RandomElasticTransform  # noqa: E402

__all__ += ["RandomElasticTransform"]
from .clahe import ContrastLimitedAdaptiveHistogramEqualization  # noqa: E402

__all__ += ["ContrastLimitedAdaptiveHistogramEqualization"]
