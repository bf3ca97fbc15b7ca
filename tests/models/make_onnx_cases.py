#!/usr/bin/python3
"""Small ONNX files for the model tests' must-fail and binding cases, built with onnx.helper.

  /usr/bin/python3 tests/models/make_onnx_cases.py OUT_DIR

dynamic.onnx: Relu of an input [batch, 3, 8, 8] (batch symbolic).
unsupported.onnx: LpNormalization, an operator tunefarm does not compile.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, save


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "case", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


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


if __name__ == "__main__":
    main()
