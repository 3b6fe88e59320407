//===- RowKernels.h - a block per row of a fused row group -----*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; RowKernels.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_ROWKERNELS_H
#define INFER_OPT_LIB_CODEGEN_CUDA_ROWKERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::infer {

/// The launch of a row kernel: a block of `blockSize` threads per point of
/// the kernel's scf.forall (`rows`); `workgroup` are the shared-memory
/// buffers: the loop body's allocations (a row's intermediates), in order,
/// then one scratch buffer per block reduction.
struct RowKernelPlan {
  SmallVector<int64_t> rows;
  int64_t gridSize = 0, blockSize = 0;
  SmallVector<Type> workgroup;
  unsigned allocations = 0;
};

/// A plan if `kernel` (outlined, on memrefs) is one scf.forall over rows
/// whose body this file can map (what infer-cuda-fuse-rows makes).
std::optional<RowKernelPlan> planRowKernel(func::FuncOp kernel);

/// Replaces `forall` (the clone of the kernel's loop in a gpu.func) by the
/// block-per-row code; `workgroup` are the gpu.func's workgroup buffers
/// of plan.workgroup.
LogicalResult buildRowKernel(OpBuilder &b, scf::ForallOp forall, const RowKernelPlan &plan,
                             ValueRange workgroup);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_ROWKERNELS_H
