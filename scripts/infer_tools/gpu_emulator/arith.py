"""arith, math and affine ops, elementwise over the threads.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .base import EmulationError
from .ir import cached, prop
from .memory import (UNSIGNED, MemRefType, float_from_bits, parse_dense, scalar_dtype,
                     vector_shape)


_CMPI = {0: "eq", 1: "ne", 2: "slt", 3: "sle", 4: "sgt", 5: "sge", 6: "ult", 7: "ule",
         8: "ugt", 9: "uge"}
_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal}
_CMPF = {0: "false", 1: "oeq", 2: "ogt", 3: "oge", 4: "olt", 5: "ole", 6: "one", 7: "ord",
         8: "ueq", 9: "ugt", 10: "uge", 11: "ult", 12: "ule", 13: "une", 14: "uno", 15: "true"}


def _unsigned(a: np.ndarray) -> np.ndarray:
    return a.astype(UNSIGNED[a.dtype]) if a.dtype in UNSIGNED else a


def _cmpf(predicate: str, a, b):
    unordered = np.isnan(a) | np.isnan(b)
    if predicate == "false":
        return np.zeros(np.broadcast(a, b).shape, dtype=bool)
    if predicate == "true":
        return np.ones(np.broadcast(a, b).shape, dtype=bool)
    if predicate == "ord":
        return ~unordered
    if predicate == "uno":
        return unordered
    base = {"eq": np.equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less,
            "le": np.less_equal, "ne": np.not_equal}[predicate[1:]]
    with np.errstate(invalid="ignore"):
        result = base(a, b)
    return (result & ~unordered) if predicate[0] == "o" else (result | unordered)


def _trunc_div(a, b):
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe)
    return np.where((a < 0) != (safe < 0), -q, q).astype(a.dtype)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


FLOAT_BINARY = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
                 "arith.divf": np.divide, "arith.remf": np.fmod, "arith.maximumf": np.maximum,
                 "arith.minimumf": np.minimum, "arith.maxnumf": np.fmax,
                 "arith.minnumf": np.fmin, "math.powf": np.power, "math.atan2": np.arctan2,
                 "math.copysign": np.copysign}
FLOAT_UNARY = {"arith.negf": np.negative, "math.exp": np.exp, "math.exp2": np.exp2,
                "math.expm1": np.expm1, "math.log": np.log, "math.log2": np.log2,
                "math.log10": np.log10, "math.log1p": np.log1p, "math.sqrt": np.sqrt,
                "math.rsqrt": lambda x: 1 / np.sqrt(x), "math.tanh": np.tanh,
                "math.sinh": np.sinh, "math.cosh": np.cosh, "math.sin": np.sin,
                "math.cos": np.cos, "math.tan": np.tan, "math.asin": np.arcsin,
                "math.acos": np.arccos, "math.atan": np.arctan, "math.asinh": np.arcsinh,
                "math.acosh": np.arccosh, "math.atanh": np.arctanh, "math.absf": np.abs,
                "math.ceil": np.ceil, "math.floor": np.floor, "math.trunc": np.trunc,
                "math.roundeven": np.rint, "math.erf": _erf,
                "math.round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)}
INT_BINARY = {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
               "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or,
               "arith.xori": np.bitwise_xor, "arith.maxsi": np.maximum,
               "arith.minsi": np.minimum, "arith.shli": np.left_shift,
               "arith.shrsi": np.right_shift}


def _constant(op):
    """A function of a Run that makes the arith.constant `op`'s value."""
    text, _, typ = prop(op, "value").partition(":")
    text, typ = text.strip(), typ.strip()
    if text in ("true", "false"):
        return lambda run: run.full(text == "true", bool)
    vector = re.search(r"(dense<.*>) : (vector<(?:\d+x)+(\w+)>)", op.text)
    if vector:  # A splat or a list, the same in every thread.
        shape, dtype = vector_shape(vector.group(2)), scalar_dtype(vector.group(3))
        values = parse_dense(vector.group(1) + " : tensor<",
                             MemRefType(shape, dtype, [1] * len(shape), 0, False))
        return lambda run: np.repeat(values.reshape(1, *shape), run.threads, axis=0)
    dtype = scalar_dtype(typ)
    if text.startswith("0x") and dtype.kind == "f":
        value = float_from_bits(text, dtype)
    else:
        value = float(text) if dtype.kind == "f" else int(text)
    return lambda run: run.full(value, dtype)


def _affine_map(op):
    """affine.apply's map: its dim and symbol names, and its expression as
    compiled Python."""
    match = re.search(r"affine_map<\(([^)]*)\)(?:\[([^\]]*)\])? -> \((.*)\)>", op.text)
    if not match:
        raise EmulationError(f"affine.apply: cannot read its map in {op.text[:80]}")
    names = [n.strip() for n in match.group(1).split(",") if n.strip()] + \
        [n.strip() for n in (match.group(2) or "").split(",") if n.strip()]
    expr = match.group(3)
    if "ceildiv" in expr or "," in expr:
        raise EmulationError(f"affine.apply: unsupported map {match.group(0)}")
    python = expr.replace("floordiv", "//").replace("mod", "%")
    return names, compile(python, "<string>", "eval")


def _result_dtype(op) -> np.dtype:
    return cached(op, "dtype", lambda: scalar_dtype(op.result_type()))


class ArithOps:
    """Run's handlers of arith, math and affine.apply (the ops with a table
    above are handled by Run.run_op)."""

    def op_arith_constant(self, op, ins, mask):
        return cached(op, "constant", lambda: _constant(op))(self)

    def op_arith_divui(self, op, ins, mask):
        a, b = (_unsigned(x) for x in ins)
        return (a // np.where(b == 0, 1, b)).astype(ins[0].dtype)

    def op_arith_remui(self, op, ins, mask):
        a, b = (_unsigned(x) for x in ins)
        return (a % np.where(b == 0, 1, b)).astype(ins[0].dtype)

    def op_arith_divsi(self, op, ins, mask):
        return _trunc_div(*ins)

    def op_arith_remsi(self, op, ins, mask):
        a, b = ins
        return (a - _trunc_div(a, b) * np.where(b == 0, 1, b)).astype(a.dtype)

    def op_arith_floordivsi(self, op, ins, mask):
        a, b = ins
        return (a // np.where(b == 0, 1, b)).astype(a.dtype)

    def op_arith_ceildivsi(self, op, ins, mask):
        a, b = ins
        return (-((-a) // np.where(b == 0, 1, b))).astype(a.dtype)

    def op_arith_minui(self, op, ins, mask):
        return np.minimum(*(_unsigned(x) for x in ins)).astype(ins[0].dtype)

    def op_arith_maxui(self, op, ins, mask):
        return np.maximum(*(_unsigned(x) for x in ins)).astype(ins[0].dtype)

    def op_arith_shrui(self, op, ins, mask):
        return np.right_shift(_unsigned(ins[0]), _unsigned(ins[1])).astype(ins[0].dtype)

    def op_arith_cmpi(self, op, ins, mask):
        predicate = cached(op, "predicate",
                           lambda: _CMPI[int(prop(op, "predicate").split(":")[0])])
        a, b = ins
        if predicate[0] == "u":
            a, b = _unsigned(a), _unsigned(b)
        return _CMP[predicate[-2:]](a, b)

    def op_arith_cmpf(self, op, ins, mask):
        return _cmpf(cached(op, "predicate",
                            lambda: _CMPF[int(prop(op, "predicate").split(":")[0])]), *ins)

    def op_arith_select(self, op, ins, mask):
        return self.merge(ins[0], ins[1], ins[2], mask)

    def _cast(self, op, ins, mask):
        dtype = _result_dtype(op)
        with np.errstate(all="ignore"):
            return ins[0].astype(dtype)

    op_arith_sitofp = op_arith_extf = op_arith_truncf = op_arith_extsi = _cast
    op_arith_trunci = op_arith_index_cast = op_arith_fptosi = _cast

    def op_arith_uitofp(self, op, ins, mask):
        return _unsigned(ins[0]).astype(_result_dtype(op))

    def op_arith_extui(self, op, ins, mask):
        return _unsigned(ins[0]).astype(_result_dtype(op))

    op_arith_index_castui = op_arith_extui

    def op_arith_fptoui(self, op, ins, mask):
        dtype = _result_dtype(op)
        with np.errstate(all="ignore"):
            return ins[0].astype(UNSIGNED.get(dtype, dtype)).astype(dtype)

    def op_arith_bitcast(self, op, ins, mask):
        return ins[0].view(_result_dtype(op))

    def op_math_fma(self, op, ins, mask):
        return (ins[0].astype(np.float64) * ins[1] + ins[2]).astype(ins[0].dtype)

    def op_math_fpowi(self, op, ins, mask):
        return np.power(ins[0], ins[1].astype(np.float64)).astype(ins[0].dtype)

    def op_math_ipowi(self, op, ins, mask):
        return np.power(ins[0], np.maximum(ins[1], 0)).astype(ins[0].dtype)

    def op_math_absi(self, op, ins, mask):
        return np.abs(ins[0])

    def op_math_isnan(self, op, ins, mask):
        return np.isnan(ins[0])

    def op_math_isinf(self, op, ins, mask):
        return np.isinf(ins[0])

    def op_affine_apply(self, op, ins, mask):
        names, code = cached(op, "map", lambda: _affine_map(op))
        return eval(code, {"__builtins__": {}}, dict(zip(names, ins))).astype(np.int64)
