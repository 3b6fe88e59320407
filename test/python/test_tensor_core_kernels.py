"""The tensor-core kernels of infer-cuda-map-to-gpu, run on the CPU.

Each case is a float32 contraction on memrefs (a MatMul, a transposed
operand, an output with m contiguous, several k dims as in an im2col
convolution, a batch of images against one weight, views with offsets,
shapes with partial block tiles). It is compiled by
``infer-opt --infer-outline-kernels --infer-cuda-map-to-gpu`` both ways
(``stage-tiles=false``: a warp a 16x16 tile, fragments from global memory;
``stage-tiles=true``: tiles staged in shared memory, StagedTiles.cpp,
multiplied with mma.sync or, with ``tile-plan=mma=wmma``, WMMA), and
the kernel is run by scripts/infer_tools/gpu_emulator/, which also checks
bounds, alignment, warp uniformity and shared-memory races; the result must match numpy. The
fused cases add a prologue and an epilogue (``--infer-cuda-fuse-epilogues``
first), which both kernels run on their tiles.
Products are exact in the emulator (no TF32 rounding), so the tolerance is
float32's.
"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from infer_cpu import INFER_OPT, REPO
from infer_tools.gpu_emulator import EmulationError, Emulator, run_launches
from infer_tools.kernel_plan import tiles_in_mlir


def contraction(dims: str, maps: tuple[str, str, str], iterators: str, types: tuple[str, str, str],
                operands: tuple[str, str, str] = ("%a", "%b", "%c")) -> str:
    """A linalg.generic C += A x B over loop `dims` (named like einsum letters)."""
    affine = ", ".join(f"affine_map<({dims}) -> ({m})>" for m in maps)
    return f"""
    linalg.generic {{indexing_maps = [{affine}], iterator_types = [{iterators}]}}
        ins({operands[0]}, {operands[1]} : {types[0]}, {types[1]})
        outs({operands[2]} : {types[2]}) {{
      ^bb0(%x: f32, %y: f32, %z: f32):
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %z, %p : f32
        linalg.yield %s : f32
    }}"""


def memref(shape) -> str:
    return "memref<" + "x".join(map(str, shape)) + "xf32>"


P, R = '"parallel"', '"reduction"'


def einsum_case(spec: str, shapes: dict[str, tuple[int, ...]]):
    """A case computing einsum `spec` ('mk,kn->mn') over the arguments a, b, c."""
    ins, out = spec.split("->")
    a_idx, b_idx = ins.split(",")
    letters = "".join(dict.fromkeys(out + a_idx + b_idx))
    dims = ", ".join(letters)
    iterators = ", ".join(P if d in out else R for d in letters)
    types = tuple(memref(shapes[x]) for x in "abc")
    maps = tuple(", ".join(idx) for idx in (a_idx, b_idx, out))
    body = contraction(dims, maps, iterators, types)
    args = ", ".join(f"%{x}: {memref(shapes[x])}" for x in "abc")
    text = f"func.func @main({args}) {{{body}\n    return\n}}\n"

    def reference(arrays):
        a, b, c = (arrays[i].reshape(shapes[x]).astype(np.float64) for i, x in enumerate("abc"))
        return {2: c + np.einsum(spec, a, b)}

    return text, [shapes[x] for x in "abc"], reference


CASES = {
    # [128, 96] x [96, 256]: blocks of 32 x 32, one group, 3 rounds of 32.
    "matmul": einsum_case("mk,kn->mn", {"a": (128, 96), "b": (96, 256), "c": (128, 256)}),
    # One block tile and a long k: 4 groups (or 4 warps a tile) split k.
    "split_k": einsum_case("mk,kn->mn", {"a": (32, 1024), "b": (1024, 32), "c": (32, 32)}),
    # 264 blocks of 64 x 64: warps of 2 x 2 fragments.
    "register_blocked": einsum_case("bmk,bkn->bmn", {"a": (66, 64, 32), "b": (66, 32, 256),
                                                      "c": (66, 64, 256)}),
    # A weight stored [n, k] (Gemm transB): B column-major.
    "transposed_b": einsum_case("mk,nk->mn", {"a": (64, 48), "b": (96, 48), "c": (64, 96)}),
    # A stored [k, m]: A column-major.
    "transposed_a": einsum_case("km,kn->mn", {"a": (40, 64), "b": (40, 64), "c": (64, 64)}),
    # C stored [n, m]: C^T = B^T A^T, A and B swap roles.
    "output_m_contiguous": einsum_case("mk,kn->nm", {"a": (64, 32), "b": (32, 96),
                                                      "c": (96, 64)}),
    # 208 rows (13 tiles of 16): the last block tile of 32 is half outside.
    "rows_past_m": einsum_case("mk,kn->mn", {"a": (208, 16), "b": (16, 64), "c": (208, 64)}),
    # 208 columns, B row-major (its tile's columns are clamped) ...
    "columns_past_n": einsum_case("mk,kn->mn", {"a": (32, 24), "b": (24, 208), "c": (32, 208)}),
    # ... and column-major (its tile's rows are).
    "columns_past_n_transposed": einsum_case("mk,nk->mn", {"a": (32, 24), "b": (208, 24),
                                                            "c": (32, 208)}),
    # k over (channel, kh, kw), contiguous in both operands: an im2col convolution.
    "several_k_dims": einsum_case("mcij,cijn->mn", {"a": (32, 4, 2, 4), "b": (4, 2, 4, 64),
                                                     "c": (32, 64)}),
    # A convolution over 3 images: the weight does not index the images.
    "batch_one_input_skips": einsum_case("mk,ikn->imn", {"a": (32, 64), "b": (3, 64, 96),
                                                          "c": (3, 32, 96)}),
}


def _views_case():
    """Operands that are views with offsets: rows 8.. of A's buffer, and
    columns 32..288 of C's."""
    a_t = "memref<96x64xf32, strided<[64, 1], offset: 512>>"
    c_t = "memref<96x256xf32, strided<[320, 1], offset: 32>>"
    body = contraction("m, n, k", ("m, k", "k, n", "m, n"), f"{P}, {P}, {R}",
                       (a_t, memref((64, 256)), c_t), ("%av", "%b", "%cv"))
    text = f"""func.func @main(%a: memref<104x64xf32>, %b: memref<64x256xf32>, %c: memref<96x320xf32>) {{
    %av = memref.subview %a[8, 0] [96, 64] [1, 1] : memref<104x64xf32> to {a_t}
    %cv = memref.subview %c[0, 32] [96, 256] [1, 1] : memref<96x320xf32> to {c_t}{body}
    return
}}
"""

    def reference(arrays):
        a = arrays[0].reshape(104, 64).astype(np.float64)
        b = arrays[1].reshape(64, 256).astype(np.float64)
        c = arrays[2].reshape(96, 320).astype(np.float64).copy()
        c[:, 32:288] += a[8:] @ b
        return {2: c}

    return text, [(104, 64), (64, 256), (96, 320)], reference


CASES["views_with_offsets"] = _views_case()


def _fused_case(shape_a, shape_b, prologue: bool):
    """A contraction with a fused prologue and epilogue (TensorCoreFusion.h):
    C starts from zeros (a fill) or, with `prologue`, from a residual plus a
    bias (a generic writing C); the epilogue writes relu(C + bias) to out.
    Arguments: a, b, bias (over n), residual, c, out."""
    batch = shape_a[:-2]
    m, k, n = shape_a[-2], shape_a[-1], shape_b[-1]
    letters = "zyx"[:len(batch)]
    dims = ", ".join([*letters, "m", "n", "k"])
    out_dims = ", ".join([*letters, "m", "n"])
    shape_c = (*batch, m, n)
    t_a, t_b, t_c, t_bias = memref(shape_a), memref(shape_b), memref(shape_c), memref((n,))
    body = contraction(dims, (", ".join([*letters, "m", "k"]), ", ".join([*letters, "k", "n"]),
                              out_dims),
                       ", ".join([P] * (len(batch) + 2) + [R]), (t_a, t_b, t_c))
    body = body.replace("outs(%c : " + t_c + ")", "outs(%c : " + t_c + ") attrs = {infer.read_once}")
    elementwise = f"affine_map<({out_dims}) -> ({out_dims})>"
    over_n = f"affine_map<({out_dims}) -> (n)>"
    parallel = ", ".join([P] * (len(batch) + 2))
    if prologue:
        start = f"""
    linalg.generic {{indexing_maps = [{elementwise}, {over_n}, {elementwise}], iterator_types = [{parallel}]}}
        ins(%r, %bias : {t_c}, {t_bias}) outs(%c : {t_c}) {{
      ^bb0(%x: f32, %y: f32, %z: f32):
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
    }}"""
    else:
        start = f"\n    linalg.fill ins(%zero : f32) outs(%c : {t_c})"
    text = f"""func.func @main(%a: {t_a}, %b: {t_b}, %bias: {t_bias}, %r: {t_c}, %c: {t_c}, %out: {t_c}) {{
    %zero = arith.constant 0.0 : f32{start}{body}
    linalg.generic {{indexing_maps = [{elementwise}, {over_n}, {elementwise}], iterator_types = [{parallel}]}}
        ins(%c, %bias : {t_c}, {t_bias}) outs(%out : {t_c}) {{
      ^bb0(%x: f32, %y: f32, %z: f32):
        %s = arith.addf %x, %y : f32
        %v = arith.maximumf %s, %zero : f32
        linalg.yield %v : f32
    }}
    return
}}
"""

    def reference(arrays):
        a, b, bias, r = (arrays[i].reshape(x).astype(np.float64)
                         for i, x in enumerate((shape_a, shape_b, (n,), shape_c)))
        c = a @ b + (r + bias if prologue else 0)
        return {5: np.maximum(c + bias, 0)}

    return text, [shape_a, shape_b, (n,), shape_c, shape_c, shape_c], reference


FUSED_CASES = {
    # The MLP pattern: a fill, the MatMul, bias + ReLU; one group of 4 warps.
    "fill_and_epilogue": _fused_case((128, 96), (96, 256), prologue=False),
    # A residual and bias as C's start, 4 groups splitting k: group 0 runs
    # the prologue, adds the others' sums and runs the epilogue.
    "prologue_split_k": _fused_case((32, 1024), (1024, 32), prologue=True),
    # 2 x 2 fragments a warp pass one by one through the warp's tile, over
    # a batch dim.
    "register_blocked": _fused_case((66, 64, 32), (66, 32, 256), prologue=True),
    # Fragments past m hold nothing to run the epilogue on.
    "rows_past_m": _fused_case((208, 16), (16, 64), prologue=True),
}


# A single k dim that is not whole steps of 8: the warp-a-tile kernel takes
# the last 1 to 7 elements in one more step, through the warp's floats of
# shared memory with zeros past k (kTail); the staged kernel rounds k up to
# whole steps, its copies zero-filled past k (cp.async's source size).
TAIL_CASES = {
    # k = 44: 5 steps from global memory, then 4.
    "k_tail": einsum_case("mk,kn->mn", {"a": (32, 44), "b": (44, 64), "c": (32, 64)}),
    # A stored [k, m] and B [n, k]: the tail reads both across their rows.
    "k_tail_transposed": einsum_case("km,nk->mn", {"a": (12, 32), "b": (64, 12), "c": (32, 64)}),
    # C stored [n, m] (A and B swap roles), k = 20.
    "k_tail_output_m_contiguous": einsum_case("mk,kn->nm", {"a": (64, 20), "b": (20, 32),
                                                             "c": (32, 64)}),
    # One tile and a long k: 4 warps split the 128 whole steps, and part 0
    # takes the last 4 elements too.
    "k_tail_split_k": einsum_case("mk,kn->mn", {"a": (16, 1028), "b": (1028, 16),
                                                 "c": (16, 16)}),
}
CASES.update(TAIL_CASES)
FUSED_CASES.update({
    # The tail's floats are the prologue's and the epilogue's too (named
    # like their TAIL_CASES).
    "k_tail": _fused_case((32, 20), (20, 64), prologue=True),
    "k_tail_split_k": _fused_case((16, 1028), (1028, 16), prologue=True),
})


# One 16x16 tile: staged blocks of 32 x 32 would waste 3/4 of their work, so
# the warp-a-tile kernel runs it even with stage-tiles.
WARP_TILES_ONLY = {"k_tail_split_k"}


def compile_kernels(tmp_path, text: str, stage: bool, fuse: bool = False, plan: str = "") -> str:
    source = tmp_path / "case.mlir"
    source.write_text(text)
    fusion = ["--infer-cuda-fuse-epilogues"] if fuse else []
    tile_plan = f" tile-plan={plan}" if plan else ""
    result = subprocess.run(
        [str(INFER_OPT), str(source), *fusion, "--infer-outline-kernels=root-arguments=true",
         f"--infer-cuda-map-to-gpu=stage-tiles={'true' if stage else 'false'}{tile_plan}",
         "--mlir-print-op-generic"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_case(tmp_path, name: str, stage: bool, fuse: bool = False,
             plan: str = "") -> tuple[str, list[np.ndarray]]:
    text, shapes, reference = (FUSED_CASES if fuse else CASES)[name]
    generic = compile_kernels(tmp_path, text, stage, fuse, plan)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(int(np.prod(s))).astype(np.float32) for s in shapes]
    expected = reference(arrays)
    run_launches(generic, arrays)
    for index, want in expected.items():
        got = arrays[index].reshape(want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    return generic, arrays


# The three kernels: a warp a 16x16 tile from global memory; tiles staged
# in shared memory, multiplied with mma.sync (the default, MmaSync.h) or
# with WMMA (tile-plan mma=wmma). Each case runs all three.
KERNELS = {"warp_tiles": (False, ""), "staged_wmma": (True, "mma=wmma"),
           "mma_sync": (True, "")}
# Slow to emulate with mma.sync's per-lane registers; the forced plans
# below cover warps of several fragments with mma.sync, so these run in the
# extended tier only.
SLOW_WITH_MMA_SYNC = {"register_blocked"}


def kernel_cases(names) -> list:
    """(name, kernel) for every case and kernel, as pytest params."""
    return [pytest.param(name, kernel, id=f"{name}-{kernel}", marks=[pytest.mark.extended]
                         if kernel == "mma_sync" and name in SLOW_WITH_MMA_SYNC else [])
            for name in sorted(names) for kernel in sorted(KERNELS)]


def check_kernels(generic: str, name: str, kernel: str, every_launch: bool) -> None:
    """The launches are of the kernel asked for (one case may be too small
    for staged tiles), and a staged kernel multiplies as its plan says."""
    stage, plan = KERNELS[kernel]
    staged = stage and name not in WARP_TILES_ONLY
    strategies = re.findall(r"#plan\.launch<[^>]*?strategy = (\w+)", generic)
    want = "staged_tiles" if staged else "tensor_cores"
    assert (strategies if every_launch else set(strategies)) == \
        ([want] if every_launch else {want}), strategies
    if staged:
        mma = "wmma" if plan == "mma=wmma" else "sync"
        assert set(re.findall(r"tile = <[^>]*mma = (\w+)>", generic)) == {mma}
        assert ('"nvgpu.mma.sync"' in generic) == (mma == "sync")
        assert ('"gpu.subgroup_mma_compute"' in generic) == (mma == "wmma")


def run_kernel(tmp_path, name: str, kernel: str, fuse: bool) -> None:
    stage, plan = KERNELS[kernel]
    generic, _ = run_case(tmp_path, name, stage, fuse=fuse, plan=plan)
    check_kernels(generic, name, kernel, every_launch=fuse)


@pytest.mark.parametrize("name,kernel", kernel_cases(CASES))
def test_kernel_matches_numpy(tmp_path, name, kernel):
    run_kernel(tmp_path, name, kernel, fuse=False)


@pytest.mark.parametrize("name,kernel", kernel_cases(FUSED_CASES))
def test_fused_kernel_matches_numpy(tmp_path, name, kernel):
    """The prologue and epilogue run in the contraction's one kernel, each way."""
    run_kernel(tmp_path, name, kernel, fuse=True)


def test_plans_cover_the_configurations(tmp_path):
    """The staged cases above reach each kind of plan: 2 x 2 fragments a
    warp, several groups, a step of k below 32, 3 stages and 2."""
    def plan(name):
        generic = compile_kernels(tmp_path, CASES[name][0], stage=True, plan="mma=wmma")
        block = int(re.search(r"block = (\d+)", generic).group(1))
        shared = int(re.search(r"memref<(\d+)xf32, #gpu.address_space<workgroup>>",
                               generic).group(1))
        return block, shared, len(re.findall(r'"gpu.subgroup_mma_compute"', generic))
    # 4 fragments a warp, stepK 32: 16 products a round; 2 stages (3 would
    # pass the 48 KiB of static shared memory).
    assert plan("register_blocked") == (128, 2 * (64 * 36 + 32 * 72), 16)
    # 3 rounds of 32 in 3 stages of 32 x 32 tiles.
    assert plan("matmul") == (128, 3 * (32 * 36 + 32 * 40), 4)
    assert plan("split_k")[0] == 512  # 4 groups of 4 warps.
    assert plan("rows_past_m")[2] == 2  # stepK 16: 2 steps of 8.


# Plans fixed by hand (tile-plan, infer-opt --cuda-tile-plan: sweeps on a
# GPU), with what the heuristic never picks: warps of 4 fragments a side
# (blocks of 128), 4 stages, forced groups; on partial blocks (within the
# 1/8 of wasted work a plan may have), transposed operands, a k tail, split
# k and a fused prologue and epilogue. Each must be taken as given (the
# launch record's config) and match numpy.
CASES.update({
    # 240 rows: the second block of 128 is 1/8 outside.
    "rows_past_128": einsum_case("mk,kn->mn", {"a": (240, 16), "b": (16, 128),
                                               "c": (240, 128)}),
    # 240 columns of a column-major B, k = 24.
    "columns_past_128_transposed": einsum_case("mk,nk->mn", {"a": (128, 24), "b": (240, 24),
                                                             "c": (128, 240)}),
})
FUSED_CASES["rows_past_128"] = _fused_case((240, 16), (16, 128), prologue=True)
# The heuristic's plan for long k where blocks of 128 x 64 fill the GPU
# (with mma.sync), on a k of 48: three rounds.
FUSED_CASES["rows_past_128_k48"] = _fused_case((240, 48), (48, 128), prologue=True)
FORCED_PLANS = [
    ("warp=4x4,step=16,stages=2,groups=1", "rows_past_128", False),
    ("warp=4x4,step=16,stages=2,groups=1", "rows_past_128", True),
    ("warp=4x4,step=8,stages=3,groups=1", "columns_past_128_transposed", False),
    ("warp=4x2,step=8,stages=3,groups=1", "columns_past_128_transposed", False),
    ("warp=4x2,step=16,stages=3,groups=1", "rows_past_128_k48", True),
    ("warp=2x2,step=8,stages=4,groups=1", "transposed_a", False),
    ("warp=1x1,step=8,stages=4,groups=2", "prologue_split_k", True),
    ("warp=1x1,step=8,stages=2,groups=4", "split_k", False),
]
# Each with WMMA and with mma.sync (ldmatrix for the operands whose k is
# contiguous; a float at a time for transposed_a's A; B's columns in pairs,
# two floats a load, where n is contiguous, as in rows_past_128).
FORCED_PLANS = [(f"{plan},mma={mma}", name, fuse)
                for plan, name, fuse in FORCED_PLANS for mma in ("wmma", "sync")]


@pytest.mark.parametrize("plan,name,fuse", FORCED_PLANS,
                         ids=[f"{name}{'-fused' if fuse else ''}-{plan}"
                              for plan, name, fuse in FORCED_PLANS])
def test_forced_plan_matches_numpy(tmp_path, plan, name, fuse):
    generic, _ = run_case(tmp_path, name, stage=True, fuse=fuse, plan=plan)
    assert tiles_in_mlir(generic) == [plan]


@pytest.mark.parametrize("plan,why", [
    # 4 stages of 128 x 32 and 32 x 128 tiles would need 140 KiB of shared memory.
    ("warp=4x4,step=32,stages=4", "shared memory"),
    # Blocks of 128 x 128 over 208 x 64 would waste 2/3 of their work.
    ("warp=4x4", "waste"),
])
def test_a_plan_that_does_not_suit_falls_back_to_the_heuristic(tmp_path, plan, why):
    """The kernel gets the heuristic's whole plan, and its record says so."""
    text = CASES["matmul" if why == "shared memory" else "rows_past_m"][0]
    forced = compile_kernels(tmp_path, text, stage=True, plan=plan)
    heuristic = compile_kernels(tmp_path, text, stage=True)
    found = tiles_in_mlir(forced)
    assert found == tiles_in_mlir(heuristic)
    assert not found[0].startswith("warp=4x4")


@pytest.mark.parametrize("name,fuse", [("transposed_b", False), ("transposed_a", False),
                                       ("prologue_split_k", True)])
def test_mma_sync_rounds_and_sums_as_wmma_does(tmp_path, name, fuse):
    """With TF32 (the emulator rounding A and B as the GPU does), both ways
    of multiplying give the same bits: each element rounded once, the same
    products summed in the same order (a step of 8 of k at a time). Between
    the cases, ldmatrix loads A and B, and A a float at a time, and B's
    columns go in pairs."""
    text, shapes, _ = (FUSED_CASES if fuse else CASES)[name]
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal(int(np.prod(s))).astype(np.float32) for s in shapes]
    results = []
    for plan in ("mma=wmma", "mma=sync"):
        arrays = [a.copy() for a in inputs]
        Emulator(compile_kernels(tmp_path, text, stage=True, fuse=fuse, plan=plan),
                 tf32="rna").run(arrays)
        results.append(arrays)
    for wmma, sync in zip(*results):
        np.testing.assert_array_equal(wmma, sync)
    # And the rounding happened: exact products differ.
    arrays = [a.copy() for a in inputs]
    run_launches(compile_kernels(tmp_path, text, stage=True, fuse=fuse, plan="mma=sync"), arrays)
    assert any((a != b).any() for a, b in zip(arrays, results[1]))


def test_a_plan_that_does_not_suit_keeps_its_mma(tmp_path):
    """How the warps multiply suits any contraction: a fallback keeps it."""
    text = CASES["rows_past_m"][0]
    forced = compile_kernels(tmp_path, text, stage=True, plan="warp=4x4,mma=wmma")
    heuristic = compile_kernels(tmp_path, text, stage=True)
    [found] = tiles_in_mlir(forced)
    [default] = tiles_in_mlir(heuristic)
    assert default.endswith(",mma=sync")
    assert found == default.replace(",mma=sync", ",mma=wmma")


def test_a_malformed_plan_is_an_error(tmp_path):
    source = tmp_path / "case.mlir"
    source.write_text(CASES["matmul"][0])
    result = subprocess.run(
        [str(INFER_OPT), str(source), "--infer-outline-kernels=root-arguments=true",
         "--infer-cuda-map-to-gpu=stage-tiles=true tile-plan=warp=3x2"],
        capture_output=True, text=True)
    assert result.returncode != 0
    assert "tile-plan option: 'warp=3x2': warp=MxN is the fragments of 16x16" in result.stderr


def assert_refused_without(generic: str, shapes, op: str, count: int, match: str) -> None:
    """`generic` has `count` lines with `op`; without the first, the
    emulator must refuse the kernel with an error matching `match`."""
    lines = generic.splitlines()
    found = [i for i, line in enumerate(lines) if op in line]
    assert len(found) == count, found
    broken = "\n".join(line for i, line in enumerate(lines) if i != found[0])
    arrays = [np.ones(int(np.prod(s)), np.float32) for s in shapes]
    with pytest.raises(EmulationError, match=match):
        run_launches(broken, arrays)


@pytest.mark.parametrize("plan", ["mma=wmma", ""], ids=["wmma", "mma_sync"])
def test_emulator_catches_a_missing_barrier(tmp_path, plan):
    """The check that makes the staged cases mean something: without the
    barrier of each round, a warp reads tiles that other threads' copies
    wrote (with WMMA loads, or ldmatrix and a float at a time), and
    overwrites a stage another warp still reads."""
    text, shapes, _ = CASES["matmul"]
    generic = compile_kernels(tmp_path, text, stage=True, plan=plan)
    assert_refused_without(generic, shapes, '"gpu.barrier"', 1, "barrier between")


@pytest.mark.parametrize("plan", ["mma=wmma", ""], ids=["wmma", "mma_sync"])
def test_emulator_catches_a_missing_async_wait(tmp_path, plan):
    """The tiles come by cp.async: without the wait of each round, the
    fragments would be loaded from tiles whose copies are still in flight."""
    text, shapes, _ = CASES["matmul"]
    generic = compile_kernels(tmp_path, text, stage=True, plan=plan)
    assert_refused_without(generic, shapes, '"nvvm.cp.async.wait.group"', 1, "in flight")


def test_emulator_catches_an_mma_sync_epilogue_read_before_its_warp_barrier(tmp_path):
    """With mma.sync each lane stores its own accumulators into the warp's
    16x16 floats for the epilogue, whose lanes read other lanes' floats:
    without the warp barrier between, the emulator refuses the kernel."""
    text, shapes, _ = FUSED_CASES["rows_past_m"]
    generic = compile_kernels(tmp_path, text, stage=True, fuse=True, plan="mma=sync")
    lines = generic.splitlines()
    stores = [i for i, line in enumerate(lines) if '"vector.store"' in line and "workgroup" in line]
    syncs = [i for i, line in enumerate(lines) if '"nvvm.bar.warp.sync"' in line]
    # The first warp barrier after the lanes' stores of a fragment.
    after = next(i for i in syncs if i > stores[0])
    broken = "\n".join(line for i, line in enumerate(lines) if i != after)
    arrays = [np.ones(int(np.prod(s)), np.float32) for s in shapes]
    with pytest.raises(EmulationError, match="lane"):
        run_launches(broken, arrays)


def test_emulator_catches_a_missing_prologue_barrier(tmp_path):
    """The staged kernel's prologue passes C's start through the warps'
    tiles, which the first rounds' copies overwrite: without the barrier
    between them, copies would land on floats that lanes of the same warp
    (or another warp) still read."""
    text, shapes, _ = FUSED_CASES["prologue_split_k"]
    generic = compile_kernels(tmp_path, text, stage=True, fuse=True)
    # After the prologue, one a round, after the rounds, before the sums meet.
    assert_refused_without(generic, shapes, '"gpu.barrier"', 4, "barrier between")


def test_emulator_catches_an_out_of_bounds_tile(tmp_path):
    """Rows past m are clamped to the last row; without the clamp the last
    block tile would read past A."""
    text, shapes, _ = CASES["rows_past_m"]
    generic = compile_kernels(tmp_path, text, stage=True)
    clamp = re.search(r'(%\d+) = "arith.minui"\((%\d+), (%\d+)\)', generic)
    assert clamp
    broken = generic.replace(clamp.group(0), f'{clamp.group(1)} = "arith.addi"({clamp.group(2)}, '
                                              f'{clamp.group(3)})', 1)
    arrays = [np.ones(int(np.prod(s)), np.float32) for s in shapes]
    with pytest.raises(EmulationError):
        run_launches(broken, arrays)


def test_emulator_catches_a_product_in_the_wrong_layout(tmp_path):
    """A fragment loaded column-major (A stored [k, m]) multiplied as if it
    were row-major: PTX would take its registers for other elements."""
    text, shapes, _ = CASES["transposed_a"]
    generic = compile_kernels(tmp_path, text, stage=True, plan="mma=wmma")
    assert "<{a_transpose}>" in generic
    broken = generic.replace(" <{a_transpose}>", "")
    arrays = [np.ones(int(np.prod(s)), np.float32) for s in shapes]
    with pytest.raises(EmulationError, match="a_transpose does not match"):
        run_launches(broken, arrays)


def test_emulator_catches_a_k_tail_read_before_its_warp_barrier(tmp_path):
    """The lanes copy the tail's elements into the warp's floats, and the
    warp loads its fragments from there: without the warp barrier in
    between, a fragment would read floats that other lanes just wrote."""
    text, shapes, _ = TAIL_CASES["k_tail"]
    generic = compile_kernels(tmp_path, text, stage=False)
    lines = generic.splitlines()
    barriers = [i for i, line in enumerate(lines) if '"nvvm.bar.warp.sync"' in line]
    # Before the copies, between the copies and the loads, after the product.
    assert len(barriers) == 3, barriers
    broken = "\n".join(line for i, line in enumerate(lines) if i != barriers[1])
    arrays = [np.ones(int(np.prod(s)), np.float32) for s in shapes]
    with pytest.raises(EmulationError, match="warp barrier"):
        run_launches(broken, arrays)


def test_emulator_accepts_the_same_nan_copied_by_two_warps(tmp_path):
    """Threads past the tile's copies are clamped to its last one, so
    several warps copy the same bytes to the same place: harmless, and so
    must it be when those bytes are a NaN (a grown tile's unused columns
    hold whatever the arena held). The race check compares bits, not
    values, which a NaN never equals."""
    text, shapes, _ = CASES["columns_past_n"]
    generic = compile_kernels(tmp_path, text, stage=True)
    arrays = [np.full(int(np.prod(s)), np.nan, np.float32) for s in shapes]
    run_launches(generic, arrays)
    assert np.isnan(arrays[2]).all()


@pytest.mark.slow
def test_emulator_catches_a_fragment_stored_over_one_the_lanes_read(tmp_path):
    """With 2 x 2 WMMA fragments a warp, each fragment passes through the warp's
    16 x 16 floats for its epilogue: the warp stores it, the lanes read it,
    and the warp stores the next over it. Without the warp barrier after a
    store the emulator must refuse the kernel as a read of other lanes'
    writes; without the one before a later store, as a write over another
    lane's read. (The barrier before each group's first store follows a
    block barrier: it is not needed, and removing it is accepted.)"""
    text, shapes, _ = FUSED_CASES["register_blocked"]
    generic = compile_kernels(tmp_path, text, stage=True, fuse=True, plan="mma=wmma")
    lines = generic.splitlines()
    syncs = [i for i, line in enumerate(lines) if '"nvvm.bar.warp.sync"' in line]
    assert len(syncs) == 16, syncs  # Two groups of 4 fragments, 2 barriers each.
    outcomes = []
    for index in syncs[:4]:  # The first group's first two fragments (seconds each).
        broken = "\n".join(line for i, line in enumerate(lines) if i != index)
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal(int(np.prod(s))).astype(np.float32) for s in shapes]
        try:
            run_launches(broken, arrays)
            outcomes.append("accepted")
        except EmulationError as error:
            outcomes.append("write after read" if "written by a lane" in str(error) else
                            "read after write" if "read by a lane" in str(error) else str(error))
    assert outcomes == ["accepted", "read after write", "write after read",
                        "read after write"], outcomes
