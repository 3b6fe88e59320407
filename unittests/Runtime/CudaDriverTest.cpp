//===- CudaDriverTest.cpp - the runtime's CUDA constants against cuda.h ---===//
//
// The runtime declares the few driver types and constants it uses itself
// (it must build without the toolkit); where the toolkit's cuda.h is
// installed, this checks them against it.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <gtest/gtest.h>

#if __has_include(<cuda.h>)
#include <cuda.h>

TEST(CudaDriver, ConstantsMatchCudaHeader) {
  using namespace inferrt::cu;
  EXPECT_EQ(kSuccess, CUDA_SUCCESS);
  EXPECT_EQ(kOutOfMemory, CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(kAttrComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  EXPECT_EQ(kAttrComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  EXPECT_EQ(kStreamNonBlocking, static_cast<unsigned>(CU_STREAM_NON_BLOCKING));
  EXPECT_EQ(kCaptureModeThreadLocal, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  EXPECT_EQ(kFuncAttrMaxDynamicSharedBytes, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  EXPECT_EQ(kJitErrorLogBuffer, CU_JIT_ERROR_LOG_BUFFER);
  EXPECT_EQ(kJitErrorLogBufferSize, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  EXPECT_EQ(sizeof(DevicePtr), sizeof(CUdeviceptr));
  EXPECT_EQ(sizeof(Device), sizeof(CUdevice));
}
#else
TEST(CudaDriver, ConstantsMatchCudaHeader) { GTEST_SKIP() << "cuda.h not installed"; }
#endif
