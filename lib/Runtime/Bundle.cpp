//===- Bundle.cpp - Load a kernel bundle and launch it --------------------===//
#include "fa/Runtime/Bundle.h"

#include "Driver.h"
#include "Files.h"
#include "PlanCache.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fa::runtime {

struct Bundle::ContextState {
  Driver *driver = nullptr;
  cu::CUcontext ctx = nullptr;
  cu::CUmodule module = nullptr;
  cu::CUfunction function = nullptr;
  cu::CUdevice device = 0;
  int numSms = 0;
};

namespace detail {

/// Reads a whole regular file of at most `limit` bytes. Anything else (a
/// device such as /dev/zero, a FIFO, a directory, a huge file) is an error
/// rather than a read that never ends or exhausts memory.
Status readFile(const std::string &path, uint64_t limit, std::string &out) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return Status::error(ErrorCode::Io, "cannot read '" + path +
                                            "': " + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return Status::error(ErrorCode::Io, "cannot stat '" + path +
                                            "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Status::error(ErrorCode::Io,
                         "'" + path + "' is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > limit)
    return Status::error(ErrorCode::Io,
                         "'" + path + "' has " + std::to_string(st.st_size) +
                             " bytes; at most " + std::to_string(limit) +
                             " are allowed");
  out.clear();
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Status::error(ErrorCode::Io, "error while reading '" + path +
                                              "': " + std::strerror(errno));
    if (n == 0)
      return Status::success();
    // The file may grow after fstat: the limit holds for what is read.
    if (out.size() + static_cast<uint64_t>(n) > limit)
      return Status::error(ErrorCode::Io, "'" + path + "' grew past " +
                                              std::to_string(limit) +
                                              " bytes while being read");
    out.append(buf, static_cast<size_t>(n));
  }
}

std::string dirName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace detail

using namespace detail;

namespace {

template <typename T, size_t N>
std::string listOf(const std::array<T, N> &values, uint32_t count) {
  std::string out = "{";
  for (uint32_t i = 0; i < count; ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "}";
}

std::string describe(const TensorMapRequest &r) {
  char address[32];
  std::snprintf(address, sizeof(address), "0x%" PRIx64, r.globalAddress);
  return "data type " + std::to_string(r.dataType) + ", rank " +
         std::to_string(r.rank) + ", address " + address + ", dims " +
         listOf(r.globalDim, r.rank) + ", strides (bytes) " +
         listOf(r.globalStrides, r.rank > 0 ? r.rank - 1 : 0) + ", box " +
         listOf(r.boxDim, r.rank) + ", swizzle " + std::to_string(r.swizzle);
}

bool chipRunsOn(const BundleSpec &spec, int major, int minor) {
  if (spec.chipMajor != major)
    return false;
  // "a" (arch-specific) images run on exactly that chip; plain and "f"
  // (family) images also run on later minors of the same major.
  return spec.chipSuffix == 'a' ? minor == spec.chipMinor
                                : minor >= spec.chipMinor;
}

} // namespace

Expected<std::unique_ptr<Bundle>> Bundle::load(const std::string &jsonPath) {
  std::string text;
  Status s = readFile(jsonPath, kMaxBundleJsonBytes, text);
  if (!s.ok())
    return s;
  std::string baseDir = dirName(jsonPath);
  Expected<BundleSpec> spec = parseBundleSpec(text, baseDir);
  if (!spec.ok())
    return spec.status().withContext("bundle '" + jsonPath + "'");
  std::string cubin;
  s = readFile(spec->cubinPath, kMaxImageBytes, cubin);
  if (!s.ok())
    return s.withContext("bundle '" + jsonPath + "': field \"cubin\"");
  Expected<std::unique_ptr<Bundle>> bundle =
      fromMemory(text, baseDir, std::move(cubin));
  if (!bundle.ok())
    return bundle.status().withContext("bundle '" + jsonPath + "'");
  (*bundle)->spec_.jsonPath = jsonPath;
  return bundle;
}

Expected<std::unique_ptr<Bundle>>
Bundle::fromMemory(const std::string &jsonText, const std::string &baseDir,
                   std::string cubin) {
  Expected<BundleSpec> spec = parseBundleSpec(jsonText, baseDir);
  if (!spec.ok())
    return spec.status();
  FA_RETURN_IF_ERROR(checkCubinImage(cubin, spec->kernel, spec->cubinPath));
  std::unique_ptr<Bundle> bundle(new Bundle());
  bundle->spec_ = std::move(*spec);
  bundle->plans_ =
      std::make_unique<PlanCache<PlanTemplate>>(alignmentBits(bundle->spec_));
  bundle->cubin_ = std::move(cubin);
  return bundle;
}

Bundle::~Bundle() {
  for (auto &state : contexts_) {
    // Errors are ignored: the context may be gone, or the driver shut down at
    // process exit; either way the module is gone with it.
    ContextGuard guard(*state->driver, state->ctx);
    if (guard.status().ok())
      (void)state->driver->cuModuleUnload(state->module);
  }
}

Bundle::Bundle() = default;

namespace {

std::vector<uint64_t> addressesOf(const std::vector<TensorArg> &tensors) {
  std::vector<uint64_t> out;
  out.reserve(tensors.size());
  for (const TensorArg &t : tensors)
    out.push_back(t.data);
  return out;
}

} // namespace

Expected<LaunchPlan> Bundle::plan(const std::vector<TensorArg> &tensors,
                                  int64_t numSms,
                                  const TensorMapEncoder &encoder) const {
  if (std::shared_ptr<const PlanTemplate> made = plans_->find(tensors, numSms))
    return fromTemplate(*made, addressesOf(tensors), encoder);
  std::shared_ptr<const PlanTemplate> made;
  Expected<LaunchPlan> plan = planFully(tensors, numSms, encoder, made);
  if (plan.ok())
    plans_->insert(tensors, numSms, std::move(made));
  return plan;
}

Expected<LaunchPlan>
Bundle::planFully(const std::vector<TensorArg> &tensors, int64_t numSms,
                  const TensorMapEncoder &encoder,
                  std::shared_ptr<const PlanTemplate> &made) const {
  LaunchPlan plan;
  Expected<OperandSet> operands = checkOperands(spec_, tensors, numSms);
  if (!operands.ok())
    return operands.status();
  Expected<std::array<uint32_t, 3>> grid = evalGrid(spec_, operands->symbols);
  if (!grid.ok())
    return grid.status();
  plan.grid = *grid;
  plan.empty = plan.grid[0] == 0 || plan.grid[1] == 0 || plan.grid[2] == 0;
  auto t = std::make_shared<PlanTemplate>();
  t->grid = plan.grid;
  t->empty = plan.empty;
  made = t;
  if (plan.empty)
    return plan;
  for (int i = 0; i < 3; ++i)
    if (plan.grid[i] % spec_.cluster[i] != 0)
      return Status::error(ErrorCode::Tensor,
                           "grid[" + std::to_string(i) + "] = " +
                               std::to_string(plan.grid[i]) +
                               " is not a multiple of cluster[" +
                               std::to_string(i) + "] = " +
                               std::to_string(spec_.cluster[i]));
  Expected<PackedParams> params = packParams(spec_, *operands, encoder);
  if (!params.ok())
    return params.status();
  plan.params = std::move(*params);
  Expected<std::vector<AddressParam>> addresses =
      addressParams(spec_, *operands, tensors);
  if (!addresses.ok())
    return addresses.status();
  t->params = plan.params.clone();
  t->addressParams = std::move(*addresses);
  return plan;
}

Expected<LaunchPlan>
Bundle::fromTemplate(const PlanTemplate &made,
                     const std::vector<uint64_t> &addresses,
                     const TensorMapEncoder &encoder) const {
  LaunchPlan plan;
  plan.grid = made.grid;
  plan.empty = made.empty;
  if (plan.empty)
    return plan;
  plan.params = made.params.clone();
  FA_RETURN_IF_ERROR(repackAddresses(spec_, plan.params, made.addressParams,
                                     addresses, encoder));
  return plan;
}

Expected<Bundle::ContextState *> Bundle::contextState(void *driverPtr,
                                                      void *ctxPtr) {
  Driver &d = *static_cast<Driver *>(driverPtr);
  auto ctx = static_cast<cu::CUcontext>(ctxPtr);
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &state : contexts_)
    if (state->ctx == ctx && state->driver == &d)
      return state.get();

  auto state = std::make_unique<ContextState>();
  state->driver = &d;
  state->ctx = ctx;
  FA_RETURN_IF_ERROR(d.check(d.cuCtxGetDevice(&state->device), "cuCtxGetDevice"));
  int major = 0, minor = 0, maxSmem = 0;
  FA_RETURN_IF_ERROR(d.check(
      d.cuDeviceGetAttribute(&major, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                             state->device),
      "cuDeviceGetAttribute"));
  FA_RETURN_IF_ERROR(d.check(
      d.cuDeviceGetAttribute(&minor, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                             state->device),
      "cuDeviceGetAttribute"));
  FA_RETURN_IF_ERROR(d.check(
      d.cuDeviceGetAttribute(&state->numSms,
                             cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                             state->device),
      "cuDeviceGetAttribute"));
  FA_RETURN_IF_ERROR(d.check(
      d.cuDeviceGetAttribute(&maxSmem,
                             cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                             state->device),
      "cuDeviceGetAttribute"));
  std::string deviceText = "device " + std::to_string(state->device) +
                           " (sm_" + std::to_string(major) +
                           std::to_string(minor) + ")";
  if (!chipRunsOn(spec_, major, minor))
    return Status::error(ErrorCode::UnsupportedDevice,
                         "kernel '" + spec_.kernel + "' is compiled for " +
                             spec_.chip + ", which " + deviceText +
                             " cannot run");
  if (spec_.sharedMemoryBytes > maxSmem)
    return Status::error(ErrorCode::UnsupportedDevice,
                         "kernel '" + spec_.kernel + "' needs " +
                             std::to_string(spec_.sharedMemoryBytes) +
                             " bytes of shared memory but " + deviceText +
                             " allows at most " + std::to_string(maxSmem));

  FA_RETURN_IF_ERROR(d.check(d.cuModuleLoadData(&state->module, cubin_.c_str()),
                             "cuModuleLoadData")
                         .withContext("loading '" + spec_.cubinPath + "'"));
  // From here on a failure must unload the module.
  auto fail = [&](Status s) -> Status {
    (void)d.cuModuleUnload(state->module);
    return s;
  };
  Status s = d.check(d.cuModuleGetFunction(&state->function, state->module,
                                           spec_.kernel.c_str()),
                     "cuModuleGetFunction")
                 .withContext("kernel '" + spec_.kernel + "'");
  if (!s.ok())
    return fail(s);

  // With kernelParams the driver places each argument at the offset the
  // cubin gives, so only the count and sizes must agree with the bundle.
  if (d.cuFuncGetParamInfo) {
    std::vector<ParamSlot> slots = layoutParams(spec_.params, nullptr);
    size_t count = 0;
    for (;; ++count) {
      size_t offset = 0, size = 0;
      if (d.cuFuncGetParamInfo(state->function, count, &offset, &size) !=
          cu::CUDA_SUCCESS)
        break;
      if (count < slots.size() && size != slots[count].size)
        return fail(Status::error(
            ErrorCode::InvalidBundle,
            "params[" + std::to_string(count) + "] (" +
                paramKindName(spec_.params[count].kind) + ") is " +
                std::to_string(slots[count].size) + " bytes but parameter " +
                std::to_string(count) + " of kernel '" + spec_.kernel +
                "' is " + std::to_string(size) + " bytes"));
    }
    if (count != slots.size())
      return fail(Status::error(ErrorCode::InvalidBundle,
                                "kernel '" + spec_.kernel + "' takes " +
                                    std::to_string(count) +
                                    " parameters but the bundle lists " +
                                    std::to_string(slots.size())));
  }

  if (spec_.sharedMemoryBytes > 48 * 1024) {
    s = d.check(d.cuFuncSetAttribute(
                    state->function,
                    cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    static_cast<int>(spec_.sharedMemoryBytes)),
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    if (!s.ok())
      return fail(s);
  }
  if (spec_.cluster[0] * spec_.cluster[1] * spec_.cluster[2] > 8) {
    s = d.check(d.cuFuncSetAttribute(
                    state->function,
                    cu::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
    if (!s.ok())
      return fail(s);
  }
  contexts_.push_back(std::move(state));
  return contexts_.back().get();
}

namespace {

Expected<cu::CUcontext> launchContext(Driver &d, cu::CUstream stream) {
  cu::CUcontext ctx = nullptr;
  if (stream)
    FA_RETURN_IF_ERROR(d.check(d.cuStreamGetCtx(stream, &ctx), "cuStreamGetCtx"));
  else
    FA_RETURN_IF_ERROR(d.check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent"));
  if (ctx)
    return ctx;
  int count = 0;
  FA_RETURN_IF_ERROR(d.check(d.cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (count == 0)
    return Status::error(ErrorCode::NoDevice, "no CUDA GPU is available "
                                              "(cuDeviceGetCount returned 0)");
  cu::CUdevice device = 0;
  FA_RETURN_IF_ERROR(d.check(d.cuDeviceGet(&device, 0), "cuDeviceGet"));
  Expected<cu::CUcontext> primary = d.primaryContext(device);
  if (!primary.ok())
    return primary.status();
  FA_RETURN_IF_ERROR(d.check(d.cuCtxSetCurrent(*primary), "cuCtxSetCurrent"));
  return *primary;
}

} // namespace

Expected<std::unique_ptr<LaunchScope>> LaunchScope::open(cu::CUstream stream) {
  Expected<Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.status();
  Expected<cu::CUcontext> ctx = launchContext(**driver, stream);
  if (!ctx.ok())
    return ctx.status();
  auto scope = std::make_unique<LaunchScope>(**driver, *ctx);
  FA_RETURN_IF_ERROR(scope->guard.status());
  return scope;
}

TensorMapEncoder driverEncoder(Driver &d) {
  return [&d](const TensorMapRequest &r, void *out) {
    cu::CUresult res = d.cuTensorMapEncodeTiled(
        out, r.dataType, r.rank, reinterpret_cast<void *>(r.globalAddress),
        r.globalDim.data(), r.globalStrides.data(), r.boxDim.data(),
        r.elementStrides.data(), r.interleave, r.swizzle, r.l2Promotion,
        r.oobFill);
    Status s = d.check(res, "cuTensorMapEncodeTiled");
    if (!s.ok())
      return Status::error(s.code(), s.message() + " [" + describe(r) + "]");
    return s;
  };
}

Status Bundle::launch(const std::vector<TensorArg> &tensors, void *stream) {
  Expected<std::unique_ptr<LaunchScope>> scope =
      LaunchScope::open(static_cast<cu::CUstream>(stream));
  if (!scope.ok())
    return scope.status();
  Driver &d = (*scope)->driver;
  Expected<ContextState *> state = contextState(&d, (*scope)->ctx);
  if (!state.ok())
    return state.status();
  Expected<LaunchPlan> plan =
      this->plan(tensors, (*state)->numSms, driverEncoder(d));
  if (!plan.ok())
    return plan.status();
  return enqueue(**state, *plan, stream);
}

int Bundle::numSms(const ContextState &state) { return state.numSms; }

Status Bundle::enqueue(ContextState &state, LaunchPlan &plan, void *stream) {
  if (plan.empty)
    return Status::success();
  Driver &d = *state.driver;
  auto cuStream = static_cast<cu::CUstream>(stream);
  PackedParams &params = plan.params;
  cu::CUdeviceptr globalMaps = 0;
  if (!params.globalMaps.empty()) {
    if (!d.cuMemAllocAsync || !d.cuMemFreeAsync || !d.cuMemcpyHtoDAsync)
      return Status::error(ErrorCode::NoDriver,
                           "tensor_map_global parameters need "
                           "cuMemAllocAsync/cuMemFreeAsync/cuMemcpyHtoDAsync_v2,"
                           " which the driver lacks");
    size_t bytes = params.globalMaps.size() * cu::kTensorMapBytes;
    // Stream-ordered memory: freed after the kernel without a host sync.
    FA_RETURN_IF_ERROR(d.check(d.cuMemAllocAsync(&globalMaps, bytes, cuStream),
                               "cuMemAllocAsync"));
    Status s = globalMaps % 64 == 0
                   ? Status::success()
                   : Status::error(ErrorCode::Internal,
                                   "cuMemAllocAsync returned memory that is "
                                   "not 64-byte aligned");
    for (size_t k = 0; k < params.globalMaps.size() && s.ok(); ++k) {
      cu::CUdeviceptr where = globalMaps + k * cu::kTensorMapBytes;
      s = d.check(d.cuMemcpyHtoDAsync(where, params.globalMaps[k].data(),
                                      cu::kTensorMapBytes, cuStream),
                  "cuMemcpyHtoDAsync");
      std::memcpy(params.bytes() +
                      params.slots[params.globalMapParams[k]].offset,
                  &where, sizeof(where));
    }
    if (!s.ok()) {
      (void)d.cuMemFreeAsync(globalMaps, cuStream);
      return s;
    }
  }

  cu::CUlaunchAttribute attr{};
  cu::CUlaunchConfig config{};
  config.gridDimX = plan.grid[0];
  config.gridDimY = plan.grid[1];
  config.gridDimZ = plan.grid[2];
  config.blockDimX = spec_.block[0];
  config.blockDimY = spec_.block[1];
  config.blockDimZ = spec_.block[2];
  config.sharedMemBytes = static_cast<unsigned>(spec_.sharedMemoryBytes);
  config.hStream = cuStream;
  if (spec_.cluster != std::array<uint32_t, 3>{1, 1, 1}) {
    attr.id = cu::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = spec_.cluster[0];
    attr.value.clusterDim.y = spec_.cluster[1];
    attr.value.clusterDim.z = spec_.cluster[2];
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  std::vector<void *> kernelParams = params.kernelParams();
  Status s = d.check(d.cuLaunchKernelEx(&config, state.function,
                                        kernelParams.data(), nullptr),
                     "cuLaunchKernelEx");
  if (globalMaps)
    (void)d.cuMemFreeAsync(globalMaps, cuStream);
  return s.withContext("kernel '" + spec_.kernel + "'");
}

} // namespace fa::runtime
