//===- BundleSpec.cpp - Bundle JSON validation ----------------------------===//
//
// Every check of docs/BundleFormat.md that needs no GPU lives here, so that a
// malformed bundle is rejected at load time with the field named.
//
//===----------------------------------------------------------------------===//
#include "fa/Runtime/BundleSpec.h"
#include "fa/Runtime/Sequence.h"

#include "Json.h"
#include "SpecReader.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace fa::runtime {

using json::Value;

// ParamKind, Layout, Swizzle and L2Promotion list their values in the
// order of the schema's enums, whose names the generated tables hold.
static_assert(int(ParamKind::F32) == 5 && int(Layout::BHSD) == 1 &&
                  int(Swizzle::B128) == 3 && int(L2Promotion::B256) == 3,
              "the enums follow the bundle schema's enum lists");
// Limits the public headers state as constants.
static_assert(detail::schema::kExpressionLengthMax == kMaxExprLength &&
                  detail::schema::kSequenceKernelsMax ==
                      int64_t(kMaxSequenceKernels),
              "Expr.h's and Sequence.h's limits are the schemas'");

const char *paramKindName(ParamKind kind) {
  return detail::schema::kParamKinds[static_cast<int>(kind)].c_str();
}

const char *layoutName(Layout layout) {
  return detail::schema::kLayouts[static_cast<int>(layout)].c_str();
}

int64_t swizzleBytes(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::None: return 0;
  case Swizzle::B32: return 32;
  case Swizzle::B64: return 64;
  case Swizzle::B128: return 128;
  }
  return 0;
}

// The operand roles and what they mean: Contract.cpp, from the schema.

const char *const kBiasBroadcastDims[2] = {"batch", "head"};

namespace detail {

Status parseChip(const std::string &chip, BundleSpec &spec) {
  // sm_<major><minor>[a|f], e.g. sm_90a, sm_80, sm_100f.
  std::string digits;
  size_t i = 3;
  if (chip.compare(0, 3, "sm_") != 0)
    return invalid("chip", "\"" + chip + "\" is not of the form sm_<NN>[a|f]");
  while (i < chip.size() && std::isdigit(static_cast<unsigned char>(chip[i])))
    digits += chip[i++];
  char suffix = 0;
  if (i < chip.size() && (chip[i] == 'a' || chip[i] == 'f'))
    suffix = chip[i++];
  if (digits.size() < 2 || digits.size() > 3 || i != chip.size())
    return invalid("chip", "\"" + chip + "\" is not of the form sm_<NN>[a|f]");
  spec.chip = chip;
  spec.chipMajor = std::stoi(digits.substr(0, digits.size() - 1));
  spec.chipMinor = digits.back() - '0';
  spec.chipSuffix = suffix;
  return Status::success();
}

Status parseHeader(const ObjectReader &r, const std::string &format,
                   const char *what, BundleSpec &spec) {
  std::string got;
  FA_RETURN_IF_ERROR(r.string("format", got));
  if (got != format)
    return invalid("format", "\"" + got + "\" is not \"" + format + "\"");
  int64_t version;
  FA_RETURN_IF_ERROR(r.integer("version", version, INT64_MIN, INT64_MAX));
  if (version != kBundleFormatVersion)
    return invalid("version", std::string("unsupported ") + what +
                                  " version " + std::to_string(version) +
                                  " (this runtime reads version " +
                                  std::to_string(kBundleFormatVersion) + ")");
  std::string chip;
  FA_RETURN_IF_ERROR(r.string("chip", chip));
  return parseChip(chip, spec);
}

static bool isFp8(DType dtype) {
  return dtype == DType::F8E4M3FN || dtype == DType::F8E5M2;
}

/// config.descale_block: [block_q, block_k], which makes the descales per
/// block of rows; only FP8 inputs have descales.
static Status parseDescaleBlock(const ObjectReader &r, BundleConfig &c) {
  const Value *v = r.get("descale_block");
  if (!v)
    return Status::success();
  std::string field = r.field("descale_block");
  constexpr int64_t kMaxRows = schema::kDescaleBlockMax;
  if (!v->is_array() || v->size() != 2)
    return invalid(field, "expected [block_q, block_k], two integers in "
                          "[1, " + std::to_string(kMaxRows) + "]");
  std::array<int64_t, 2> block{};
  for (size_t i = 0; i < 2; ++i) {
    const Value &item = (*v)[i];
    std::string what = std::string(i ? "block_k" : "block_q") +
                       ", an integer in [1, " + std::to_string(kMaxRows) + "]";
    std::string at = field + "[" + std::to_string(i) + "]";
    if (!json::isInt64(item))
      return invalid(at, "expected " + what + ", got " + json::kindName(item));
    block[i] = json::asInt64(item);
    if (block[i] < 1 || block[i] > kMaxRows)
      return invalid(at, "expected " + what + ", got " +
                             std::to_string(block[i]));
  }
  if (!isFp8(c.dtype))
    return invalid(field, std::string("per-block descales are for FP8 "
                                      "inputs, but config.dtype is ") +
                              dtypeName(c.dtype));
  c.descaleBlock = block;
  return Status::success();
}

/// config.bias_broadcast: the subset of ["batch", "head"], in that order,
/// that the kernel is specialised to broadcast; only with "bias": true.
static Status parseBiasBroadcast(const ObjectReader &r, BundleConfig &c) {
  const Value *v = r.get("bias_broadcast");
  if (!v)
    return Status::success();
  std::string field = r.field("bias_broadcast");
  const std::string expected = "expected an array of the bias dims that "
                               "broadcast: [], [\"batch\"], [\"head\"] or "
                               "[\"batch\", \"head\"]";
  if (!v->is_array() || v->size() > 2)
    return invalid(field, expected + ", got " +
                              (v->is_array() ? "an array of " +
                                                   std::to_string(v->size()) +
                                                   " entries"
                                             : json::kindName(*v)));
  std::array<bool, 2> listed{false, false};
  int last = -1;
  for (size_t i = 0; i < v->size(); ++i) {
    const Value &item = (*v)[i];
    std::string at = field + "[" + std::to_string(i) + "]";
    if (!item.is_string())
      return invalid(at, expected + "; got " + json::kindName(item));
    const std::string &name = item.get_ref<const std::string &>();
    int dim = name == kBiasBroadcastDims[0]   ? 0
              : name == kBiasBroadcastDims[1] ? 1
                                              : -1;
    if (dim < 0)
      return invalid(at, "unknown bias dim \"" + name +
                             "\" (known: batch, head)");
    if (listed[dim])
      return invalid(at, "duplicate bias dim \"" + name + "\"");
    if (dim < last)
      return invalid(at, "\"" + name + "\" must come before \"" +
                             kBiasBroadcastDims[last] +
                             "\" (the order is batch, head)");
    listed[dim] = true;
    last = dim;
  }
  if (!c.bias)
    return invalid(field, "is only allowed with \"bias\": true (the kernel "
                          "reads no bias)");
  c.biasBroadcast = listed;
  return Status::success();
}

Status parseConfig(const Value &v, BundleSpec &spec) {
  if (!v.is_object())
    return wrongType("config", "an object", v);
  ObjectReader r(v, "config");
  BundleConfig &c = spec.config;
  FA_RETURN_IF_ERROR(parseDTypeField(r, "dtype", c.dtype, true));
  c.outDType = c.dtype;
  FA_RETURN_IF_ERROR(parseDTypeField(r, "out_dtype", c.outDType, false));
  c.biasDType = c.outDType;
  FA_RETURN_IF_ERROR(parseDTypeField(r, "bias_dtype", c.biasDType, false));

  // A combine's operands have one order: no layout (bshd if one is given).
  std::string layout = "bshd";
  bool combine = spec.op == kCombineOp;
  FA_RETURN_IF_ERROR(r.string("layout", layout, /*required=*/!combine));
  if (combine && c.dtype != DType::F32)
    return invalid("config.dtype", std::string("op combine reads f32 "
                                               "partials (partial_output, "
                                               "partial_lse), got ") +
                                       dtypeName(c.dtype));
  int layoutIndex = indexOf(schema::kLayouts, layout);
  if (layoutIndex < 0)
    return invalid("config.layout",
                   "unknown layout \"" + layout +
                       "\" (known: " + joinList(schema::kLayouts) + ")");
  c.layout = static_cast<Layout>(layoutIndex);
  // Packed tokens are [1, total, heads, dim]: one order only (spec.op is
  // read before the config, in a bundle and in a sequence).
  if (isPackedOp(spec.op) && c.layout != Layout::BSHD)
    return invalid("config.layout", "op " + spec.op +
                                        " takes layout bshd "
                                        "only (packed [1, total, heads, dim] "
                                        "tensors), got \"" +
                                        layout + "\"");

  FA_RETURN_IF_ERROR(r.integer("head_dim", c.headDim, 1, schema::kHeadDimMax));
  c.headDimV = c.headDim;
  FA_RETURN_IF_ERROR(
      r.integer("head_dim_v", c.headDimV, 1, schema::kHeadDimMax, false));
  FA_RETURN_IF_ERROR(r.boolean("return_lse", c.returnLse));
  FA_RETURN_IF_ERROR(
      r.integer("page_size", c.pageSize, 1, schema::kPageSizeMax, false));
  FA_RETURN_IF_ERROR(parseDescaleBlock(r, c));
  FA_RETURN_IF_ERROR(r.boolean("bias", c.bias));
  FA_RETURN_IF_ERROR(parseBiasBroadcast(r, c));
  FA_RETURN_IF_ERROR(r.boolean("sinks", c.sinks));

  // Descriptive fields: the runtime does not use them, but their types are
  // part of the format.
  bool ignored;
  FA_RETURN_IF_ERROR(r.boolean("causal", ignored));
  if (const Value *m = r.get("mask_alignment")) {
    if (!m->is_string())
      return wrongType("config.mask_alignment", "a string", *m);
    const std::string &alignment = m->get_ref<const std::string &>();
    if (indexOf(schema::kMaskAlignments, alignment) < 0)
      return invalid("config.mask_alignment",
                     "unknown alignment \"" + alignment + "\" (known: " +
                         joinList(schema::kMaskAlignments) + ")");
  }
  if (const Value *w = r.get("window")) {
    bool ok = w->is_null() || (w->is_array() && w->size() == 2);
    if (ok && w->is_array())
      for (const Value &item : *w)
        ok = ok && (item.is_null() || json::isInt64(item));
    if (!ok)
      return invalid("config.window",
                     "expected null or [left, right] (integers or null)");
  }
  for (const char *key : {"softcap", "scale"}) {
    if (const Value *n = r.get(key)) {
      if (!n->is_null() && !n->is_number())
        return wrongType(r.field(key), "a number or null", *n);
    }
  }
  spec.configJson = v.dump(-1, ' ', false, json::Value::error_handler_t::replace);
  return Status::success();
}

Status parseDim3(const ObjectReader &r, const std::string &key,
                 std::array<uint32_t, 3> &out, bool required,
                 int64_t maxProduct) {
  const Value *v = r.get(key);
  if (!v) {
    if (!required)
      return Status::success();
    return invalid("bundle", "missing field \"" + key + "\"");
  }
  if (!v->is_array() || v->size() != 3)
    return invalid(key, "expected an array of 3 positive integers");
  int64_t product = 1;
  for (size_t i = 0; i < 3; ++i) {
    const Value &item = (*v)[i];
    if (!json::isInt64(item) || json::asInt64(item) < 1 ||
        json::asInt64(item) > schema::kDim3ItemMax)
      return invalid(key + "[" + std::to_string(i) + "]",
                     "expected a positive integer (at most " +
                         std::to_string(schema::kDim3ItemMax) + ")");
    out[i] = static_cast<uint32_t>(json::asInt64(item));
    product *= json::asInt64(item);
  }
  if (product > maxProduct)
    return invalid(key, "has " + std::to_string(product) +
                            " elements; at most " + std::to_string(maxProduct) +
                            " are allowed");
  return Status::success();
}

std::string knownOperandList(const BundleSpec &spec) {
  std::string out;
  for (const auto &r : standardRoles())
    out += (out.empty() ? "" : ", ") + r;
  for (const auto &s : spec.scratch)
    out += ", " + s.name + " (scratch)";
  for (const auto &c : spec.captures)
    out += ", " + c.name + " (capture)";
  return out;
}

/// An expression given as a string, or as a JSON number. stride() may name
/// the standard roles and the scratch buffers declared so far (all of them,
/// since scratch is read first).
Status parseExprValue(const Value &v, const std::string &field, bool isFloat,
                      const BundleSpec &spec, Expr &out) {
  if (v.is_string()) {
    OperandScope scope;
    scope.dimsOf = [&spec](const std::string &operand) {
      return operandDims(spec, operand);
    };
    scope.known = knownOperandList(spec);
    Expected<Expr> e = Expr::parse(v.get_ref<const std::string &>(), scope);
    if (!e.ok())
      return e.status().withContext(field);
    if (!isFloat && e->isFloat())
      return invalid(field, "expression \"" + v.get_ref<const std::string &>() +
                                "\" has a float value; an integer is required");
    out = *e;
    return Status::success();
  }
  if (json::isInt64(v)) {
    out = Expr::integer(json::asInt64(v));
    return Status::success();
  }
  if (v.is_number()) {
    if (!isFloat)
      return invalid(field, "expected an integer or an integer expression, "
                            "got a float");
    out = Expr::floating(v.get<double>());
    return Status::success();
  }
  return wrongType(field, "an expression string or a number", v);
}

Status parseGrid(const ObjectReader &r, BundleSpec &spec) {
  const Value *v;
  FA_RETURN_IF_ERROR(r.require("grid", v));
  if (!v->is_array() || v->size() != 3)
    return invalid("grid", "expected an array of 3 integer expressions");
  for (size_t i = 0; i < 3; ++i)
    FA_RETURN_IF_ERROR(parseExprValue((*v)[i],
                                      "grid[" + std::to_string(i) + "]",
                                      /*isFloat=*/false, spec, spec.grid[i]));
  return Status::success();
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

/// The name, dtype and dims of a scratch or capture entry (`field`
/// names the list): a new identifier that is not a standard role, 1 to 8
/// distinct dimension names.
Status parseNamedBuffer(const ObjectReader &r, const std::string &field,
                        const BundleSpec &spec, ScratchSpec &s) {
  FA_RETURN_IF_ERROR(r.string("name", s.name));
  if (!isIdentifier(s.name))
    return invalid(r.field("name"),
                   "\"" + s.name + "\" is not an identifier");
  if (isStandardRole(s.name))
    return invalid(r.field("name"), "\"" + s.name +
                                        "\" is a standard operand role");
  for (const auto *list : {&spec.scratch, &spec.captures})
    for (const ScratchSpec &other : *list)
      if (other.name == s.name)
        return invalid(r.field("name"),
                       "duplicate " + field + " name \"" + s.name + "\"");
  FA_RETURN_IF_ERROR(parseDTypeField(r, "dtype", s.dtype, true));
  const Value *dims;
  FA_RETURN_IF_ERROR(r.require("dims", dims));
  if (!dims->is_array() || dims->empty() ||
      dims->size() > size_t(schema::kScratchDimsMax))
    return invalid(r.field("dims"),
                   "expected an array of 1 to " +
                       std::to_string(schema::kScratchDimsMax) +
                       " dimension names");
  std::set<std::string> seen;
  for (const Value &d : *dims) {
    if (!d.is_string() || !isIdentifier(d.get_ref<const std::string &>()))
      return invalid(r.field("dims"), "dimension names must be identifiers");
    if (!seen.insert(d.get_ref<const std::string &>()).second)
      return invalid(r.field("dims"),
                     "duplicate dimension \"" + d.get_ref<const std::string &>() + "\"");
    s.dims.push_back(d.get_ref<const std::string &>());
  }
  return Status::success();
}

/// "captures": the operands score_mod/mask_mod read, each {name, dtype,
/// dims}.
Status parseCaptureList(const Value &v, BundleSpec &spec) {
  if (!v.is_array())
    return wrongType("captures", "an array", v);
  for (size_t i = 0; i < v.size(); ++i) {
    std::string path = "captures[" + std::to_string(i) + "]";
    if (!v[i].is_object())
      return wrongType(path, "an object", v[i]);
    ObjectReader r(v[i], path);
    FA_RETURN_IF_ERROR(r.onlyKeys({"name", "dtype", "dims"}));
    ScratchSpec c;
    FA_RETURN_IF_ERROR(parseNamedBuffer(r, "captures", spec, c));
    spec.captures.push_back(std::move(c));
  }
  return Status::success();
}

Status parseScratchList(const Value &v, const std::string &field,
                        BundleSpec &spec, std::vector<bool> *zeroInit) {
  if (!v.is_array())
    return wrongType(field, "an array", v);
  for (size_t i = 0; i < v.size(); ++i) {
    std::string path = field + "[" + std::to_string(i) + "]";
    const Value &item = v[i];
    if (!item.is_object())
      return wrongType(path, "an object", item);
    ObjectReader r(item, path);
    if (zeroInit) {
      FA_RETURN_IF_ERROR(r.onlyKeys(schema::kWorkspaceKeys));
      std::string init;
      FA_RETURN_IF_ERROR(r.string("init", init));
      if (indexOf(schema::kWorkspaceInits, init) < 0)
        return invalid(r.field("init"),
                       "unknown init \"" + init + "\" (known: " +
                           joinList(schema::kWorkspaceInits) + ")");
      zeroInit->push_back(init == "zero");
    } else {
      FA_RETURN_IF_ERROR(r.onlyKeys(schema::kScratchKeys));
    }
    ScratchSpec s;
    FA_RETURN_IF_ERROR(parseNamedBuffer(r, field, spec, s));
    const Value *shape;
    FA_RETURN_IF_ERROR(r.require("shape", shape));
    if (!shape->is_array() || shape->size() != s.dims.size())
      return invalid(r.field("shape"),
                     "expected one integer expression per entry of \"dims\"");
    spec.scratch.push_back(std::move(s));
  }
  // Shapes once every buffer is declared: a stride() in a shape may name any.
  for (size_t i = 0; i < v.size(); ++i) {
    std::string where = field + "[" + std::to_string(i) + "].shape";
    const Value &shape = *json::find(v[i], "shape");
    for (size_t j = 0; j < shape.size(); ++j) {
      Expr e;
      FA_RETURN_IF_ERROR(parseExprValue(shape[j],
                                        where + "[" + std::to_string(j) + "]",
                                        false, spec, e));
      spec.scratch[i].shape.push_back(e);
    }
  }
  return Status::success();
}

Status parseOperand(const ObjectReader &r, const BundleSpec &spec,
                    std::string &out) {
  FA_RETURN_IF_ERROR(r.string("operand", out));
  if (operandDims(spec, out).empty())
    return invalid(r.field("operand"), "unknown operand \"" + out +
                                           "\" (known: " +
                                           knownOperandList(spec) + ")");
  return Status::success();
}

Status parseTensorMapParam(const ObjectReader &r, const BundleSpec &spec,
                           ParamSpec &p) {
  FA_RETURN_IF_ERROR(r.onlyKeys(schema::kTensorMapParamKeys));
  FA_RETURN_IF_ERROR(parseOperand(r, spec, p.operand));
  std::vector<std::string> operandNames = operandDims(spec, p.operand);
  p.dtype = *operandDType(spec, p.operand);

  const Value *dims;
  FA_RETURN_IF_ERROR(r.require("dims", dims));
  if (!dims->is_array())
    return wrongType(r.field("dims"), "an array of dimension names", *dims);
  std::set<std::string> seen;
  for (const Value &d : *dims) {
    if (!d.is_string())
      return wrongType(r.field("dims"), "an array of strings", d);
    const std::string &name = d.get_ref<const std::string &>();
    if (std::find(operandNames.begin(), operandNames.end(), name) ==
        operandNames.end()) {
      std::string list;
      for (const auto &n : operandNames)
        list += (list.empty() ? "" : ", ") + n;
      return invalid(r.field("dims"), "\"" + name + "\" is not a dimension of "
                                          "operand \"" + p.operand +
                                          "\" (its dims: " + list + ")");
    }
    if (!seen.insert(name).second)
      return invalid(r.field("dims"), "duplicate dimension \"" + name + "\"");
    p.dims.push_back(name);
  }
  if (p.dims.size() != operandNames.size())
    return invalid(r.field("dims"),
                   "must list all " + std::to_string(operandNames.size()) +
                       " dimensions of operand \"" + p.operand + "\"");
  if (p.dims.size() > size_t(schema::kTensorMapDimsMax))
    return invalid(r.field("dims"),
                   "a tensor map has at most " +
                       std::to_string(schema::kTensorMapDimsMax) +
                       " dimensions");
  // TMA has no stride for its first dimension: it must be the contiguous one.
  if (p.dims.front() != operandNames.back())
    return invalid(r.field("dims"), "the first (innermost) dimension must be \"" +
                                        operandNames.back() +
                                        "\", the contiguous dimension of \"" +
                                        p.operand + "\"");

  const Value *box;
  FA_RETURN_IF_ERROR(r.require("box", box));
  if (!box->is_array() || box->empty() ||
      box->size() > p.dims.size())
    return invalid(r.field("box"),
                   "expected an array of 1 to " + std::to_string(p.dims.size()) +
                       " positive integers");
  for (const Value &b : *box) {
    if (!json::isInt64(b) || json::asInt64(b) < 1 ||
        json::asInt64(b) > schema::kBoxMax)
      return invalid(r.field("box"), "box sizes must be integers in [1, " +
                                         std::to_string(schema::kBoxMax) + "]");
    p.box.push_back(json::asInt64(b));
  }

  int swizzle = 0;
  FA_RETURN_IF_ERROR(
      r.choice("swizzle", schema::kSwizzles, "swizzle", swizzle));
  p.swizzle = static_cast<Swizzle>(swizzle);
  int l2 = static_cast<int>(L2Promotion::B128); // the default
  FA_RETURN_IF_ERROR(r.choice("l2_promotion", schema::kL2Promotions,
                              "L2 promotion", l2, /*required=*/false));
  p.l2Promotion = static_cast<L2Promotion>(l2);

  DType declared = p.dtype;
  FA_RETURN_IF_ERROR(parseDTypeField(r, "dtype", declared, false));
  if (declared != p.dtype)
    return invalid(r.field("dtype"),
                   std::string("\"") + dtypeName(declared) +
                       "\" does not match operand \"" + p.operand +
                       "\", whose dtype is " + dtypeName(p.dtype));

  // cuTensorMapEncodeTiled's rules on the inner box extent.
  int64_t innerBytes = p.box[0] * dtypeSize(p.dtype);
  if (innerBytes % 16 != 0)
    return invalid(r.field("box"), "the inner box extent (" +
                                       std::to_string(p.box[0]) + " x " +
                                       dtypeName(p.dtype) + " = " +
                                       std::to_string(innerBytes) +
                                       " bytes) must be a multiple of 16 bytes");
  if (p.swizzle != Swizzle::None && innerBytes > swizzleBytes(p.swizzle))
    return invalid(r.field("box"),
                   "the inner box extent (" + std::to_string(innerBytes) +
                       " bytes) exceeds the " + schema::kSwizzles[swizzle] +
                       " swizzle span");
  return Status::success();
}

Status parseParams(const ObjectReader &top, BundleSpec &spec) {
  const Value *v;
  FA_RETURN_IF_ERROR(top.require("params", v));
  if (!v->is_array())
    return wrongType("params", "an array", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    std::string path = "params[" + std::to_string(i) + "]";
    const Value &item = (*v)[i];
    if (!item.is_object())
      return wrongType(path, "an object", item);
    ObjectReader r(item, path);
    std::string kind;
    FA_RETURN_IF_ERROR(r.string("kind", kind));
    int kindIndex = indexOf(schema::kParamKinds, kind);
    if (kindIndex < 0)
      return invalid(r.field("kind"),
                     "unknown parameter kind \"" + kind +
                         "\" (known: " + joinList(schema::kParamKinds) + ")");
    ParamSpec p;
    p.kind = static_cast<ParamKind>(kindIndex);
    if (p.kind == ParamKind::TensorMap ||
        p.kind == ParamKind::TensorMapGlobal) {
      FA_RETURN_IF_ERROR(parseTensorMapParam(r, spec, p));
    } else if (p.kind == ParamKind::Ptr) {
      FA_RETURN_IF_ERROR(r.onlyKeys(schema::kPtrParamKeys));
      FA_RETURN_IF_ERROR(parseOperand(r, spec, p.operand));
      p.dtype = *operandDType(spec, p.operand);
      p.align = dtypeSize(p.dtype);
      FA_RETURN_IF_ERROR(
          r.integer("align", p.align, 1, schema::kAlignMax, false));
      if (p.align & (p.align - 1))
        return invalid(r.field("align"), "must be a power of two");
    } else { // i32, i64, f32
      FA_RETURN_IF_ERROR(r.onlyKeys(schema::kValueParamKeys));
      const Value *value;
      FA_RETURN_IF_ERROR(r.require("value", value));
      FA_RETURN_IF_ERROR(parseExprValue(*value, r.field("value"),
                                        p.kind == ParamKind::F32, spec,
                                        p.value));
    }
    spec.params.push_back(std::move(p));
  }
  return Status::success();
}

void computeRequiredOperands(BundleSpec &spec) {
  std::vector<std::string> req;
  auto add = [&](const std::string &role) {
    if (std::find(req.begin(), req.end(), role) == req.end())
      req.push_back(role);
  };
  for (const std::string &role : opOperands(spec.op, spec.config))
    add(role);
  for (const ParamSpec &p : spec.params)
    if (!p.operand.empty())
      add(p.operand);
  // stride(operand, dim) and size(operand, dim) read the operand at launch.
  auto addStrided = [&](const Expr &e) {
    for (const StrideRef &ref : e.strides())
      add(ref.operand);
    for (const StrideRef &ref : e.sizes())
      add(ref.operand);
  };
  for (const Expr &e : spec.grid)
    addStrided(e);
  for (const ParamSpec &p : spec.params)
    if (p.operand.empty())
      addStrided(p.value);
  for (const ScratchSpec &s : spec.scratch)
    for (const Expr &e : s.shape)
      addStrided(e);
  for (const ScratchSpec &s : spec.scratch)
    add(s.name);
  for (const ScratchSpec &c : spec.captures)
    add(c.name);
  spec.requiredOperands = std::move(req);
}

} // namespace detail

using namespace detail;

Expected<BundleSpec> parseBundleSpec(const std::string &jsonText,
                                     const std::string &baseDir) {
  Expected<Value> doc = json::parse(jsonText);
  if (!doc.ok())
    return doc.status();
  if (!doc->is_object())
    return wrongType("bundle", "a JSON object", *doc);
  ObjectReader r(*doc, "");
  BundleSpec spec;

  FA_RETURN_IF_ERROR(parseHeader(r, "fa-kernel-bundle", "bundle", spec));
  FA_RETURN_IF_ERROR(r.string("kernel", spec.kernel));
  std::string cubin;
  FA_RETURN_IF_ERROR(r.string("cubin", cubin));
  spec.cubinPath = (cubin[0] == '/' || baseDir.empty())
                       ? cubin
                       : baseDir + "/" + cubin;
  FA_RETURN_IF_ERROR(r.string("op", spec.op));

  const Value *config;
  FA_RETURN_IF_ERROR(r.require("config", config));
  FA_RETURN_IF_ERROR(parseConfig(*config, spec));

  FA_RETURN_IF_ERROR(parseDim3(r, "block", spec.block, true, 1024));
  FA_RETURN_IF_ERROR(parseDim3(r, "cluster", spec.cluster, false, 16));
  FA_RETURN_IF_ERROR(r.integer("shared_memory_bytes", spec.sharedMemoryBytes, 0,
                               schema::kSharedMemoryMax));
  // Scratch first: expressions in the grid and params may name its buffers.
  if (const Value *scratch = r.get("scratch"))
    FA_RETURN_IF_ERROR(parseScratchList(*scratch, "scratch", spec, nullptr));
  if (const Value *captures = r.get("captures"))
    FA_RETURN_IF_ERROR(parseCaptureList(*captures, spec));
  FA_RETURN_IF_ERROR(parseGrid(r, spec));
  FA_RETURN_IF_ERROR(parseParams(r, spec));
  computeRequiredOperands(spec);
  spec.json = doc->dump(-1, ' ', false, json::Value::error_handler_t::replace);
  return spec;
}

} // namespace fa::runtime
