#pragma once
// Error checks: a failed CUDA runtime or cuBLASLt call prints file:line, the call and the error
// string, and exits with status 1. Benchmarks have nothing to recover to.

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    const cudaError_t ovs_status_ = (call);                                                \
    if (ovs_status_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: CUDA error %s: %s (in %s)\n", __FILE__, __LINE__,       \
                   cudaGetErrorName(ovs_status_), cudaGetErrorString(ovs_status_), #call); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

#define CUBLAS_CHECK(call)                                                                   \
  do {                                                                                       \
    const cublasStatus_t ovs_status_ = (call);                                               \
    if (ovs_status_ != CUBLAS_STATUS_SUCCESS) {                                              \
      std::fprintf(stderr, "%s:%d: cuBLASLt error %s: %s (in %s)\n", __FILE__, __LINE__,     \
                   cublasLtGetStatusName(ovs_status_), cublasLtGetStatusString(ovs_status_), \
                   #call);                                                                   \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

// After a kernel launch: reports launch-configuration errors at the launch site.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
