# fa-raise-attention on TensorFlow-style linalg (StableHLO lowering of TF BERT,
# Keras MultiHeadAttention): original vs raised on the same random inputs.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-tf.mlir"),
    ["tf_bert_attention", ("keras_mha", dict(binary=[3])), "named_elementwise"])
