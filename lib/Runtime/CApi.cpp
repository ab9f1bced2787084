//===- CApi.cpp - fa_runtime.h on top of the C++ API ----------------------===//
//
// Each entry point converts its arguments, calls the C++ API and turns a
// Status into an fa_status plus a thread-local message. Exceptions (only
// std::bad_alloc can arise) are caught here so none crosses the C boundary.
//
//===----------------------------------------------------------------------===//
#include "fa/Runtime/fa_runtime.h"

#include "Driver.h"
#include "fa/Runtime/DeviceMemory.h"
#include "fa/Runtime/Sequence.h"

#include <exception>

using namespace fa::runtime;

// A plain bundle is held as the one-kernel Sequence of it.
struct fa_bundle {
  std::unique_ptr<Sequence> seq;
  std::string requiredOperands;
};

namespace {

thread_local std::string lastError;

int finish(const Status &s) {
  lastError = s.ok() ? std::string() : s.message();
  return static_cast<int>(s.code());
}

int invalidArgument(const std::string &what) {
  return finish(Status::error(ErrorCode::InvalidArgument, what));
}

template <typename Fn> int guarded(Fn &&fn) {
  try {
    return fn();
  } catch (const std::exception &e) {
    return finish(Status::error(ErrorCode::Internal,
                                std::string("internal error: ") + e.what()));
  } catch (...) {
    return finish(Status::error(ErrorCode::Internal, "internal error"));
  }
}

Status toTensorArgs(const fa_tensor *tensors, int n,
                    std::vector<TensorArg> &out) {
  if (n < 0 || (n > 0 && !tensors))
    return Status::error(ErrorCode::InvalidArgument,
                         "tensors is null or num_tensors is negative");
  for (int i = 0; i < n; ++i) {
    const fa_tensor &t = tensors[i];
    std::string which = "tensors[" + std::to_string(i) + "]";
    if (!t.role)
      return Status::error(ErrorCode::InvalidArgument, which + ": role is null");
    if (t.rank < 0 || t.rank > FA_MAX_RANK)
      return Status::error(ErrorCode::InvalidArgument,
                           which + " ('" + t.role + "'): rank " +
                               std::to_string(t.rank) + " is not in [0, " +
                               std::to_string(FA_MAX_RANK) + "]");
    std::optional<DType> dtype = dtypeFromInt(t.dtype);
    if (!dtype)
      return Status::error(ErrorCode::InvalidArgument,
                           which + " ('" + t.role + "'): unknown dtype value " +
                               std::to_string(t.dtype));
    TensorArg arg;
    arg.role = t.role;
    arg.data = reinterpret_cast<uint64_t>(t.data);
    arg.dtype = *dtype;
    arg.sizes.assign(t.sizes, t.sizes + t.rank);
    arg.strides.assign(t.strides, t.strides + t.rank);
    out.push_back(std::move(arg));
  }
  return Status::success();
}

} // namespace

extern "C" {

const char *fa_last_error(void) { return lastError.c_str(); }

const char *fa_status_name(int status) {
  if (status < 0 || status > static_cast<int>(ErrorCode::Internal))
    return "FA_ERROR_UNKNOWN";
  return errorCodeName(static_cast<ErrorCode>(status));
}

int fa_runtime_abi_version(void) { return FA_RUNTIME_ABI_VERSION; }
int fa_bundle_format_version(void) { return kBundleFormatVersion; }

const char *fa_dtype_name(int32_t dtype) {
  std::optional<DType> d = dtypeFromInt(dtype);
  return d ? dtypeName(*d) : nullptr;
}

int fa_dtype_from_name(const char *name, int32_t *out) {
  return guarded([&] {
    if (!name || !out)
      return invalidArgument("fa_dtype_from_name: null argument");
    std::optional<DType> d = parseDType(name);
    if (!d)
      return invalidArgument(std::string("unknown dtype \"") + name +
                             "\" (known: " + dtypeNameList() + ")");
    *out = static_cast<int32_t>(*d);
    return finish(Status::success());
  });
}

namespace {

/// Hands `seq` to the caller as an fa_bundle handle.
int giveHandle(std::unique_ptr<Sequence> seq, fa_bundle **out) {
  auto handle = std::make_unique<fa_bundle>();
  handle->seq = std::move(seq);
  for (const auto &r : handle->seq->requiredOperands())
    handle->requiredOperands +=
        (handle->requiredOperands.empty() ? "" : ",") + r;
  *out = handle.release();
  return finish(Status::success());
}

} // namespace

int fa_bundle_load(const char *json_path, fa_bundle **out) {
  return guarded([&] {
    if (!json_path || !out)
      return invalidArgument("fa_bundle_load: null argument");
    *out = nullptr;
    Expected<std::unique_ptr<Sequence>> b = Sequence::load(json_path);
    if (!b.ok())
      return finish(b.status());
    return giveHandle(std::move(*b), out);
  });
}

int fa_bundle_load_from_memory(const char *json, size_t json_len,
                               const void *image, size_t image_len,
                               fa_bundle **out) {
  return guarded([&] {
    if (!json || !image || !out)
      return invalidArgument("fa_bundle_load_from_memory: null argument");
    *out = nullptr;
    if (json_len > kMaxBundleJsonBytes || image_len > kMaxImageBytes)
      return invalidArgument("fa_bundle_load_from_memory: json_len " +
                             std::to_string(json_len) + " or image_len " +
                             std::to_string(image_len) +
                             " is over the loader's limit");
    Expected<std::unique_ptr<Bundle>> b = Bundle::fromMemory(
        std::string(json, json_len), "",
        std::string(static_cast<const char *>(image), image_len));
    if (!b.ok())
      return finish(b.status().withContext("bundle in memory"));
    return giveHandle(Sequence::single(std::move(*b)), out);
  });
}

void fa_bundle_free(fa_bundle *bundle) {
  try {
    delete bundle;
  } catch (...) {
  }
}

const char *fa_bundle_kernel_name(const fa_bundle *b) {
  return b ? b->seq->kernelNames().c_str() : "";
}
const char *fa_bundle_op(const fa_bundle *b) {
  return b ? b->seq->op().c_str() : "";
}
const char *fa_bundle_chip(const fa_bundle *b) {
  return b ? b->seq->chip().c_str() : "";
}
const char *fa_bundle_config_json(const fa_bundle *b) {
  return b ? b->seq->configJson().c_str() : "";
}
const char *fa_bundle_json(const fa_bundle *b) {
  return b ? b->seq->json().c_str() : "";
}
const char *fa_bundle_workspace(const fa_bundle *b) {
  return b ? b->seq->workspaceJson().c_str() : "";
}
int fa_bundle_num_kernels(const fa_bundle *b) {
  return b ? static_cast<int>(b->seq->kernels().size()) : -1;
}
const char *fa_bundle_required_operands(const fa_bundle *b) {
  return b ? b->requiredOperands.c_str() : "";
}
int fa_bundle_num_params(const fa_bundle *b) {
  return b ? static_cast<int>(b->seq->numParams()) : -1;
}

int fa_bundle_check(const fa_bundle *bundle, const fa_tensor *tensors,
                    int num_tensors, int num_sms, uint32_t *grid_out) {
  return guarded([&] {
    if (!bundle)
      return invalidArgument("fa_bundle_check: null bundle");
    std::vector<TensorArg> args;
    Status s = toTensorArgs(tensors, num_tensors, args);
    if (!s.ok())
      return finish(s);
    Expected<std::array<uint32_t, 3>> grid = bundle->seq->check(args, num_sms);
    if (!grid.ok())
      return finish(grid.status());
    if (grid_out)
      for (int i = 0; i < 3; ++i)
        grid_out[i] = (*grid)[i];
    return finish(Status::success());
  });
}

int fa_bundle_workspace_bytes(const fa_bundle *bundle,
                              const fa_tensor *tensors, int num_tensors,
                              int64_t *bytes) {
  return guarded([&] {
    if (!bundle || !bytes)
      return invalidArgument("fa_bundle_workspace_bytes: null argument");
    *bytes = 0;
    std::vector<TensorArg> args;
    Status s = toTensorArgs(tensors, num_tensors, args);
    if (!s.ok())
      return finish(s);
    Expected<int64_t> total = bundle->seq->workspaceBytes(args, -1);
    if (!total.ok())
      return finish(total.status());
    *bytes = *total;
    return finish(Status::success());
  });
}

int fa_bundle_launch(fa_bundle *bundle, const fa_tensor *tensors,
                     int num_tensors, void *stream) {
  return guarded([&] {
    if (!bundle)
      return invalidArgument("fa_bundle_launch: null bundle");
    std::vector<TensorArg> args;
    Status s = toTensorArgs(tensors, num_tensors, args);
    if (!s.ok())
      return finish(s);
    return finish(bundle->seq->launch(args, stream));
  });
}

int fa_device_alloc(size_t bytes, void *stream, void **out) {
  return guarded([&] {
    if (!out)
      return invalidArgument("fa_device_alloc: null out");
    *out = nullptr;
    Expected<void *> ptr = deviceAlloc(bytes, stream);
    if (!ptr.ok())
      return finish(ptr.status());
    *out = *ptr;
    return finish(Status::success());
  });
}

int fa_device_free(void *ptr, void *stream) {
  return guarded([&] { return finish(deviceFree(ptr, stream)); });
}

int fa_copy_to_device(void *dst, const void *src, size_t bytes, void *stream) {
  return guarded([&] {
    if ((!dst || !src) && bytes)
      return invalidArgument("fa_copy_to_device: null pointer");
    return finish(copyToDevice(dst, src, bytes, stream));
  });
}

int fa_copy_to_host(void *dst, const void *src, size_t bytes, void *stream) {
  return guarded([&] {
    if ((!dst || !src) && bytes)
      return invalidArgument("fa_copy_to_host: null pointer");
    return finish(copyToHost(dst, src, bytes, stream));
  });
}

int fa_stream_synchronize(void *stream) {
  return guarded([&] { return finish(synchronize(stream)); });
}

int fa_driver_check(int *num_devices) {
  return guarded([&] {
    if (num_devices)
      *num_devices = 0;
    Expected<Driver *> d = Driver::get();
    if (!d.ok())
      return finish(d.status());
    int count = 0;
    Status s = (*d)->check((*d)->cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (!s.ok())
      return finish(s);
    if (num_devices)
      *num_devices = count;
    if (count == 0)
      return finish(Status::error(ErrorCode::NoDevice,
                                  "the CUDA driver reports no GPU"));
    return finish(Status::success());
  });
}

} // extern "C"
