//===- MmaSync.cpp - a warp's TF32 fragments for mma.sync -----------------===//
//
// MmaSync.h says which lane holds which element.
//
//===----------------------------------------------------------------------===//

#include "Kernels/MmaSync.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::infer;

MmaSyncFragments::MmaSyncFragments(const MmaShape &shape, IndexMath &e, Value lane,
                                   bool pairedColumns)
    : shape(shape), e(e), lane(lane), group(e.div(lane, 4)), inGroup(e.rem(lane, 4)),
      paired(pairedColumns) {
  // m16n8k8 TF32: A is 4 registers a lane, B 2, C 4 (C's elements are
  // also what the lanes load and store of the shared or global tiles).
  typeA = VectorType::get({4, 1}, shape.operand);
  typeB = VectorType::get({2, 1}, shape.operand);
  typeC = VectorType::get({2, 2}, shape.accumulator);
  pair = VectorType::get({2}, shape.accumulator);
  quad = VectorType::get({4}, shape.accumulator);
}

SmallVector<Value> MmaSyncFragments::elementIndices(Value memref, ValueRange at, Value r, Value c,
                                                    int64_t lead) {
  SmallVector<Value> indices(at);
  if (indices.size() == 1) {
    indices[0] = e.add(indices[0], e.add(e.mul(r, lead), c));
    return indices;
  }
  assert(cast<MemRefType>(memref.getType()).getShape().back() == lead && "rows of the lead");
  indices[indices.size() - 2] = e.add(indices[indices.size() - 2], r);
  indices.back() = e.add(indices.back(), c);
  return indices;
}

// A lane's floats of a row are adjacent: two at an even column (8 bytes),
// or with paired columns four at a multiple of 4 (16 bytes). The tiles are
// 32-byte aligned, their rows a multiple of 4 floats apart, as for WMMA.
MmaSyncFragments::Fragment MmaSyncFragments::load(Value memref, ValueRange at, int64_t lead) {
  // elements[half][r][k]: accumulator `half`'s (row g + 8r, column 2t + k).
  Value elements[2][2][2];
  auto access = [&](Value r, Value col, VectorType type) {
    Value v = vector::LoadOp::create(e.b, e.loc, type, memref,
                                     elementIndices(memref, at, r, col, lead),
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(type.getNumElements() * 4));
    SmallVector<Value> floats;
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      floats.push_back(vector::ExtractOp::create(e.b, e.loc, v, i));
    return floats;
  };
  for (int64_t r = 0; r < 2; ++r) {
    Value rowIndex = e.add(group, r * 8);
    if (paired) {
      // Columns 4t..4t+3: (half 0, k 0), (1, 0), (0, 1), (1, 1).
      SmallVector<Value> floats = access(rowIndex, e.mul(inGroup, 4), quad);
      for (int64_t i = 0; i < 4; ++i)
        elements[i % 2][r][i / 2] = floats[i];
      continue;
    }
    for (int64_t half = 0; half < 2; ++half) {
      SmallVector<Value> floats = access(rowIndex, e.add(e.mul(inGroup, 2), half * 8), pair);
      for (int64_t k = 0; k < 2; ++k)
        elements[half][r][k] = floats[k];
    }
  }
  Fragment tile;
  for (auto &half : elements)
    tile.push_back(gather(typeC, {half[0][0], half[0][1], half[1][0], half[1][1]}));
  return tile;
}

void MmaSyncFragments::store(const Fragment &tile, Value memref, ValueRange at, int64_t lead) {
  for (int64_t r = 0; r < 2; ++r) {
    Value rowIndex = e.add(group, r * 8);
    if (paired) {
      SmallVector<Value> floats;
      for (int64_t i = 0; i < 4; ++i)
        floats.push_back(
            vector::ExtractOp::create(e.b, e.loc, tile[i % 2], ArrayRef<int64_t>{r, i / 2}));
      vector::StoreOp::create(e.b, e.loc, gather(quad, floats), memref,
                              elementIndices(memref, at, rowIndex, e.mul(inGroup, 4), lead),
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
      continue;
    }
    for (int64_t half = 0; half < 2; ++half) {
      Value col = e.add(e.mul(inGroup, 2), half * 8);
      Value floats = vector::ExtractOp::create(e.b, e.loc, tile[half], r);
      vector::StoreOp::create(e.b, e.loc, floats, memref,
                              elementIndices(memref, at, rowIndex, col, lead),
                              /*nontemporal=*/false, llvm::MaybeAlign(8));
    }
  }
}

MmaSyncFragments::Fragment MmaSyncFragments::splat(Value scalar) {
  Value value = vector::BroadcastOp::create(e.b, e.loc, typeC, scalar);
  return {value, value};
}

MmaSyncFragments::Fragment MmaSyncFragments::add(const Fragment &x, const Fragment &y) {
  return {arith::AddFOp::create(e.b, e.loc, x[0], y[0]),
          arith::AddFOp::create(e.b, e.loc, x[1], y[1])};
}

Value MmaSyncFragments::loadFloat(Value tiles, Value index) {
  return roundToTF32(memref::LoadOp::create(e.b, e.loc, tiles, index));
}

// The operands' elements as the tensor cores take them: float32 rounded to
// TF32 once, as it is loaded; other types as they are.

// cvt.rna.tf32.f32 leaves a TF32 value in a 32-bit register; mma.sync's
// TF32 operands are those bits, as floats here.
Value MmaSyncFragments::roundToTF32(Value x) {
  if (!shape.tf32)
    return x;
  Value bits = NVVM::ConvertFloatToTF32Op::create(
      e.b, e.loc, e.b.getI32Type(), x,
      NVVM::FPRoundingModeAttr::get(e.b.getContext(), NVVM::FPRoundingMode::RNA));
  return arith::BitcastOp::create(e.b, e.loc, e.b.getF32Type(), bits);
}

/// ldmatrix.x4 with this lane's row at `address`: its 4 floats, rounded.
SmallVector<Value> MmaSyncFragments::loadMatrices(Value tiles, Value address) {
  Value fragment = nvgpu::LdMatrixOp::create(e.b, e.loc, typeA, tiles, ValueRange{address},
                                             /*transpose=*/false, /*numTiles=*/4);
  SmallVector<Value> elements;
  for (int64_t q = 0; q < 4; ++q)
    elements.push_back(
        roundToTF32(vector::ExtractOp::create(e.b, e.loc, fragment, ArrayRef<int64_t>{q, 0})));
  return elements;
}

Value MmaSyncFragments::gather(VectorType type, ArrayRef<Value> elements) {
  return vector::FromElementsOp::create(e.b, e.loc, type, elements);
}

WarpMma::Operand MmaSyncFragments::loadA(Value tiles, Value at, int64_t ld, bool rowsAreK) {
  SmallVector<Value> elements;
  if (!rowsAreK) {
    // Matrices 0-3: rows 0-7 and 8-15 at k 0-3, then at k 4-7; lane l
    // gives row l % 16 of k from 4 * (l / 16).
    Value address = e.add(at, e.add(e.mul(e.rem(lane, 16), ld), e.mul(e.div(lane, 16), 4)));
    return {gather(typeA, loadMatrices(tiles, address))};
  }
  // Rows of k: (g, t) at t * ld + g. With ld 8 more than a multiple of 32,
  // the warp's 32 floats are in 32 banks.
  Value first = e.add(at, e.add(e.mul(inGroup, ld), group));
  for (int64_t offset : {int64_t(0), int64_t(8), 4 * ld, 4 * ld + 8})
    elements.push_back(loadFloat(tiles, e.add(first, offset)));
  return {gather(typeA, elements)};
}

WarpMma::Operand MmaSyncFragments::loadB(Value tiles, Value at, int64_t ld, bool rowsAreN) {
  assert(rowsAreN != paired && "B's shared tiles as the fragments were made for");
  SmallVector<Value> elements; // Half 0's two, then half 1's.
  if (!paired) {
    // Rows of n. Matrices 0-3: n 0-7 at k 0-3 and k 4-7, then n 8-15
    // likewise; lane l gives row l % 8 + 8 * (l / 16) of k from
    // 4 * (l / 8 % 2).
    Value rowOf = e.add(e.rem(lane, 8), e.mul(e.div(lane, 16), 8));
    Value address = e.add(at, e.add(e.mul(rowOf, ld), e.mul(e.rem(e.div(lane, 8), 2), 4)));
    elements = loadMatrices(tiles, address);
  } else {
    // Rows of k, columns paired: (t, 2g) and (t, 2g + 1) at t * ld + 2g,
    // then 4 rows on. With ld 8 more than a multiple of 32, each half-warp's
    // 8-byte loads fall in 32 different banks.
    Value first = e.add(at, e.add(e.mul(inGroup, ld), e.mul(group, 2)));
    Value byK[2][2]; // [k 0 or 4][half]
    for (int64_t k = 0; k < 2; ++k) {
      Value floats = vector::LoadOp::create(e.b, e.loc, pair, tiles, e.add(first, k * 4 * ld),
                                            /*nontemporal=*/false, llvm::MaybeAlign(8));
      for (int64_t half = 0; half < 2; ++half)
        byK[k][half] = roundToTF32(vector::ExtractOp::create(e.b, e.loc, floats, half));
    }
    elements = {byK[0][0], byK[1][0], byK[0][1], byK[1][1]};
  }
  return {gather(typeB, ArrayRef(elements).take_front(2)),
          gather(typeB, ArrayRef(elements).drop_front(2))};
}

MmaSyncFragments::Fragment MmaSyncFragments::multiply(const Operand &a, const Operand &b,
                                                       const Fragment &acc) {
  Fragment sum;
  for (int64_t half = 0; half < 2; ++half)
    sum.push_back(nvgpu::MmaSyncOp::create(e.b, e.loc, a[0], b[half], acc[half],
                                           ArrayRef<int64_t>{shape.m, shape.n, shape.k},
                                           /*tf32Enabled=*/shape.tf32));
  return sum;
}
