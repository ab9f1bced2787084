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

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  out.reserve(out.size() + static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const fa_tensor &t = tensors[i];
    auto which = [i] { return "tensors[" + std::to_string(i) + "]"; };
    if (!t.role)
      return Status::error(ErrorCode::InvalidArgument,
                           which() + ": role is null");
    if (t.rank < 0 || t.rank > FA_MAX_RANK)
      return Status::error(ErrorCode::InvalidArgument,
                           which() + " ('" + t.role + "'): rank " +
                               std::to_string(t.rank) + " is not in [0, " +
                               std::to_string(FA_MAX_RANK) + "]");
    std::optional<DType> dtype = dtypeFromInt(t.dtype);
    if (!dtype)
      return Status::error(ErrorCode::InvalidArgument,
                           which() + " ('" + t.role +
                               "'): unknown dtype value " +
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

} // extern "C"

namespace {

/// The operands of fa_launch_embedded: `words` decoded into fa_tensors
/// (host addresses) and directions.
Status decodeHostOperands(const char *roles, int64_t n, const int64_t *words,
                          std::vector<TensorArg> &args,
                          std::vector<Direction> &directions) {
  if (!roles || n < 0 || (n > 0 && !words))
    return Status::error(ErrorCode::InvalidArgument,
                         "fa_launch_embedded: null roles or operand words");
  std::vector<std::string> names;
  for (const char *p = roles;; ++p) {
    const char *end = std::strchr(p, ',');
    names.emplace_back(p, end ? end - p : std::strlen(p));
    if (!end)
      break;
    p = end;
  }
  if (int64_t(names.size()) != n)
    return Status::error(ErrorCode::InvalidArgument,
                         "fa_launch_embedded: " + std::to_string(names.size()) +
                             " roles for " + std::to_string(n) + " operands");
  std::vector<fa_tensor> tensors(n);
  const int64_t *w = words;
  for (int64_t i = 0; i < n; ++i) {
    fa_tensor &t = tensors[i];
    std::memset(&t, 0, sizeof t);
    t.role = names[i].c_str();
    t.data = reinterpret_cast<void *>(static_cast<uintptr_t>(w[0]));
    t.dtype = static_cast<int32_t>(w[1]);
    int64_t direction = w[2], rank = w[3];
    if (direction < 1 || direction > 3 || rank < 0 || rank > FA_MAX_RANK)
      return Status::error(ErrorCode::InvalidArgument,
                           "fa_launch_embedded: operand '" + names[i] +
                               "' has direction " + std::to_string(direction) +
                               " and rank " + std::to_string(rank));
    t.rank = static_cast<int32_t>(rank);
    std::copy(w + 4, w + 4 + rank, t.sizes);
    std::copy(w + 4 + rank, w + 4 + 2 * rank, t.strides);
    directions.push_back(static_cast<Direction>(direction));
    w += 4 + 2 * rank;
  }
  return toTensorArgs(tensors.data(), static_cast<int>(n), args);
}

/// The bundle of a call site, loaded at its first call.
Status cachedBundle(const char *json, int64_t jsonLen, const void *image,
                    int64_t imageLen, void **cache, fa_bundle *&bundle) {
  bundle = static_cast<fa_bundle *>(__atomic_load_n(cache, __ATOMIC_ACQUIRE));
  if (bundle)
    return Status::success();
  if (jsonLen < 0 || imageLen < 0 ||
      fa_bundle_load_from_memory(json, size_t(jsonLen), image, size_t(imageLen),
                                 &bundle) != FA_OK)
    return Status::error(ErrorCode::InvalidBundle,
                         std::string("embedded bundle: ") + fa_last_error());
  void *expected = nullptr;
  if (!__atomic_compare_exchange_n(cache, &expected, bundle, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    fa_bundle_free(bundle); // another thread loaded it first
    bundle = static_cast<fa_bundle *>(expected);
  }
  return Status::success();
}

} // namespace

extern "C" {

int fa_launch_embedded(const char *json, int64_t json_len, const void *image,
                       int64_t image_len, void **cache, const char *roles,
                       int64_t num_operands, const int64_t *words) {
  return guarded([&] {
    if (!json || !image || !cache)
      return invalidArgument("fa_launch_embedded: null argument");
    std::vector<TensorArg> args;
    std::vector<Direction> directions;
    Status s = decodeHostOperands(roles, num_operands, words, args, directions);
    if (!s.ok())
      return finish(s);
    fa_bundle *bundle = nullptr;
    s = cachedBundle(json, json_len, image, image_len, cache, bundle);
    if (!s.ok())
      return finish(s);
    return finish(
        launchOnHostBuffers(*bundle->seq, std::move(args), directions, nullptr)
            .withContext(bundle->seq->kernelNames()));
  });
}

void fa_launch_embedded_or_abort(const char *json, int64_t json_len,
                                 const void *image, int64_t image_len,
                                 void **cache, const char *roles,
                                 int64_t num_operands, const int64_t *words) {
  if (fa_launch_embedded(json, json_len, image, image_len, cache, roles,
                         num_operands, words) == FA_OK)
    return;
  std::fprintf(stderr, "fa-mlir runtime: %s\n", fa_last_error());
  std::abort();
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
