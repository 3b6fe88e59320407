//===- Binary.h - PTX to cubins with the toolkit's ptxas --------*- C++ -*-===//
//
// The last phase of the CUDA back end (lib/Codegen/CUDA/Binary): LLVM's PTX
// for the lowest architecture asked for, assembled by ptxas into a cubin
// for each.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_CUDA_BINARY_H
#define INFER_OPT_CODEGEN_CUDA_BINARY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::infer {

/// ptxas: $CUDA_PATH/bin when CUDA_PATH is set, else PATH, then
/// /usr/local/cuda/bin; empty with `error` set if none.
std::string findPtxas(std::string &error);

/// Assembles `ptx` for `arch`; returns false with `log` holding ptxas's
/// message on failure. `log` gets the resource report (-v) otherwise. The
/// kernels that ptxas spills are assembled again with `.minnctapersm 1`
/// (withOneBlockPerSM), and that cubin is kept if fewer kernels spill.
bool assemblePTX(const std::string &ptxas, const std::string &ptx, const std::string &arch,
                 std::string &cubin, std::string &log);

/// The kernels that a ptxas -v --warn-on-spills report says spill registers.
llvm::SmallVector<std::string> spillingKernels(llvm::StringRef log);

/// `ptx` with `.minnctapersm 1` among the directives of each entry named in
/// `kernels` that has none (PTX's form of nvvm.minctasm).
std::string withOneBlockPerSM(llvm::StringRef ptx, llvm::ArrayRef<std::string> kernels);

/// `ptx` with a cvt.rna.tf32.f32 in place on each register of each TF32 A
/// or B fragment load (wmma.load.{a,b}...tf32), right after the load
/// (RoundTF32.cpp): the tensor cores get TF32 values rounded to nearest,
/// not float32 bits to truncate.
std::string withTF32Rounding(llvm::StringRef ptx);

/// The number of a CUDA architecture's name: "sm_90" -> 90 (its leading
/// digits: "sm_90a" -> 90), 0 for a name that is no sm_ one.
unsigned cudaArchNumber(llvm::StringRef arch);

/// `ptx` (LLVM's, for the lowest architecture asked for) as ptxas gets it
/// for `arch` ("sm_90"): from sm_90 on, its TF32 conversions round to
/// nearest even (cvt.rn.tf32.f32, one instruction there, where
/// cvt.rna.tf32.f32 is two) and its .target is at least sm_90, which
/// cvt.rn.tf32 requires; for older architectures, or a PTX without TF32
/// conversions, `ptx` as it is (RoundTF32.cpp).
std::string ptxForArchitecture(llvm::StringRef ptx, llvm::StringRef arch);

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_CUDA_BINARY_H
