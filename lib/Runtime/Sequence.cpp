//===- Sequence.cpp - Several kernel bundles launched as one call ---------===//
#include "fa/Runtime/Sequence.h"

#include "CheckedMath.h"
#include "Driver.h"
#include "Files.h"
#include "PlanCache.h"
#include "SpecReader.h"

#include <algorithm>
#include <set>

namespace fa::runtime {

namespace detail {

/// A sequence's launch for one operand key: its workspace, then (once
/// planned) every kernel's operands and plan template.
struct SequencePlan {
  /// As workspace() evaluates them, `passed` cleared: passedIndex says
  /// which buffers the caller passes.
  std::vector<WorkspaceBuffer> buffers;
  /// Per buffer: its index in the launch's tensors, -1 when the runtime
  /// allocates it.
  std::vector<ptrdiff_t> passedIndex;
  /// Per kernel: not launched, its "written_by" buffers passed.
  std::vector<bool> skipped;
  bool planned = false;
  /// Address class of each allocated buffer (in order) when planned.
  std::vector<int> allocatedClasses;
  /// Per kernel: the indices of its operands among the launch's tensors
  /// followed by the allocated buffers.
  std::vector<std::vector<size_t>> kernelOperands;
  std::vector<std::shared_ptr<const PlanTemplate>> kernels;
};

} // namespace detail

using namespace detail;

namespace {

const char *const kSequenceFormat = "fa-kernel-sequence";

/// The format field of a document, "" when it has none (or is no object).
std::string formatOf(const Value &doc) {
  const Value *f = doc.is_object() ? json::find(doc, "format") : nullptr;
  return f && f->is_string() ? f->get<std::string>() : "";
}

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const auto &n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool sameScratch(const ScratchSpec &a, const ScratchSpec &b,
                 std::string &why) {
  if (a.dtype != b.dtype) {
    why = std::string("dtype ") + dtypeName(a.dtype) + " vs " +
          dtypeName(b.dtype);
    return false;
  }
  if (a.dims != b.dims) {
    why = "dims [" + joined(a.dims) + "] vs [" + joined(b.dims) + "]";
    return false;
  }
  for (size_t i = 0; i < a.shape.size(); ++i)
    if (a.shape[i].text() != b.shape[i].text()) {
      why = "shape[" + std::to_string(i) + "] \"" + a.shape[i].text() +
            "\" vs \"" + b.shape[i].text() + "\"";
      return false;
    }
  return true;
}

std::string descaleBlockText(const std::optional<std::array<int64_t, 2>> &b) {
  if (!b)
    return "absent";
  return "[" + std::to_string((*b)[0]) + ", " + std::to_string((*b)[1]) + "]";
}

std::string biasBroadcastText(const std::optional<std::array<bool, 2>> &b) {
  if (!b)
    return "absent";
  std::string out;
  for (int i = 0; i < 2; ++i)
    if ((*b)[i])
      out += std::string(out.empty() ? "" : ", ") + kBiasBroadcastDims[i];
  return "[" + out + "]";
}

/// The config fields that decide how operands are read must agree, since
/// the caller's tensors are checked once against the sequence's config.
Status sameConfig(const BundleConfig &k, const BundleConfig &s,
                  const std::string &field) {
  auto differs = [&](const char *name, const std::string &a,
                     const std::string &b) {
    return invalid(field + ".config." + name,
                   a + " differs from the sequence's " + b);
  };
  if (k.dtype != s.dtype)
    return differs("dtype", dtypeName(k.dtype), dtypeName(s.dtype));
  if (k.outDType != s.outDType)
    return differs("out_dtype", dtypeName(k.outDType), dtypeName(s.outDType));
  if (k.biasDType != s.biasDType)
    return differs("bias_dtype", dtypeName(k.biasDType),
                   dtypeName(s.biasDType));
  if (k.layout != s.layout)
    return differs("layout", layoutName(k.layout), layoutName(s.layout));
  if (k.headDim != s.headDim)
    return differs("head_dim", std::to_string(k.headDim),
                   std::to_string(s.headDim));
  if (k.headDimV != s.headDimV)
    return differs("head_dim_v", std::to_string(k.headDimV),
                   std::to_string(s.headDimV));
  // It decides the descales' rank: a kernel without it would read them as
  // [batch, heads_kv].
  if (k.descaleBlock != s.descaleBlock)
    return differs("descale_block", descaleBlockText(k.descaleBlock),
                   descaleBlockText(s.descaleBlock));
  // It decides which extents of bias and grad_bias a kernel accepts.
  if (k.biasBroadcast != s.biasBroadcast)
    return differs("bias_broadcast", biasBroadcastText(k.biasBroadcast),
                   biasBroadcastText(s.biasBroadcast));
  return Status::success();
}

bool isDense(const TensorArg &t) {
  int64_t want = 1;
  for (size_t i = t.sizes.size(); i-- > 0;) {
    if (t.sizes[i] != 1 && t.strides[i] != want)
      return false;
    want *= t.sizes[i];
  }
  return true;
}

/// The optional "written_by" of each workspace entry (parseScratchList
/// checked the rest of it): a kernel index; the buffer must not be zeroed
/// by the runtime, since a caller that passes it passes its contents.
Status parseWrittenBy(const Value &workspace, SequenceSpec &seq) {
  for (size_t w = 0; w < workspace.size(); ++w) {
    ObjectReader r(workspace[w], "workspace[" + std::to_string(w) + "]");
    int64_t kernel = -1;
    FA_RETURN_IF_ERROR(r.integer("written_by", kernel, 0,
                                 int64_t(kMaxSequenceKernels) - 1,
                                 /*required=*/false));
    if (kernel >= 0 && seq.zeroInit[w])
      return invalid(r.field("written_by"),
                     "a buffer with \"init\": \"zero\" cannot be written by a "
                     "kernel (the runtime zeroes it before the first kernel)");
    seq.writtenBy.push_back(int(kernel));
  }
  return Status::success();
}

} // namespace

Expected<SequenceSpec> parseSequenceSpec(const std::string &jsonText,
                                         const std::string &baseDir) {
  Expected<Value> doc = json::parse(jsonText);
  if (!doc.ok())
    return doc.status();
  if (!doc->is_object())
    return wrongType("sequence", "a JSON object", *doc);
  ObjectReader r(*doc, "");
  SequenceSpec seq;
  BundleSpec &spec = seq.operands;

  FA_RETURN_IF_ERROR(parseHeader(r, kSequenceFormat, "sequence", spec));
  FA_RETURN_IF_ERROR(r.string("op", spec.op));
  const Value *config;
  FA_RETURN_IF_ERROR(r.require("config", config));
  FA_RETURN_IF_ERROR(parseConfig(*config, spec));

  const Value *workspace;
  FA_RETURN_IF_ERROR(r.require("workspace", workspace));
  FA_RETURN_IF_ERROR(
      parseScratchList(*workspace, "workspace", spec, &seq.zeroInit));
  FA_RETURN_IF_ERROR(parseWrittenBy(*workspace, seq));
  seq.workspaceJson =
      workspace->dump(-1, ' ', false, json::Value::error_handler_t::replace);

  const Value *kernels;
  FA_RETURN_IF_ERROR(r.require("kernels", kernels));
  if (!kernels->is_array() || kernels->empty() ||
      kernels->size() > kMaxSequenceKernels)
    return invalid("kernels", "expected an array of 1 to " +
                                  std::to_string(kMaxSequenceKernels) +
                                  " kernel bundle paths");
  for (size_t i = 0; i < kernels->size(); ++i) {
    const Value &k = (*kernels)[i];
    std::string field = "kernels[" + std::to_string(i) + "]";
    if (!k.is_string())
      return wrongType(field, "a path string", k);
    const std::string &path = k.get_ref<const std::string &>();
    if (path.empty())
      return invalid(field, "must not be empty");
    seq.kernelPaths.push_back(path[0] == '/' || baseDir.empty()
                                  ? path
                                  : baseDir + "/" + path);
  }
  for (size_t w = 0; w < seq.writtenBy.size(); ++w)
    if (seq.writtenBy[w] >= int(kernels->size()))
      return invalid("workspace[" + std::to_string(w) + "].written_by",
                     "kernel " + std::to_string(seq.writtenBy[w]) +
                         " is not in \"kernels\" (" +
                         std::to_string(kernels->size()) + " entries)");
  spec.json = doc->dump(-1, ' ', false, json::Value::error_handler_t::replace);
  return seq;
}

Expected<std::unique_ptr<Sequence>> Sequence::load(const std::string &jsonPath) {
  std::string text;
  FA_RETURN_IF_ERROR(readFile(jsonPath, kMaxBundleJsonBytes, text));
  // Dispatch on "format"; a document that is not JSON (or has no format) is
  // read as a bundle, whose errors are the established ones.
  Expected<Value> doc = json::parse(text);
  if (!doc.ok() || formatOf(*doc) != kSequenceFormat) {
    Expected<std::unique_ptr<Bundle>> bundle = Bundle::load(jsonPath);
    if (!bundle.ok())
      return bundle.status();
    return single(std::move(*bundle));
  }
  Expected<std::unique_ptr<Sequence>> seq = fromText(text, dirName(jsonPath));
  if (!seq.ok())
    return seq.status().withContext("sequence '" + jsonPath + "'");
  (*seq)->spec_.jsonPath = jsonPath;
  return seq;
}

Expected<std::unique_ptr<Sequence>>
Sequence::fromText(const std::string &jsonText, const std::string &baseDir) {
  Expected<SequenceSpec> spec = parseSequenceSpec(jsonText, baseDir);
  if (!spec.ok())
    return spec.status();
  std::unique_ptr<Sequence> seq(new Sequence());
  seq->isSequence_ = true;
  seq->spec_ = std::move(*spec);
  int bits = alignmentBits(seq->spec_.operands);
  for (size_t i = 0; i < seq->spec_.kernelPaths.size(); ++i) {
    const std::string &path = seq->spec_.kernelPaths[i];
    std::string field = "kernels[" + std::to_string(i) + "]";
    std::string text;
    Status s = readFile(path, kMaxBundleJsonBytes, text);
    if (!s.ok())
      return s.withContext(field);
    Expected<Value> doc = json::parse(text);
    if (doc.ok() && formatOf(*doc) == kSequenceFormat)
      return invalid(field, "'" + path + "' is an " + kSequenceFormat +
                                "; sequences do not nest (list its kernel "
                                "bundles instead)");
    Expected<std::unique_ptr<Bundle>> kernel = Bundle::load(path);
    if (!kernel.ok())
      return kernel.status().withContext(field);
    bits = std::max(bits, alignmentBits((*kernel)->spec()));
    seq->kernels_.push_back(std::move(*kernel));
  }
  FA_RETURN_IF_ERROR(seq->linkKernels());
  seq->plans_ = std::make_unique<PlanCache<SequencePlan>>(bits);
  return seq;
}

std::unique_ptr<Sequence> Sequence::single(std::unique_ptr<Bundle> bundle) {
  std::unique_ptr<Sequence> seq(new Sequence());
  seq->spec_.jsonPath = bundle->spec().jsonPath;
  seq->spec_.workspaceJson = "[]";
  seq->kernelNames_ = bundle->kernelName();
  seq->plans_ =
      std::make_unique<PlanCache<SequencePlan>>(alignmentBits(bundle->spec()));
  seq->kernels_.push_back(std::move(bundle));
  return seq;
}

Sequence::Sequence() = default;
Sequence::~Sequence() = default;

/// Adds kernel `field`'s capture `c` to the sequence's operands `view`: the
/// caller passes it once, so kernels that read the same capture must agree
/// on its dtype and dims, and it must not be a workspace buffer's name.
static Status linkCapture(BundleSpec &view, const ScratchSpec &c,
                          const std::string &field) {
  for (const ScratchSpec &w : view.scratch)
    if (w.name == c.name)
      return invalid(field, "capture '" + c.name +
                                "' is also a workspace buffer of the sequence");
  for (const ScratchSpec &seen : view.captures) {
    if (seen.name != c.name)
      continue;
    std::string why;
    if (!sameScratch(c, seen, why))
      return invalid(field, "capture '" + c.name +
                                "' differs from an earlier kernel's: " + why);
    return Status::success();
  }
  view.captures.push_back(c);
  return Status::success();
}

Status Sequence::onlyKeptBuffers(size_t kernel, size_t w) const {
  const std::vector<int> &by = spec_.writtenBy;
  auto writes = std::find(by.begin(), by.end(), int(kernel));
  if (writes == by.end() || by[w] == int(kernel))
    return Status::success();
  return invalid("kernels[" + std::to_string(kernel) + "]",
                 "scratch '" + spec_.operands.scratch[w].name +
                     "' is not written_by it, but the kernel is skipped when "
                     "the caller passes '" +
                     spec_.operands.scratch[size_t(writes - by.begin())].name +
                     "' (a kernel that may be skipped writes only its "
                     "written_by buffers)");
}

/// The checks between the sequence and its kernels, and the operands the
/// whole call requires.
Status Sequence::linkKernels() {
  BundleSpec &view = spec_.operands;
  std::vector<bool> used(view.scratch.size(), false);
  std::vector<std::string> required = opOperands(view.op, view.config);
  auto add = [&](const std::string &role) {
    if (std::find(required.begin(), required.end(), role) == required.end())
      required.push_back(role);
  };
  for (size_t w = 0; w < spec_.writtenBy.size(); ++w) {
    int writer = spec_.writtenBy[w];
    if (writer < 0)
      continue;
    const std::vector<ScratchSpec> &own =
        kernels_[size_t(writer)]->spec().scratch;
    if (std::none_of(own.begin(), own.end(), [&](const ScratchSpec &x) {
          return x.name == view.scratch[w].name;
        }))
      return invalid("workspace[" + std::to_string(w) + "].written_by",
                     "kernel " + std::to_string(writer) + " ('" +
                         kernels_[size_t(writer)]->kernelName() +
                         "') does not declare '" + view.scratch[w].name +
                         "' as scratch");
  }
  for (size_t i = 0; i < kernels_.size(); ++i) {
    const BundleSpec &k = kernels_[i]->spec();
    std::string field = "kernels[" + std::to_string(i) + "]";
    if (k.chip != view.chip)
      return invalid(field + ".chip", "\"" + k.chip +
                                          "\" differs from the sequence's \"" +
                                          view.chip + "\"");
    FA_RETURN_IF_ERROR(sameConfig(k.config, view.config, field));
    for (const ScratchSpec &s : k.scratch) {
      size_t w = 0;
      while (w < view.scratch.size() && view.scratch[w].name != s.name)
        ++w;
      if (w == view.scratch.size())
        return invalid(field, "scratch '" + s.name +
                                  "' is not in the sequence's workspace");
      std::string why;
      if (!sameScratch(s, view.scratch[w], why))
        return invalid(field, "scratch '" + s.name + "' differs from workspace[" +
                                  std::to_string(w) + "]: " + why);
      used[w] = true;
      FA_RETURN_IF_ERROR(onlyKeptBuffers(i, w));
    }
    for (const std::string &role : k.requiredOperands)
      if (isStandardRole(role))
        add(role);
    // score_mod/mask_mod captures: operands of the call, as in a bundle.
    for (const ScratchSpec &c : k.captures) {
      FA_RETURN_IF_ERROR(linkCapture(view, c, field));
      add(c.name);
    }
    kernelNames_ += (i ? "," : "") + k.kernel;
  }
  for (size_t w = 0; w < used.size(); ++w)
    if (!used[w])
      return invalid("workspace[" + std::to_string(w) + "]",
                     "'" + view.scratch[w].name + "' is used by no kernel");
  view.requiredOperands = std::move(required);
  return Status::success();
}

const std::string &Sequence::op() const {
  return isSequence_ ? spec_.operands.op : kernels_[0]->spec().op;
}
const std::string &Sequence::chip() const {
  return isSequence_ ? spec_.operands.chip : kernels_[0]->spec().chip;
}
const std::string &Sequence::configJson() const {
  return isSequence_ ? spec_.operands.configJson : kernels_[0]->configJson();
}
const std::string &Sequence::json() const {
  return isSequence_ ? spec_.operands.json : kernels_[0]->spec().json;
}
const std::string &Sequence::workspaceJson() const {
  return spec_.workspaceJson;
}
const std::vector<std::string> &Sequence::requiredOperands() const {
  return isSequence_ ? spec_.operands.requiredOperands
                     : kernels_[0]->spec().requiredOperands;
}
size_t Sequence::numParams() const {
  size_t n = 0;
  for (const auto &k : kernels_)
    n += k->spec().params.size();
  return n;
}

Expected<std::vector<WorkspaceBuffer>>
Sequence::workspace(const std::vector<TensorArg> &tensors,
                    int64_t numSms) const {
  std::vector<WorkspaceBuffer> out;
  if (!isSequence_)
    return out;
  const BundleSpec &view = spec_.operands;
  // The sequence's own operand check: the union of what its kernels need,
  // the passed workspace buffers' dtypes and sizes, the shape symbols.
  Expected<OperandSet> set = checkOperands(view, tensors, numSms);
  if (!set.ok())
    return set.status();
  for (size_t w = 0; w < view.scratch.size(); ++w) {
    WorkspaceBuffer b;
    b.spec = &view.scratch[w];
    b.zeroInit = spec_.zeroInit[w];
    std::string field = "workspace '" + b.spec->name + "'";
    int64_t count = 1;
    for (size_t i = 0; i < b.spec->shape.size(); ++i) {
      Expected<int64_t> size = b.spec->shape[i].evalInt(set->symbols);
      if (!size.ok())
        return size.status().withContext(field + " shape[" +
                                         std::to_string(i) + "]");
      if (*size < 0)
        return Status::error(ErrorCode::Expression,
                             field + " shape[" + std::to_string(i) + "] (" +
                                 b.spec->shape[i].text() + ") is negative: " +
                                 std::to_string(*size));
      std::optional<int64_t> c = checkedMul(count, *size);
      if (!c)
        return Status::error(ErrorCode::Expression,
                             field + ": the element count overflows 64 bits");
      count = *c;
      b.sizes.push_back(*size);
    }
    std::optional<int64_t> bytes = checkedMul(count, dtypeSize(b.spec->dtype));
    if (!bytes)
      return Status::error(ErrorCode::Expression,
                           field + ": the byte size overflows 64 bits");
    b.bytes = *bytes;
    // The dense strides of an allocated buffer: with a size 0 the element
    // count is 0 while the outer strides (products of the inner sizes) may
    // still overflow.
    b.strides.assign(b.sizes.size(), 1);
    for (size_t i = b.sizes.size(); i-- > 1;) {
      std::optional<int64_t> st = checkedMul(b.strides[i], b.sizes[i]);
      if (!st)
        return Status::error(ErrorCode::Expression,
                             field + ": the stride of dimension " +
                                 std::to_string(i - 1) + " (" +
                                 b.spec->dims[i - 1] + ") overflows 64 bits");
      b.strides[i - 1] = *st;
    }
    auto passed = set->byRole.find(b.spec->name);
    if (passed != set->byRole.end()) {
      b.passed = passed->second;
      // The runtime zeroes b.bytes from the address: only a dense buffer
      // holds exactly its elements there.
      if (b.zeroInit && !isDense(*b.passed))
        return Status::error(ErrorCode::Tensor,
                             "operand '" + b.spec->name +
                                 "': a workspace buffer with \"init\": "
                                 "\"zero\" must be dense (contiguous), as the "
                                 "runtime zeroes it with one memset");
    }
    out.push_back(std::move(b));
  }
  return out;
}

Expected<std::vector<bool>>
Sequence::skippedKernels(const std::vector<TensorArg> &tensors) const {
  std::vector<bool> skipped(kernels_.size(), false);
  const std::vector<int> &by = spec_.writtenBy;
  for (size_t k = 0; k < kernels_.size(); ++k) {
    std::vector<std::string> passed, missing;
    for (size_t w = 0; w < by.size(); ++w) {
      if (by[w] != int(k))
        continue;
      const std::string &name = spec_.operands.scratch[w].name;
      bool given =
          std::any_of(tensors.begin(), tensors.end(),
                      [&](const TensorArg &t) { return t.role == name; });
      (given ? passed : missing).push_back(name);
    }
    if (!passed.empty() && !missing.empty())
      return Status::error(
          ErrorCode::Tensor,
          "operand '" + missing.front() + "' is missing: kernel " +
              std::to_string(k) + " ('" + kernels_[k]->kernelName() +
              "') writes [" + joined(passed) + ", " + joined(missing) +
              "]; pass all of them (kept from an earlier launch: the kernel "
              "is skipped) or none (it computes them)");
    skipped[k] = !passed.empty();
  }
  return skipped;
}

Expected<int64_t> Sequence::workspaceBytes(const std::vector<TensorArg> &tensors,
                                           int64_t numSms) const {
  Expected<std::vector<WorkspaceBuffer>> buffers = workspace(tensors, numSms);
  if (!buffers.ok())
    return buffers.status();
  int64_t total = 0;
  for (const WorkspaceBuffer &b : *buffers) {
    std::optional<int64_t> t = checkedAdd(total, b.bytes);
    if (!t)
      return Status::error(ErrorCode::Expression,
                           "the workspace size overflows 64 bits");
    total = *t;
  }
  return total;
}

std::vector<size_t>
Sequence::kernelOperands(const Bundle &kernel,
                         const std::vector<TensorArg> &all) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < all.size(); ++i)
    // A plain bundle reports unknown roles itself.
    if (!isSequence_ || isStandardRole(all[i].role) ||
        !operandDims(kernel.spec(), all[i].role).empty())
      out.push_back(i);
  return out;
}

std::vector<TensorArg>
Sequence::withWorkspace(const std::vector<TensorArg> &tensors,
                        const std::vector<WorkspaceBuffer> &buffers,
                        const std::vector<uint64_t> &addresses) const {
  std::vector<TensorArg> all = tensors;
  size_t next = 0;
  for (const WorkspaceBuffer &b : buffers) {
    if (b.passed)
      continue;
    TensorArg t;
    t.role = b.spec->name;
    t.dtype = b.spec->dtype;
    t.sizes = b.sizes;
    t.strides = b.strides;
    t.data = addresses[next++];
    all.push_back(std::move(t));
  }
  return all;
}

Expected<std::shared_ptr<const SequencePlan>>
Sequence::findOrStartPlan(const std::vector<TensorArg> &tensors,
                          int64_t numSms) const {
  if (std::shared_ptr<const SequencePlan> plan = plans_->find(tensors, numSms))
    return plan;
  Expected<std::vector<WorkspaceBuffer>> buffers = workspace(tensors, numSms);
  if (!buffers.ok())
    return buffers.status();
  Expected<std::vector<bool>> skipped = skippedKernels(tensors);
  if (!skipped.ok())
    return skipped.status();
  auto plan = std::make_shared<SequencePlan>();
  plan->skipped = std::move(*skipped);
  for (WorkspaceBuffer &b : *buffers) {
    plan->passedIndex.push_back(b.passed ? b.passed - tensors.data() : -1);
    b.passed = nullptr;
  }
  plan->buffers = std::move(*buffers);
  return std::shared_ptr<const SequencePlan>(std::move(plan));
}

Expected<std::vector<LaunchPlan>>
Sequence::planKernels(const std::vector<TensorArg> &tensors, int64_t numSms,
                      const SequencePlan &plan,
                      const std::vector<uint64_t> &allocated,
                      const TensorMapEncoder &encoder) const {
  auto inKernel = [&](size_t i, const Status &s) {
    return isSequence_ ? s.withContext("kernel " + std::to_string(i) + " ('" +
                                       kernels_[i]->kernelName() + "')")
                       : s;
  };
  std::vector<int> classes;
  classes.reserve(allocated.size());
  for (uint64_t a : allocated)
    classes.push_back(addressClass(a, plans_->bits()));
  std::vector<LaunchPlan> out;
  if (plan.planned && classes == plan.allocatedClasses) {
    std::vector<uint64_t> all;
    all.reserve(tensors.size() + allocated.size());
    for (const TensorArg &t : tensors)
      all.push_back(t.data);
    all.insert(all.end(), allocated.begin(), allocated.end());
    for (size_t i = 0; i < kernels_.size(); ++i) {
      std::vector<uint64_t> addresses;
      addresses.reserve(plan.kernelOperands[i].size());
      for (size_t k : plan.kernelOperands[i])
        addresses.push_back(all[k]);
      Expected<LaunchPlan> p =
          kernels_[i]->fromTemplate(*plan.kernels[i], addresses, encoder);
      if (!p.ok())
        return inKernel(i, p.status());
      out.push_back(std::move(*p));
    }
    return out;
  }

  // In full; the buffers not passed are those withWorkspace appends.
  auto made = std::make_shared<SequencePlan>(plan);
  made->planned = true;
  made->allocatedClasses = classes;
  made->kernelOperands.clear();
  made->kernels.clear();
  std::vector<WorkspaceBuffer> buffers = plan.buffers;
  for (size_t w = 0; w < buffers.size(); ++w)
    if (plan.passedIndex[w] >= 0)
      buffers[w].passed = &tensors[size_t(plan.passedIndex[w])];
  std::vector<TensorArg> all = withWorkspace(tensors, buffers, allocated);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    std::vector<size_t> indices = kernelOperands(*kernels_[i], all);
    std::vector<TensorArg> operands;
    operands.reserve(indices.size());
    for (size_t k : indices)
      operands.push_back(all[k]);
    std::shared_ptr<const PlanTemplate> kernelPlan;
    Expected<LaunchPlan> p =
        kernels_[i]->planFully(operands, numSms, encoder, kernelPlan);
    if (!p.ok())
      return inKernel(i, p.status());
    out.push_back(std::move(*p));
    made->kernelOperands.push_back(std::move(indices));
    made->kernels.push_back(std::move(kernelPlan));
  }
  if (!plan.planned)
    plans_->insert(tensors, numSms, std::move(made));
  return out;
}

Expected<std::array<uint32_t, 3>>
Sequence::check(const std::vector<TensorArg> &tensors, int64_t numSms) const {
  // Tensor maps are not encoded here (no driver); the fake encoder accepts.
  TensorMapEncoder noEncode = [](const TensorMapRequest &, void *) {
    return Status::success();
  };
  Expected<std::shared_ptr<const SequencePlan>> plan =
      findOrStartPlan(tensors, numSms);
  if (!plan.ok())
    return plan.status();
  // Buffers the runtime would allocate stand in at distinct, 256-byte
  // aligned addresses (what cuMemAllocAsync returns).
  std::vector<uint64_t> allocated;
  for (size_t w = 0; w < (*plan)->buffers.size(); ++w)
    if ((*plan)->passedIndex[w] < 0)
      allocated.push_back((*plan)->buffers[w].bytes
                              ? (uint64_t(1) << 44) +
                                    (uint64_t(allocated.size()) << 36)
                              : 0);
  Expected<std::vector<LaunchPlan>> plans =
      planKernels(tensors, numSms, **plan, allocated, noEncode);
  if (!plans.ok())
    return plans.status();
  // The grid of the first kernel a launch runs.
  for (size_t i = 0; i < plans->size(); ++i)
    if (!(*plan)->skipped[i])
      return (*plans)[i].grid;
  return plans->front().grid;
}

Status Sequence::launch(const std::vector<TensorArg> &tensors, void *stream) {
  if (!isSequence_)
    return kernels_[0]->launch(tensors, stream);
  auto cuStream = static_cast<cu::CUstream>(stream);
  Expected<std::unique_ptr<LaunchScope>> scope = LaunchScope::open(cuStream);
  if (!scope.ok())
    return scope.status();
  Driver &d = (*scope)->driver;
  // Modules first: a device that cannot run a kernel fails before anything
  // is allocated or queued.
  std::vector<Bundle::ContextState *> states;
  for (auto &k : kernels_) {
    Expected<Bundle::ContextState *> state = k->contextState(&d, (*scope)->ctx);
    if (!state.ok())
      return state.status();
    states.push_back(*state);
  }
  int64_t numSms = Bundle::numSms(*states[0]);
  Expected<std::shared_ptr<const SequencePlan>> plan =
      findOrStartPlan(tensors, numSms);
  if (!plan.ok())
    return plan.status();
  const SequencePlan &sp = **plan;

  std::vector<cu::CUdeviceptr> toFree;
  auto fail = [&](Status s) {
    for (cu::CUdeviceptr p : toFree)
      (void)d.cuMemFreeAsync(p, cuStream);
    return s;
  };
  std::vector<uint64_t> allocated;
  for (size_t w = 0; w < sp.buffers.size(); ++w) {
    const WorkspaceBuffer &b = sp.buffers[w];
    if (sp.passedIndex[w] >= 0)
      continue;
    if (b.bytes == 0) {
      allocated.push_back(0);
      continue;
    }
    if (!d.cuMemAllocAsync || !d.cuMemFreeAsync)
      return fail(Status::error(
          ErrorCode::NoDriver,
          "workspace '" + b.spec->name +
              "' is not passed and the driver lacks cuMemAllocAsync/"
              "cuMemFreeAsync to allocate it; pass it as an operand"));
    cu::CUdeviceptr p = 0;
    Status s = d.check(d.cuMemAllocAsync(&p, static_cast<size_t>(b.bytes),
                                         cuStream),
                       "cuMemAllocAsync");
    if (!s.ok())
      return fail(s.withContext("workspace '" + b.spec->name + "' (" +
                                std::to_string(b.bytes) + " bytes)"));
    toFree.push_back(p);
    allocated.push_back(p);
  }

  // Every kernel is planned (operands checked, tensor maps encoded) before
  // anything is queued, so an operand error leaves the stream untouched.
  Expected<std::vector<LaunchPlan>> plans =
      planKernels(tensors, numSms, sp, allocated, driverEncoder(d));
  if (!plans.ok())
    return fail(plans.status());

  size_t next = 0;
  for (size_t w = 0; w < sp.buffers.size(); ++w) {
    const WorkspaceBuffer &b = sp.buffers[w];
    uint64_t address = sp.passedIndex[w] >= 0
                           ? tensors[size_t(sp.passedIndex[w])].data
                           : allocated[next++];
    if (!b.zeroInit || b.bytes == 0)
      continue;
    Status s;
    if (b.bytes % 4 == 0 && address % 4 == 0 && d.cuMemsetD32Async)
      s = d.check(d.cuMemsetD32Async(address, 0, size_t(b.bytes / 4), cuStream),
                  "cuMemsetD32Async");
    else if (d.cuMemsetD8Async)
      s = d.check(d.cuMemsetD8Async(address, 0, size_t(b.bytes), cuStream),
                  "cuMemsetD8Async");
    else
      s = Status::error(ErrorCode::NoDriver,
                        "the driver lacks cuMemsetD8Async/cuMemsetD32Async");
    if (!s.ok())
      return fail(s.withContext("zeroing workspace '" + b.spec->name + "'"));
  }

  for (size_t i = 0; i < kernels_.size(); ++i) {
    if (sp.skipped[i]) // its buffers are the caller's, computed already
      continue;
    Status s = kernels_[i]->enqueue(*states[i], (*plans)[i], stream);
    if (!s.ok())
      return fail(s.withContext("kernel " + std::to_string(i)));
  }
  // Stream-ordered: the memory is released once the last kernel is done.
  return fail(Status::success());
}

} // namespace fa::runtime
