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

#include <cstddef>

namespace fa::runtime {

Expected<void *> deviceAlloc(size_t bytes, void *stream);
Status deviceFree(void *ptr, void *stream);
Status copyToDevice(void *dst, const void *src, size_t bytes, void *stream);
Status copyToHost(void *dst, const void *src, size_t bytes, void *stream);
Status synchronize(void *stream);

} // namespace fa::runtime

#endif // FA_RUNTIME_DEVICEMEMORY_H
