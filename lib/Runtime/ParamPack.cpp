//===- ParamPack.cpp - Kernel parameter layout and packing ----------------===//
#include "fa/Runtime/ParamPack.h"

#include "CheckedMath.h"

#include "fa/Runtime/CudaTypes.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <new>

namespace fa::runtime {

static size_t alignUp(size_t value, size_t align) {
  return (value + align - 1) / align * align;
}

namespace {
struct KindLayout {
  size_t size, align;
};
} // namespace

/// The bytes and alignment of each parameter kind, indexed by ParamKind
/// (whose order is the schema's kind enum): x-fa-contract.params.
static constexpr KindLayout kKindLayouts[] = {
#define FA_PARAM_KIND(name, bytes, align) {bytes, align},
#include "fa/Runtime/ParamKinds.inc"
#undef FA_PARAM_KIND
};
static_assert(std::size(kKindLayouts) == size_t(ParamKind::F32) + 1,
              "one layout per ParamKind");
static_assert(kKindLayouts[size_t(ParamKind::TensorMap)].size ==
                  cu::kTensorMapBytes,
              "a tensor map parameter is a CUtensorMap");

std::vector<ParamSlot> layoutParams(const std::vector<ParamSpec> &params,
                                    size_t *totalSize) {
  std::vector<ParamSlot> slots;
  size_t offset = 0;
  for (const ParamSpec &p : params) {
    ParamSlot s;
    const KindLayout &layout = kKindLayouts[static_cast<size_t>(p.kind)];
    s.size = layout.size;
    s.align = layout.align;
    s.offset = alignUp(offset, s.align);
    offset = s.offset + s.size;
    slots.push_back(s);
  }
  if (totalSize)
    *totalSize = offset;
  return slots;
}

int tensorMapDataType(DType dtype) {
  switch (dtype) {
  case DType::F32: return cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::F16: return cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16: return cu::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F64: return cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case DType::I32: return cu::CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::I64: return cu::CU_TENSOR_MAP_DATA_TYPE_INT64;
  // TMA only moves bytes: 8-bit types travel as UINT8.
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::I8:
  case DType::U8: return cu::CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return cu::CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

static int swizzleEnum(Swizzle s) {
  switch (s) {
  case Swizzle::None: return cu::CU_TENSOR_MAP_SWIZZLE_NONE;
  case Swizzle::B32: return cu::CU_TENSOR_MAP_SWIZZLE_32B;
  case Swizzle::B64: return cu::CU_TENSOR_MAP_SWIZZLE_64B;
  case Swizzle::B128: return cu::CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return cu::CU_TENSOR_MAP_SWIZZLE_NONE;
}

static int l2Enum(L2Promotion l) {
  switch (l) {
  case L2Promotion::None: return cu::CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case L2Promotion::B64: return cu::CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case L2Promotion::B128: return cu::CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case L2Promotion::B256: return cu::CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  return cu::CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
}

Expected<TensorMapRequest> makeTensorMapRequest(const BundleSpec &spec,
                                                size_t paramIndex,
                                                const TensorArg &tensor) {
  const ParamSpec &p = spec.params[paramIndex];
  std::vector<std::string> names = operandDims(spec, p.operand);
  uint64_t esize = static_cast<uint64_t>(dtypeSize(tensor.dtype));
  TensorMapRequest r;
  r.paramIndex = paramIndex;
  r.operand = p.operand;
  r.dataType = tensorMapDataType(tensor.dtype);
  r.rank = static_cast<uint32_t>(p.dims.size());
  r.globalAddress = tensor.data;
  auto tooLarge = [&](const std::string &dim) {
    return Status::error(ErrorCode::Tensor,
                         "operand '" + p.operand + "': the byte stride of " +
                             dim + " overflows or is >= 2^40, as TMA allows");
  };
  uint64_t prevStrideBytes = esize;
  for (size_t j = 0; j < p.dims.size(); ++j) {
    size_t idx = 0;
    while (names[idx] != p.dims[j])
      ++idx;
    int64_t size = tensor.sizes[idx];
    // TMA rejects zero extents. A kernel never reads an empty dimension (its
    // loop bounds come from the same sizes), so describe it as extent 1.
    r.globalDim[j] = size > 0 ? static_cast<uint64_t>(size) : 1;
    if (j > 0) {
      // The stride of an extent-1 dim is never used; frameworks leave any
      // value there, TMA wants a multiple of 16, so substitute a dense one.
      std::optional<uint64_t> stride =
          size <= 1 ? checkedMul(prevStrideBytes, r.globalDim[j - 1])
                    : checkedMul(static_cast<uint64_t>(tensor.strides[idx]),
                                 esize);
      if (stride && size <= 1)
        stride = checkedAdd(*stride, uint64_t(15));
      if (stride && size <= 1)
        *stride = *stride / 16 * 16;
      if (!stride || *stride >= (uint64_t(1) << 40))
        return tooLarge(p.dims[j]);
      r.globalStrides[j - 1] = *stride;
      prevStrideBytes = *stride;
    }
    r.boxDim[j] = j < p.box.size() ? static_cast<uint32_t>(p.box[j]) : 1;
    r.elementStrides[j] = 1;
  }
  r.interleave = cu::CU_TENSOR_MAP_INTERLEAVE_NONE;
  r.swizzle = swizzleEnum(p.swizzle);
  r.l2Promotion = l2Enum(p.l2Promotion);
  r.oobFill = cu::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  return r;
}

std::vector<void *> PackedParams::kernelParams() const {
  std::vector<void *> out;
  for (const ParamSlot &s : slots)
    out.push_back(storage.get() + s.offset);
  return out;
}

/// Zeroed storage for `size` packed bytes; the base is 128-byte aligned.
static std::shared_ptr<uint8_t> packedStorage(size_t size) {
  size_t capacity = alignUp(size > 0 ? size : 1, 128);
  uint8_t *raw =
      static_cast<uint8_t *>(::operator new(capacity, std::align_val_t(128)));
  std::memset(raw, 0, capacity);
  return std::shared_ptr<uint8_t>(
      raw, [](uint8_t *ptr) { ::operator delete(ptr, std::align_val_t(128)); });
}

PackedParams PackedParams::clone() const {
  PackedParams out = *this;
  out.storage = packedStorage(size);
  if (size > 0)
    std::memcpy(out.storage.get(), storage.get(), size);
  return out;
}

static std::string paramLabel(const BundleSpec &spec, size_t i) {
  const ParamSpec &p = spec.params[i];
  std::string label =
      "params[" + std::to_string(i) + "] (" + paramKindName(p.kind);
  if (!p.operand.empty())
    label += " of '" + p.operand + "'";
  else
    label += " \"" + p.value.text() + "\"";
  return label + ")";
}

/// Encodes tensor map parameter `i` into its slot (tensor_map) or its
/// entry of globalMaps (tensor_map_global).
static Status encodeMap(const BundleSpec &spec, size_t i,
                        const TensorMapRequest &request,
                        const TensorMapEncoder &encoder, PackedParams &packed) {
  // The label is built only for a failure: this runs at every launch.
  auto encode = [&](void *out) {
    Status s = encoder(request, out);
    return s.ok() ? s : s.withContext(paramLabel(spec, i));
  };
  if (spec.params[i].kind == ParamKind::TensorMap) {
    uint8_t *slot = packed.bytes() + packed.slots[i].offset;
    std::memset(slot, 0, cu::kTensorMapBytes);
    return encode(slot);
  }
  size_t k = 0;
  while (packed.globalMapParams[k] != i)
    ++k;
  cu::CUtensorMap map{}; // the driver wants 64-byte alignment
  FA_RETURN_IF_ERROR(encode(&map));
  std::memcpy(packed.globalMaps[k].data(), &map, sizeof(map));
  return Status::success();
}

Expected<PackedParams> packParams(const BundleSpec &spec,
                                  const OperandSet &operands,
                                  const TensorMapEncoder &encoder) {
  PackedParams packed;
  packed.slots = layoutParams(spec.params, &packed.size);
  packed.storage = packedStorage(packed.size);

  for (size_t i = 0; i < spec.params.size(); ++i) {
    const ParamSpec &p = spec.params[i];
    uint8_t *slot = packed.bytes() + packed.slots[i].offset;
    switch (p.kind) {
    case ParamKind::TensorMap:
    case ParamKind::TensorMapGlobal: {
      const TensorArg &t = *operands.byRole.at(p.operand);
      Expected<TensorMapRequest> req = makeTensorMapRequest(spec, i, t);
      if (!req.ok())
        return req.status().withContext(paramLabel(spec, i));
      if (p.kind == ParamKind::TensorMapGlobal) {
        packed.globalMapParams.push_back(i);
        packed.globalMaps.emplace_back();
      }
      FA_RETURN_IF_ERROR(encodeMap(spec, i, *req, encoder, packed));
      break;
    }
    case ParamKind::Ptr: {
      uint64_t address = operands.byRole.at(p.operand)->data;
      std::memcpy(slot, &address, 8);
      break;
    }
    case ParamKind::I32:
    case ParamKind::I64: {
      Expected<int64_t> v = p.value.evalInt(operands.symbols);
      if (!v.ok())
        return v.status().withContext(paramLabel(spec, i));
      if (p.kind == ParamKind::I64) {
        std::memcpy(slot, &*v, 8);
        break;
      }
      if (*v < std::numeric_limits<int32_t>::min() ||
          *v > std::numeric_limits<int32_t>::max())
        return Status::error(ErrorCode::Expression,
                             paramLabel(spec, i) + ": value " +
                                 std::to_string(*v) + " does not fit in i32");
      int32_t v32 = static_cast<int32_t>(*v);
      std::memcpy(slot, &v32, 4);
      break;
    }
    case ParamKind::F32: {
      Expected<double> v = p.value.evalFloat(operands.symbols);
      if (!v.ok())
        return v.status().withContext(paramLabel(spec, i));
      float f = static_cast<float>(*v);
      if (!std::isfinite(f))
        return Status::error(ErrorCode::Expression,
                             paramLabel(spec, i) + ": value " +
                                 std::to_string(*v) + " does not fit in f32");
      std::memcpy(slot, &f, 4);
      break;
    }
    }
  }
  return packed;
}

Expected<std::vector<AddressParam>>
addressParams(const BundleSpec &spec, const OperandSet &operands,
              const std::vector<TensorArg> &tensors) {
  std::vector<AddressParam> out;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const ParamSpec &p = spec.params[i];
    if (p.operand.empty())
      continue;
    const TensorArg *t = operands.byRole.at(p.operand);
    AddressParam a;
    a.param = i;
    a.operand = static_cast<size_t>(t - tensors.data());
    if (p.kind != ParamKind::Ptr) {
      Expected<TensorMapRequest> req = makeTensorMapRequest(spec, i, *t);
      if (!req.ok())
        return req.status().withContext(paramLabel(spec, i));
      a.request = *req;
    }
    out.push_back(std::move(a));
  }
  return out;
}

Status repackAddresses(const BundleSpec &spec, PackedParams &packed,
                       const std::vector<AddressParam> &params,
                       const std::vector<uint64_t> &addresses,
                       const TensorMapEncoder &encoder) {
  for (const AddressParam &a : params) {
    uint64_t address = addresses[a.operand];
    if (spec.params[a.param].kind == ParamKind::Ptr) {
      std::memcpy(packed.bytes() + packed.slots[a.param].offset, &address, 8);
      continue;
    }
    TensorMapRequest request = a.request;
    request.globalAddress = address;
    FA_RETURN_IF_ERROR(encodeMap(spec, a.param, request, encoder, packed));
  }
  return Status::success();
}

Expected<std::array<uint32_t, 3>> evalGrid(const BundleSpec &spec,
                                           const SymbolTable &symbols) {
  static const int64_t limits[3] = {std::numeric_limits<int32_t>::max(), 65535,
                                    65535};
  std::array<uint32_t, 3> grid{};
  for (int i = 0; i < 3; ++i) {
    std::string label = "grid[" + std::to_string(i) + "]";
    Expected<int64_t> v = spec.grid[i].evalInt(symbols);
    if (!v.ok())
      return v.status().withContext(label);
    if (*v < 0)
      return Status::error(ErrorCode::Expression,
                           label + ": \"" + spec.grid[i].text() + "\" = " +
                               std::to_string(*v) + " is negative");
    if (*v > limits[i])
      return Status::error(ErrorCode::Tensor,
                           label + ": \"" + spec.grid[i].text() + "\" = " +
                               std::to_string(*v) + " exceeds CUDA's limit of " +
                               std::to_string(limits[i]) + " blocks");
    grid[i] = static_cast<uint32_t>(*v);
  }
  return grid;
}

} // namespace fa::runtime
