#!/usr/bin/python3
"""Small ONNX files for the model tests' must-fail and binding cases, built with onnx.helper.

  /usr/bin/python3 tests/models/make_onnx_cases.py OUT_DIR

dynamic.onnx: Relu of an input [batch, 3, 8, 8] (batch symbolic).
unsupported.onnx: LpNormalization, an operator tunefarm does not compile.
layer_norm17.onnx: opset 17's LayerNormalization of x [2, 5, 24] (scale, bias, epsilon 1e-3)
  then Softmax, with layer_norm17.input.bin and layer_norm17.expected.bin (numpy's result).
softmax_axis1.onnx: opset 11's Softmax of a rank-3 tensor with its default axis (1).
broadcast_matmul.onnx: MatMul of activations [2, 4, 8] and [8, 4] (a broadcast batch).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, save


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "case", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def value(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3, 8, 8])
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [x], [y]),
         os.path.join(out, "dynamic.onnx"))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 8, 8])
    save(model([helper.make_node("LpNormalization", ["x"], ["y"], name="norm_a", axis=1)], [x], [y]),
         os.path.join(out, "unsupported.onnx"))

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 24)).astype(np.float32)
    scale = rng.uniform(0.5, 1.5, 24).astype(np.float32)
    bias = rng.uniform(-0.5, 0.5, 24).astype(np.float32)
    norm = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    e = np.exp(norm * scale + bias - (norm * scale + bias).max(-1, keepdims=True))
    inits = [helper.make_tensor("scale", TensorProto.FLOAT, [24], scale),
             helper.make_tensor("bias", TensorProto.FLOAT, [24], bias)]
    nodes = [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["n"], name="ln",
                              axis=-1, epsilon=1e-3),
             helper.make_node("Softmax", ["n"], ["y"], name="sm")]
    save(model(nodes, [value("x", [2, 5, 24])], [value("y", [2, 5, 24])], inits, opset=17),
         os.path.join(out, "layer_norm17.onnx"))
    x.astype("<f4").tofile(os.path.join(out, "layer_norm17.input.bin"))
    (e / e.sum(-1, keepdims=True)).astype("<f4").tofile(
        os.path.join(out, "layer_norm17.expected.bin"))

    save(model([helper.make_node("Softmax", ["x"], ["y"], name="sm_axis1")],
               [value("x", [2, 5, 24])], [value("y", [2, 5, 24])], opset=11),
         os.path.join(out, "softmax_axis1.onnx"))
    save(model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm_bcast")],
               [value("a", [2, 4, 8]), value("b", [8, 4])], [value("y", [2, 4, 4])]),
         os.path.join(out, "broadcast_matmul.onnx"))


if __name__ == "__main__":
    main()
