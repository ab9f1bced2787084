//===- DeviceMemory.h - Device buffers through the runtime's driver -*- C++
//-*-===//
//
// For host programs that have no CUDA of their own (a compiled MLIR program
// that calls the runtime to run its attention): allocate, copy and free
// device memory with the driver the runtime opened. Each call runs in the
// context a launch on `stream` would (the stream's, else the current one,
// else device 0's primary one) and is asynchronous on `stream`, like the
// launch; synchronize() waits for the stream.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_DEVICEMEMORY_H
#define FA_RUNTIME_DEVICEMEMORY_H

#include "fa/Runtime/Status.h"
#include "fa/Runtime/Tensor.h"

#include <cstddef>
#include <vector>

namespace fa::runtime {

class Sequence;

Expected<void *> deviceAlloc(size_t bytes, void *stream);
Status deviceFree(void *ptr, void *stream);
Status copyToDevice(void *dst, const void *src, size_t bytes, void *stream);
Status copyToHost(void *dst, const void *src, size_t bytes, void *stream);
Status synchronize(void *stream);

/// What the kernel does with an operand of launchOnHostBuffers.
enum class Direction : int32_t { In = 1, Out = 2, InOut = 3 };

/// Runs `kernels` on operands in host memory (`data` a host address): the
/// operands are checked first (without the GPU), then device buffers of each
/// operand's extent are allocated, the In/InOut ones copied
/// in, the kernels launched, the Out/InOut ones copied back, and the stream
/// synchronized and the buffers freed before it returns (on every path).
/// For compiled programs whose tensors live on the host
/// (convert-fa-to-runtime-calls).
Status launchOnHostBuffers(Sequence &kernels, std::vector<TensorArg> operands,
                           const std::vector<Direction> &directions,
                           void *stream);

} // namespace fa::runtime

#endif // FA_RUNTIME_DEVICEMEMORY_H
