//===- RoundTF32.cpp - tensor-core inputs rounded to TF32, not truncated ---===//
//
// The tensor-core kernels load float32 A and B fragments with
// wmma.load.{a,b}...tf32 and multiply them with wmma.mma...tf32, which
// expect TF32 values in those registers: CUDA's WMMA API converts each
// element with __float_to_tf32 (cvt.rna.tf32.f32: round to nearest, ties
// away from zero) first, as CUTLASS does. Raw float32 bits are no TF32
// values: what the tensor cores make of the 13 low mantissa bits is not
// specified, but ptxas assembles cvt.rna.tf32.f32 as an add of half a TF32
// ulp with no masking after it, relying on HMMA to drop them: truncation
// toward zero. Truncation biases every product low by half a TF32 ulp on
// average, and over a network's depth that bias adds up where rounding
// errors cancel: a deep CNN may end up to an order of magnitude farther
// from float32 truncated than rounded (the kernel emulator's TF32 modes,
// scripts/infer_tools/gpu_emulator/, tf32="truncate" or "rna", show it).
//
// The conversions go into the PTX that LLVM made, one after each A or B
// fragment load, in place on its registers: added before LLVM's
// optimizations (as nvvm.convert.float.to.tf32 ops), their cost makes LLVM
// stop unrolling the k loops of many kernels fully, which changes how far
// ahead ptxas can start the next steps' loads in kernels bound by memory
// latency.
//
// The staged kernels' mma.sync path (MmaSync.cpp) converts its fragments'
// elements itself, with the same instruction.
//
// What ptxas makes of cvt.rna.tf32.f32 is two instructions an element (an
// FSETP that the value is finite, and a predicated IADD of half a TF32 ulp),
// as many as the tensor-core products in a kernel with warps of 4 x 4
// fragments. From sm_90 on, cvt.rn.tf32.f32 is one (F2FP.TF32.F32.PACK_B),
// so ptxForArchitecture gives the cubins for sm_90 and newer that
// conversion (and a .target of sm_90 at least) instead: round to nearest
// even, which differs from ties away from zero only on an exact tie (the 13
// dropped bits 0x1000), and is the unbiased one. The PTX in the engine (for
// GPUs newer than any cubin) keeps cvt.rna, which every architecture from
// sm_80 has.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/Binary.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

std::string mlir::infer::withTF32Rounding(llvm::StringRef ptx) {
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  std::string result;
  result.reserve(ptx.size() + ptx.size() / 8);
  for (auto [index, line] : llvm::enumerate(lines)) {
    if (index)
      result += '\n';
    result += line;
    // e.g. "\t@%p1 wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 \t{%r1, ...}, [%rd2], %r3;"
    auto isSpace = [](char c) { return c == ' ' || c == '\t'; };
    llvm::StringRef text = line.ltrim();
    llvm::StringRef indent = line.take_front(line.size() - text.size());
    llvm::StringRef predicate;
    if (text.starts_with("@")) {
      predicate = text.take_until(isSpace);
      text = text.drop_front(predicate.size()).ltrim();
    }
    llvm::StringRef opcode = text.take_until(isSpace);
    if (!(opcode.starts_with("wmma.load.a.") || opcode.starts_with("wmma.load.b.")) ||
        !opcode.ends_with(".tf32"))
      continue;
    size_t open = text.find('{'), close = text.find('}');
    if (open == llvm::StringRef::npos || close == llvm::StringRef::npos || close < open)
      continue;
    llvm::SmallVector<llvm::StringRef> registers;
    text.slice(open + 1, close).split(registers, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef reg : registers) {
      reg = reg.trim();
      result += "\n" + indent.str() + (predicate.empty() ? "" : predicate.str() + " ") +
                "cvt.rna.tf32.f32 \t" + reg.str() + ", " + reg.str() + ";";
    }
  }
  return result;
}

std::string mlir::infer::ptxForArchitecture(llvm::StringRef ptx, llvm::StringRef arch) {
  static constexpr llvm::StringLiteral kAway = "cvt.rna.tf32.f32", kEven = "cvt.rn.tf32.f32";
  if (cudaArchNumber(arch) < 90 || !ptx.contains(kAway))
    return ptx.str();
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  std::string result;
  result.reserve(ptx.size());
  for (auto [index, line] : llvm::enumerate(lines)) {
    if (index)
      result += '\n';
    llvm::StringRef text = line.ltrim();
    // cvt.rn.tf32 wants .target sm_90 or newer; a newer one stays (the PTX
    // .version is LLVM's for it, and may be too old for `arch` itself).
    if (text.starts_with(".target ") && cudaArchNumber(text.drop_front(8).trim()) < 90) {
      result += line.take_front(line.size() - text.size()).str() + ".target sm_90";
      continue;
    }
    size_t at = line.find(kAway);
    if (at == llvm::StringRef::npos) {
      result += line;
      continue;
    }
    result += line.take_front(at);
    result += kEven;
    result += line.drop_front(at + kAway.size());
  }
  return result;
}
