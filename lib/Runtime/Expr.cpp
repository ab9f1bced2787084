//===- Expr.cpp - Shape expressions ---------------------------------------===//
#include "fa/Runtime/Expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace fa::runtime {

static const char *const kSymbolNames[kNumSymbols] = {
#define FA_SYMBOL(cpp, name) name,
#include "fa/Runtime/Symbols.inc"
#undef FA_SYMBOL
};

const char *symbolName(Symbol symbol) {
  return kSymbolNames[static_cast<int>(symbol)];
}

const std::string &symbolNameList() {
  static const std::string list = [] {
    std::string out;
    for (const char *name : kSymbolNames)
      out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
  }();
  return list;
}

std::optional<Symbol> parseSymbol(const std::string &name) {
  for (int i = 0; i < kNumSymbols; ++i)
    if (name == kSymbolNames[i])
      return static_cast<Symbol>(i);
  return std::nullopt;
}

void SymbolTable::setOperand(const std::string &operand,
                             const std::vector<std::string> &dims,
                             const std::vector<int64_t> &sizes,
                             const std::vector<int64_t> &strides) {
  std::vector<OperandDim> &out = operands_[operand];
  out.clear();
  for (size_t i = 0; i < dims.size() && i < sizes.size() && i < strides.size();
       ++i)
    out.push_back({dims[i], sizes[i], sizes[i] == 1 ? 0 : strides[i]});
}

const SymbolTable::OperandDim *
SymbolTable::findDim(const std::string &operand, const std::string &dim) const {
  auto it = operands_.find(operand);
  if (it == operands_.end())
    return nullptr;
  for (const OperandDim &d : it->second)
    if (d.name == dim)
      return &d;
  return nullptr;
}

std::optional<int64_t> SymbolTable::stride(const std::string &operand,
                                           const std::string &dim) const {
  const OperandDim *d = findDim(operand, dim);
  return d ? std::optional<int64_t>(d->stride) : std::nullopt;
}

std::optional<int64_t> SymbolTable::size(const std::string &operand,
                                         const std::string &dim) const {
  const OperandDim *d = findDim(operand, dim);
  return d ? std::optional<int64_t>(d->size) : std::nullopt;
}

enum class Op {
  Int,
  Float,
  Sym,
  Stride,
  Size,
  Neg,
  Add,
  Sub,
  Mul,
  Div,
  CeilDiv,
  Min,
  Max
};

/// One step of the postfix program: a leaf pushes a value, Neg replaces the
/// top of the stack, a binary op pops two and pushes one.
struct Instr {
  Op op;
  int64_t intValue = 0;
  double floatValue = 0;
  Symbol symbol = Symbol::Batch;
  std::string operand, dim; // Stride, Size
};

struct Expr::Program {
  std::vector<Instr> code;
  bool isFloat = false; // static type of the value
};

namespace {

/// A value during evaluation: integer unless a float took part.
struct Num {
  bool isFloat;
  int64_t i;
  double f;
  double asDouble() const { return isFloat ? f : static_cast<double>(i); }
};

/// Recursive descent over a bounded text: loops for `+ - * /` and unary
/// signs, recursion only for parentheses and calls, at most kMaxExprNesting
/// deep. Each rule appends its postfix code and reports its static type.
class ExprParser {
public:
  ExprParser(const std::string &text, const OperandScope *scope)
      : text_(text), scope_(scope) {}

  Status parseAll(Expr::Program &out) {
    if (text_.size() > kMaxExprLength)
      return Status::error(
          ErrorCode::InvalidBundle,
          "expression of " + std::to_string(text_.size()) +
              " characters: at most " + std::to_string(kMaxExprLength) +
              " are allowed");
    FA_RETURN_IF_ERROR(parseSum(out.isFloat));
    skipSpace();
    if (pos_ < text_.size())
      return fail(std::string("unexpected '") + text_[pos_] + "'");
    out.code = std::move(code_);
    return Status::success();
  }

private:
  Status fail(const std::string &what) const {
    std::string where = pos_ >= text_.size()
                            ? "at end of expression"
                            : "at column " + std::to_string(pos_ + 1);
    return Status::error(ErrorCode::InvalidBundle, "expression \"" + text_ +
                                                       "\": " + what + " " +
                                                       where);
  }

  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void emit(Op op) { code_.push_back(Instr{op}); }

  /// Enters one level of parentheses or a call; fails past the limit.
  Status enter() {
    if (++depth_ > kMaxExprNesting)
      return fail("nesting deeper than " + std::to_string(kMaxExprNesting) +
                  " levels");
    return Status::success();
  }

  // sum := product (('+' | '-') product)*
  Status parseSum(bool &isFloat) {
    FA_RETURN_IF_ERROR(parseProduct(isFloat));
    while (true) {
      Op op;
      if (consume('+'))
        op = Op::Add;
      else if (consume('-'))
        op = Op::Sub;
      else
        return Status::success();
      bool rhsFloat;
      FA_RETURN_IF_ERROR(parseProduct(rhsFloat));
      emit(op);
      isFloat = isFloat || rhsFloat;
    }
  }

  // product := unary (('*' | '/') unary)*
  Status parseProduct(bool &isFloat) {
    FA_RETURN_IF_ERROR(parseUnary(isFloat));
    while (true) {
      Op op;
      if (consume('*'))
        op = Op::Mul;
      else if (consume('/'))
        op = Op::Div;
      else
        return Status::success();
      bool rhsFloat;
      FA_RETURN_IF_ERROR(parseUnary(rhsFloat));
      emit(op);
      isFloat = isFloat || rhsFloat;
    }
  }

  // unary := ('-' | '+')* primary; each '-' negates once (so an overflow of
  // an inner negation is still reported).
  Status parseUnary(bool &isFloat) {
    size_t negations = 0;
    while (true) {
      if (consume('-'))
        ++negations;
      else if (!consume('+'))
        break;
    }
    FA_RETURN_IF_ERROR(parsePrimary(isFloat));
    for (size_t i = 0; i < negations; ++i)
      emit(Op::Neg);
    return Status::success();
  }

  Status parseNumber(bool &isFloat) {
    size_t start = pos_;
    isFloat = false;
    while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
      ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      isFloat = true;
      ++pos_;
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
        ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      isFloat = true;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (pos_ >= text_.size() || !std::isdigit((unsigned char)text_[pos_]))
        return fail("expected digits in the exponent");
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
        ++pos_;
    }
    const char *first = text_.data() + start, *last = text_.data() + pos_;
    if (first == last || (last - first == 1 && *first == '.')) {
      pos_ = start;
      return fail("invalid number");
    }
    Instr n{isFloat ? Op::Float : Op::Int};
    if (isFloat) {
      auto res = std::from_chars(first, last, n.floatValue);
      if (res.ec != std::errc() || res.ptr != last) {
        pos_ = start;
        return fail("invalid float literal");
      }
    } else {
      auto res = std::from_chars(first, last, n.intValue);
      if (res.ec != std::errc() || res.ptr != last) {
        pos_ = start;
        return fail("integer literal out of range");
      }
    }
    code_.push_back(std::move(n));
    return Status::success();
  }

  Status parsePrimary(bool &isFloat) {
    skipSpace();
    isFloat = false;
    if (pos_ >= text_.size())
      return fail("expected a number, symbol, function or '('");
    char c = text_[pos_];
    if (std::isdigit((unsigned char)c) || c == '.')
      return parseNumber(isFloat);
    if (c == '(') {
      FA_RETURN_IF_ERROR(enter());
      ++pos_;
      FA_RETURN_IF_ERROR(parseSum(isFloat));
      if (!consume(')'))
        return fail("expected ')'");
      --depth_;
      return Status::success();
    }
    if (!atIdentifierStart())
      return fail(std::string("unexpected '") + c + "'");
    size_t start = pos_;
    std::string name = identifier();
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (name == "stride" || name == "size") {
        ++pos_;
        return parseOperandDim(name == "stride" ? Op::Stride : Op::Size);
      }
      return parseCall(name, start, isFloat);
    }
    std::optional<Symbol> sym = parseSymbol(name);
    if (!sym) {
      pos_ = start;
      return fail("unknown symbol '" + name + "' (known: " +
                  symbolNameList() + ")");
    }
    Instr n{Op::Sym};
    n.symbol = *sym;
    code_.push_back(std::move(n));
    return Status::success();
  }

  // call := ('ceildiv' | 'min' | 'max') '(' sum ',' sum ')', entered at '('.
  Status parseCall(const std::string &name, size_t start, bool &isFloat) {
    Op op;
    if (name == "ceildiv")
      op = Op::CeilDiv;
    else if (name == "min")
      op = Op::Min;
    else if (name == "max")
      op = Op::Max;
    else {
      pos_ = start;
      return fail("unknown function '" + name +
                  "' (known: ceildiv, min, max, stride, size)");
    }
    FA_RETURN_IF_ERROR(enter());
    ++pos_;
    bool aFloat, bFloat;
    FA_RETURN_IF_ERROR(parseSum(aFloat));
    if (!consume(','))
      return fail(name + "() takes 2 arguments; expected ','");
    FA_RETURN_IF_ERROR(parseSum(bFloat));
    if (!consume(')'))
      return fail(name + "() takes 2 arguments; expected ')'");
    --depth_;
    if (op == Op::CeilDiv && (aFloat || bFloat)) {
      pos_ = start;
      return fail("ceildiv() needs integer arguments");
    }
    emit(op);
    isFloat = aFloat || bFloat;
    return Status::success();
  }

  bool atIdentifierStart() const {
    return pos_ < text_.size() &&
           (std::isalpha((unsigned char)text_[pos_]) || text_[pos_] == '_');
  }

  std::string identifier() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum((unsigned char)text_[pos_]) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }

  static std::string join(const std::vector<std::string> &names) {
    std::string out;
    for (const auto &n : names)
      out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  // operand_dim := ('stride' | 'size') '(' name ',' name ')', entered after
  // the '('. The arguments are names, not expressions: an operand and one of
  // its dims.
  Status parseOperandDim(Op op) {
    const std::string fn = op == Op::Stride ? "stride()" : "size()";
    const std::string kArity =
        fn + " takes 2 arguments, an operand and one of its dimensions";
    const std::string kNames =
        fn + " takes names (an operand and one of its dimensions), not "
             "expressions";
    std::string args[2];
    size_t argPos[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ')')
        return fail(std::string(kArity) + "; got " + std::to_string(i));
      if (!atIdentifierStart())
        return fail(std::string(kNames) + "; expected " +
                    (i == 0 ? "an operand name" : "a dimension name"));
      argPos[i] = pos_;
      args[i] = identifier();
      skipSpace();
      char want = i == 0 ? ',' : ')';
      if (pos_ < text_.size() && text_[pos_] == want) {
        ++pos_;
        continue;
      }
      if (pos_ >= text_.size())
        return fail(std::string(kArity) + "; expected '" + want + "'");
      if (i == 0 && text_[pos_] == ')')
        return fail(std::string(kArity) + "; got 1");
      if (i == 1 && text_[pos_] == ',')
        return fail(std::string(kArity) + "; got more");
      return fail(std::string(kNames) + "; unexpected '" + text_[pos_] + "'");
    }
    if (scope_) {
      std::vector<std::string> dims = scope_->dimsOf(args[0]);
      if (dims.empty()) {
        pos_ = argPos[0];
        return fail(fn + ": unknown operand '" + args[0] +
                    "' (known: " + scope_->known + ")");
      }
      if (std::find(dims.begin(), dims.end(), args[1]) == dims.end()) {
        pos_ = argPos[1];
        return fail(fn + ": operand '" + args[0] + "' has no dimension '" +
                    args[1] + "' (its dims: " + join(dims) + ")");
      }
    }
    Instr n;
    n.op = op;
    n.operand = args[0];
    n.dim = args[1];
    code_.push_back(std::move(n));
    return Status::success();
  }

  const std::string &text_;
  const OperandScope *scope_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<Instr> code_;
};

/// Runs a postfix program on an explicit stack.
class Evaluator {
public:
  Evaluator(const std::string &text, const SymbolTable &symbols)
      : text_(text), symbols_(symbols) {}

  Status run(const std::vector<Instr> &code, Num &out) const {
    std::vector<Num> stack;
    for (const Instr &in : code) {
      if (isBinary(in.op)) {
        if (stack.size() < 2)
          return fail("internal error: malformed program");
        Num b = stack.back();
        stack.pop_back();
        FA_RETURN_IF_ERROR(binary(in.op, stack.back(), b, stack.back()));
        continue;
      }
      if (in.op == Op::Neg) {
        if (stack.empty())
          return fail("internal error: malformed program");
        FA_RETURN_IF_ERROR(negate(stack.back()));
        continue;
      }
      Num leaf;
      FA_RETURN_IF_ERROR(load(in, leaf));
      stack.push_back(leaf);
    }
    if (stack.size() != 1)
      return fail("internal error: malformed program");
    out = stack.back();
    return Status::success();
  }

  Status fail(const std::string &what) const {
    return Status::error(ErrorCode::Expression,
                         "expression \"" + text_ + "\": " + what);
  }

private:
  static bool isBinary(Op op) {
    return op != Op::Int && op != Op::Float && op != Op::Sym &&
           op != Op::Stride && op != Op::Size && op != Op::Neg;
  }

  Status load(const Instr &in, Num &out) const {
    switch (in.op) {
    case Op::Int: out = {false, in.intValue, 0}; return Status::success();
    case Op::Float: out = {true, 0, in.floatValue}; return Status::success();
    case Op::Sym: {
      std::optional<int64_t> v = symbols_.get(in.symbol);
      if (!v) {
        std::string why = symbols_.unsetReason(in.symbol);
        return fail(std::string("symbol '") + symbolName(in.symbol) +
                    "' has no value at this launch (no operand provides it" +
                    (why.empty() ? "" : "; " + why) + ")");
      }
      out = {false, *v, 0};
      return Status::success();
    }
    case Op::Stride:
    case Op::Size: {
      bool stride = in.op == Op::Stride;
      std::string call = std::string(stride ? "stride(" : "size(") +
                         in.operand + ", " + in.dim + ")";
      if (!symbols_.hasOperand(in.operand))
        return fail(call + ": operand '" + in.operand +
                    "' is not passed at this launch");
      std::optional<int64_t> v = stride ? symbols_.stride(in.operand, in.dim)
                                        : symbols_.size(in.operand, in.dim);
      if (!v)
        return fail(call + ": operand '" + in.operand +
                    "' has no dimension '" + in.dim + "'");
      out = {false, *v, 0};
      return Status::success();
    }
    default: return fail("internal error: not a leaf");
    }
  }

  Status negate(Num &a) const {
    if (a.isFloat) {
      a.f = -a.f;
      return Status::success();
    }
    if (a.i == std::numeric_limits<int64_t>::min())
      return fail("integer overflow");
    a.i = -a.i;
    return Status::success();
  }

  Status binary(Op op, const Num &a, const Num &b, Num &out) const {
    if (a.isFloat || b.isFloat)
      return evalFloat(op, a.asDouble(), b.asDouble(), out);
    return evalInt(op, a.i, b.i, out);
  }

  Status evalInt(Op op, int64_t a, int64_t b, Num &out) const {
    int64_t r = 0;
    switch (op) {
    case Op::Add:
      if (__builtin_add_overflow(a, b, &r))
        return fail("integer overflow");
      break;
    case Op::Sub:
      if (__builtin_sub_overflow(a, b, &r))
        return fail("integer overflow");
      break;
    case Op::Mul:
      if (__builtin_mul_overflow(a, b, &r))
        return fail("integer overflow");
      break;
    case Op::Div:
    case Op::CeilDiv:
      if (b == 0)
        return fail(op == Op::Div ? "division by zero"
                                  : "division by zero in ceildiv()");
      if (a == std::numeric_limits<int64_t>::min() && b == -1)
        return fail("integer overflow");
      r = a / b;
      if (op == Op::CeilDiv && a % b != 0 && ((a < 0) == (b < 0)))
        ++r; // round toward +infinity
      break;
    case Op::Min: r = a < b ? a : b; break;
    case Op::Max: r = a > b ? a : b; break;
    default: return fail("internal error: bad integer operator");
    }
    out = {false, r, 0};
    return Status::success();
  }

  Status evalFloat(Op op, double a, double b, Num &out) const {
    double r = 0;
    switch (op) {
    case Op::Add: r = a + b; break;
    case Op::Sub: r = a - b; break;
    case Op::Mul: r = a * b; break;
    case Op::Div:
      if (b == 0)
        return fail("division by zero");
      r = a / b;
      break;
    case Op::Min: r = std::fmin(a, b); break;
    case Op::Max: r = std::fmax(a, b); break;
    default: return fail("internal error: bad float operator");
    }
    if (!std::isfinite(r))
      return fail("float result is not finite");
    out = {true, 0, r};
    return Status::success();
  }

  const std::string &text_;
  const SymbolTable &symbols_;
};

} // namespace

Expected<Expr> Expr::parse(const std::string &text) {
  return parse(text, OperandScope());
}

Expected<Expr> Expr::parse(const std::string &text,
                           const OperandScope &scope) {
  auto program = std::make_shared<Program>();
  FA_RETURN_IF_ERROR(
      ExprParser(text, scope.dimsOf ? &scope : nullptr).parseAll(*program));
  Expr e;
  e.program_ = std::move(program);
  e.text_ = text;
  return e;
}

Expr Expr::integer(int64_t value) {
  auto program = std::make_shared<Program>();
  Instr n{Op::Int};
  n.intValue = value;
  program->code.push_back(n);
  Expr e;
  e.program_ = std::move(program);
  e.text_ = std::to_string(value);
  return e;
}

Expr Expr::floating(double value) {
  auto program = std::make_shared<Program>();
  Instr n{Op::Float};
  n.floatValue = value;
  program->code.push_back(n);
  program->isFloat = true;
  Expr e;
  e.program_ = std::move(program);
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  e.text_.assign(buf, res.ptr);
  return e;
}

bool Expr::isFloat() const { return program_ && program_->isFloat; }

std::vector<Symbol> Expr::symbols() const {
  std::set<int> ids;
  if (program_)
    for (const Instr &in : program_->code)
      if (in.op == Op::Sym)
        ids.insert(static_cast<int>(in.symbol));
  std::vector<Symbol> out;
  for (int id : ids)
    out.push_back(static_cast<Symbol>(id));
  return out;
}

/// The (operand, dim) references of `op` in `program`, each once.
static std::vector<StrideRef> operandDimRefs(const Expr::Program *program,
                                             Op op) {
  std::vector<StrideRef> out;
  if (!program)
    return out;
  for (const Instr &in : program->code) {
    if (in.op != op)
      continue;
    bool seen = false;
    for (const StrideRef &r : out)
      seen = seen || (r.operand == in.operand && r.dim == in.dim);
    if (!seen)
      out.push_back({in.operand, in.dim});
  }
  return out;
}

std::vector<StrideRef> Expr::strides() const {
  return operandDimRefs(program_.get(), Op::Stride);
}

std::vector<StrideRef> Expr::sizes() const {
  return operandDimRefs(program_.get(), Op::Size);
}

Expected<int64_t> Expr::evalInt(const SymbolTable &symbols) const {
  Evaluator ev(text_, symbols);
  if (!program_)
    return ev.fail("empty expression");
  Num v;
  FA_RETURN_IF_ERROR(ev.run(program_->code, v));
  if (v.isFloat)
    return ev.fail("has a float value where an integer is required");
  return v.i;
}

Expected<double> Expr::evalFloat(const SymbolTable &symbols) const {
  Evaluator ev(text_, symbols);
  if (!program_)
    return ev.fail("empty expression");
  Num v;
  FA_RETURN_IF_ERROR(ev.run(program_->code, v));
  return v.asDouble();
}

} // namespace fa::runtime
