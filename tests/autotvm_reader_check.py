#!/usr/bin/python3
"""Checks that every line of an AutoTVM log would decode with TVM's JSON log reader.

TVM is not installed here, so this applies the decoding rules of TVM's log format (version
0.2) as documented facts:
  * one JSON object per line; '#' comment lines and blank lines are skipped;
  * "input" = [target, task_name, args, kwargs]: a target string whose first word is a target
    kind, a task name, a list of arguments in which every tensor is ["TENSOR", shape, dtype]
    (positive integer dims, a dtype string) and every other argument is plain JSON data, and a
    kwargs object;
  * "config" = {"index": integer >= 0, "code_hash": null or string,
                "entity": [[knob_name, knob_type, value], ...]} with the knob types
    "sp" (split: integers, the outermost may be -1), "re" (reorder: a permutation of
    0..n-1), "an" (annotate: a list of strings) and "ot" (other: one scalar value);
  * "result" = [costs, error_no, all_cost, timestamp]: a list of numbers (positive and finite
    when error_no is 0), an integer MeasureErrorNo 0..8, and two numbers;
  * "version" 0.2.

Usage: autotvm_reader_check.py LOG [--compare ORIGINAL]
With --compare, LOG must hold exactly ORIGINAL's records as TVM reads them (target, task,
args, config index, knobs with types, costs, error number, timestamp), in the same order.
"""

import json
import math
import sys

TARGET_KINDS = {"llvm", "cuda", "c", "opencl", "rocm", "vulkan", "metal", "nvptx", "hexagon"}
KNOB_TYPES = {"sp", "re", "an", "ot"}


class Bad(Exception):
    pass


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_arg(arg, where):
    if isinstance(arg, list) and arg and arg[0] == "TENSOR":
        if len(arg) != 3:
            raise Bad(f"{where}: a tensor is [\"TENSOR\", shape, dtype]")
        shape, dtype = arg[1], arg[2]
        if not isinstance(shape, list) or not all(is_int(d) and d > 0 for d in shape):
            raise Bad(f"{where}: tensor shape {shape!r} is not positive integers")
        if not isinstance(dtype, str) or not dtype:
            raise Bad(f"{where}: tensor dtype {dtype!r} is not a string")
        return
    if isinstance(arg, list):
        for i, a in enumerate(arg):
            check_arg(a, f"{where}[{i}]")
    elif isinstance(arg, dict):
        raise Bad(f"{where}: an argument is never an object")


def check_knob(knob, where):
    if not isinstance(knob, list) or len(knob) != 3:
        raise Bad(f"{where}: expected [name, type, value]")
    name, kind, value = knob
    if not isinstance(name, str) or not name:
        raise Bad(f"{where}: knob name {name!r}")
    if kind not in KNOB_TYPES:
        raise Bad(f"{where}: knob type {kind!r} is not one of {sorted(KNOB_TYPES)}")
    if kind == "sp":
        if not isinstance(value, list) or len(value) < 1 or not all(is_int(v) for v in value):
            raise Bad(f"{where}: split {value!r} is not a list of integers")
        if any(v <= 0 for v in value[1:]) or (value[0] <= 0 and value[0] != -1):
            raise Bad(f"{where}: split {value!r} has a non-positive factor")
    elif kind == "re":
        if not isinstance(value, list) or sorted(value) != list(range(len(value))):
            raise Bad(f"{where}: reorder {value!r} is not a permutation")
    elif kind == "an":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise Bad(f"{where}: annotation {value!r} is not a list of strings")
    elif isinstance(value, (list, dict)):
        raise Bad(f"{where}: other-option value {value!r} is not a scalar")
    return name


def check_line(line, where):
    try:
        row = json.loads(line)
    except ValueError as e:
        raise Bad(f"{where}: not JSON ({e})")
    if not isinstance(row, dict):
        raise Bad(f"{where}: not an object")
    if row.get("version") != 0.2:
        raise Bad(f"{where}: version {row.get('version')!r} is not 0.2")
    inp = row.get("input")
    if not isinstance(inp, list) or len(inp) != 4:
        raise Bad(f"{where}: input is not [target, task, args, kwargs]")
    target, task, args, kwargs = inp
    if not isinstance(target, str) or target.split(" ")[0] not in TARGET_KINDS:
        raise Bad(f"{where}: target {target!r}")
    if not isinstance(task, str) or not task:
        raise Bad(f"{where}: task name {task!r}")
    if not isinstance(args, list):
        raise Bad(f"{where}: args are not a list")
    for i, a in enumerate(args):
        check_arg(a, f"{where}: args[{i}]")
    if not isinstance(kwargs, dict):
        raise Bad(f"{where}: kwargs are not an object")
    config = row.get("config")
    if not isinstance(config, dict):
        raise Bad(f"{where}: config is not an object")
    if not is_int(config.get("index")) or config["index"] < 0:
        raise Bad(f"{where}: config index {config.get('index')!r}")
    if config.get("code_hash") is not None and not isinstance(config["code_hash"], str):
        raise Bad(f"{where}: code_hash")
    entity = config.get("entity")
    if not isinstance(entity, list):
        raise Bad(f"{where}: entity is not a list")
    names = [check_knob(k, f"{where}: entity[{i}]") for i, k in enumerate(entity)]
    if len(set(names)) != len(names):
        raise Bad(f"{where}: a knob appears twice")
    result = row.get("result")
    if not isinstance(result, list) or len(result) != 4:
        raise Bad(f"{where}: result is not [costs, error_no, all_cost, timestamp]")
    costs, error_no, all_cost, timestamp = result
    if not isinstance(costs, list) or not all(is_number(c) for c in costs):
        raise Bad(f"{where}: costs {costs!r}")
    if not is_int(error_no) or not 0 <= error_no <= 8:
        raise Bad(f"{where}: error_no {error_no!r} is not a MeasureErrorNo")
    if error_no == 0 and (not costs or not all(0 < c < math.inf for c in costs)):
        raise Bad(f"{where}: a successful result needs positive costs")
    if not is_number(all_cost) or not is_number(timestamp):
        raise Bad(f"{where}: all_cost and timestamp must be numbers")
    view = {k[0]: [k[1], k[2]] for k in entity}
    # Numbers as TVM holds them after decoding (1650000003 and 1650000003.0 are one time).
    return json.dumps([target, task, args, config["index"], view, [float(c) for c in costs],
                       error_no, float(timestamp)], sort_keys=True)


def records(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            out.append(check_line(stripped, f"{path}:{n}"))
    return out


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--compare"):
        print("usage: autotvm_reader_check.py LOG [--compare ORIGINAL]", file=sys.stderr)
        return 2
    try:
        got = records(argv[1])
        if len(argv) == 4:
            want = records(argv[3])
            if got != want:
                for i, (g, w) in enumerate(zip(got, want)):
                    if g != w:
                        raise Bad(f"record {i + 1} differs:\n  got  {g}\n  want {w}")
                raise Bad(f"{len(got)} records, want {len(want)}")
    except Bad as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print(f"ok: {len(got)} records of {argv[1]} decode with TVM's log rules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
