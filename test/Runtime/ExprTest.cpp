//===- ExprTest.cpp - Shape expressions -----------------------------------===//
#include "Matchers.h"

#include "fa/Runtime/Expr.h"

using namespace fa::runtime;

namespace {

SymbolTable sampleSymbols() {
  SymbolTable t;
  t.set(Symbol::Batch, 2);
  t.set(Symbol::HeadsQ, 16);
  t.set(Symbol::HeadsKV, 4);
  t.set(Symbol::SeqQ, 1000);
  t.set(Symbol::SeqK, 333);
  t.set(Symbol::HeadDim, 128);
  t.set(Symbol::HeadDimV, 64);
  t.set(Symbol::NumSMs, 132);
  return t;
}

std::vector<int64_t> contiguousStrides4(int64_t, int64_t b, int64_t c, int64_t d) {
  return {b * c * d, c * d, d, 1};
}

int64_t evalInt(const char *text) {
  Expected<Expr> e = Expr::parse(text);
  EXPECT_OK(e);
  if (!e.ok())
    return -999999;
  Expected<int64_t> v = e->evalInt(sampleSymbols());
  EXPECT_OK(v);
  return v.ok() ? *v : -999999;
}

double evalFloat(const char *text) {
  Expected<Expr> e = Expr::parse(text);
  EXPECT_OK(e);
  if (!e.ok())
    return -999999;
  Expected<double> v = e->evalFloat(sampleSymbols());
  EXPECT_OK(v);
  return v.ok() ? *v : -999999;
}

Status evalError(const char *text) {
  Expected<Expr> e = Expr::parse(text);
  if (!e.ok())
    return e.status();
  Expected<double> v = e->evalFloat(sampleSymbols());
  return v.ok() ? Status::success() : v.status();
}

} // namespace

TEST(Expr, expr_integer_values) {
  EXPECT_EQ(evalInt("42"), 42);
  EXPECT_EQ(evalInt("seq_q"), 1000);
  EXPECT_EQ(evalInt("ceildiv(seq_q, 128)"), 8);
  EXPECT_EQ(evalInt("ceildiv(1024, 128)"), 8);
  EXPECT_EQ(evalInt("ceildiv(0, 128)"), 0);
  EXPECT_EQ(evalInt("ceildiv(-7, 2)"), -3);
  EXPECT_EQ(evalInt("seq_q / 128"), 7);
  EXPECT_EQ(evalInt("-7 / 2"), -3); // truncates toward zero, like C
  EXPECT_EQ(evalInt("1 + 2 * 3"), 7);
  EXPECT_EQ(evalInt("(1 + 2) * 3"), 9);
  EXPECT_EQ(evalInt("10 - 4 - 3"), 3); // left associative
  EXPECT_EQ(evalInt("100 / 10 / 5"), 2);
  EXPECT_EQ(evalInt("-heads_kv + +heads_q"), 12);
  EXPECT_EQ(evalInt("--3"), 3);
  EXPECT_EQ(evalInt("min(seq_q, seq_k)"), 333);
  EXPECT_EQ(evalInt("max(seq_q, seq_k)"), 1000);
  EXPECT_EQ(evalInt("heads_q / heads_kv"), 4);
  EXPECT_EQ(evalInt("batch * heads_q * ceildiv(seq_q, 128)"), 256);
  EXPECT_EQ(evalInt("min(num_sms, batch * heads_q * ceildiv(seq_q, 128))"), 132);
  EXPECT_EQ(evalInt(" head_dim+head_dim_v "), 192);
  EXPECT_EQ(evalInt("max(min(1, 2), ceildiv(9, max(2, 3)))"), 3);
}

TEST(Expr, expr_float_values) {
  EXPECT_EQ(evalFloat("1.4426950408889634 * 0.08838834764831845"),
           1.4426950408889634 * 0.08838834764831845);
  EXPECT_EQ(evalFloat("1.0 / head_dim"), 1.0 / 128);
  EXPECT_EQ(evalFloat("1 / 2"), 0.0); // integer division stays integer
  EXPECT_EQ(evalFloat("1 / 2.0"), 0.5);
  EXPECT_EQ(evalFloat("1e-3"), 1e-3);
  EXPECT_EQ(evalFloat("2.5E2"), 250.0);
  EXPECT_EQ(evalFloat(".5"), 0.5);
  EXPECT_EQ(evalFloat("3."), 3.0);
  EXPECT_EQ(evalFloat("-0.5 * 4"), -2.0);
  EXPECT_EQ(evalFloat("min(0.5, 1)"), 0.5);
  EXPECT_EQ(evalFloat("max(seq_k, 0.5)"), 333.0);
  EXPECT_EQ(evalFloat("seq_q"), 1000.0);
  EXPECT_TRUE(Expr::parse("0.5 * head_dim")->isFloat());
  EXPECT_TRUE(!Expr::parse("ceildiv(seq_q, 64)")->isFloat());
  EXPECT_TRUE(Expr::parse("min(seq_q, 1.0)")->isFloat());
}

TEST(Expr, expr_symbols_and_literals) {
  Expected<Expr> e = Expr::parse("ceildiv(seq_q, 128) * heads_q + seq_q");
  EXPECT_OK(e);
  std::vector<Symbol> syms = e->symbols();
  EXPECT_EQ(syms.size(), size_t(2));
  EXPECT_TRUE(syms[0] == Symbol::HeadsQ && syms[1] == Symbol::SeqQ);
  EXPECT_EQ(Expr::integer(7).text(), std::string("7"));
  EXPECT_EQ(Expr::floating(0.25).text(), std::string("0.25"));
  EXPECT_TRUE(Expr::floating(0.25).isFloat());
  EXPECT_EQ(*Expr::integer(-4).evalInt(SymbolTable()), -4);
  for (int i = 0; i < kNumSymbols; ++i)
    EXPECT_TRUE(parseSymbol(symbolName(static_cast<Symbol>(i))) ==
          static_cast<Symbol>(i));
}

TEST(Expr, expr_syntax_errors) {
  const ErrorCode bad = ErrorCode::InvalidBundle;
  EXPECT_ERROR(Expr::parse(""), bad, "expected a number, symbol, function or '(' at end");
  EXPECT_ERROR(Expr::parse("seq_q +"), bad, "at end of expression");
  EXPECT_ERROR(Expr::parse("seq_q seq_k"), bad, "unexpected 's' at column 7");
  EXPECT_ERROR(Expr::parse("(seq_q"), bad, "expected ')'");
  EXPECT_ERROR(Expr::parse("seq_q)"), bad, "unexpected ')'");
  EXPECT_ERROR(Expr::parse("seq_len"), bad, "unknown symbol 'seq_len'");
  EXPECT_ERROR(Expr::parse("floor(seq_q)"), bad, "unknown function 'floor'");
  EXPECT_ERROR(Expr::parse("ceildiv(seq_q)"), bad, "ceildiv() takes 2 arguments");
  EXPECT_ERROR(Expr::parse("min(1, 2, 3)"), bad, "min() takes 2 arguments");
  EXPECT_ERROR(Expr::parse("ceildiv(seq_q, 2.0)"), bad, "ceildiv() needs integer");
  EXPECT_ERROR(Expr::parse("seq_q % 2"), bad, "unexpected '%'");
  EXPECT_ERROR(Expr::parse("1e"), bad, "expected digits in the exponent");
  EXPECT_ERROR(Expr::parse("."), bad, "invalid number");
  EXPECT_ERROR(Expr::parse("99999999999999999999"), bad, "out of range");
  EXPECT_ERROR(Expr::parse("2 ** 3"), bad, "unexpected '*'");
}

TEST(Expr, expr_evaluation_errors) {
  const ErrorCode ev = ErrorCode::Expression;
  EXPECT_ERROR(evalError("seq_q / 0"), ev, "division by zero");
  EXPECT_ERROR(evalError("seq_q / (heads_q - 16)"), ev, "division by zero");
  EXPECT_ERROR(evalError("ceildiv(seq_q, 0)"), ev, "division by zero in ceildiv()");
  EXPECT_ERROR(evalError("1.0 / 0"), ev, "division by zero");
  EXPECT_ERROR(evalError("9223372036854775807 + 1"), ev, "integer overflow");
  EXPECT_ERROR(evalError("3037000500 * 3037000500"), ev, "integer overflow");
  EXPECT_ERROR(evalError("-9223372036854775807 - 2"), ev, "integer overflow");
  EXPECT_ERROR(evalError("1e308 * 10.0"), ev, "not finite");
  Expected<Expr> e = Expr::parse("seq_q * 0.5");
  EXPECT_ERROR(e->evalInt(sampleSymbols()), ev, "float value where an integer");
  Expected<Expr> s = Expr::parse("ceildiv(seq_k, 64)");
  SymbolTable partial;
  partial.set(Symbol::SeqQ, 5);
  EXPECT_ERROR(s->evalInt(partial), ev, "symbol 'seq_k' has no value");
  EXPECT_ERROR(s->evalInt(partial), ev, "expression \"ceildiv(seq_k, 64)\"");
}

namespace {

const std::vector<std::string> kBiasDims = {"batch", "head", "seq_q", "seq_k"};
const std::vector<std::string> kBshdDims = {"batch", "seq", "head", "dim"};

/// The operands of a bundle with a bias, as Expr sees them.
OperandScope biasScope() {
  OperandScope scope;
  scope.dimsOf = [](const std::string &operand) -> std::vector<std::string> {
    if (operand == "bias")
      return kBiasDims;
    if (operand == "query")
      return kBshdDims;
    return {};
  };
  scope.known = "query, bias";
  return scope;
}

int64_t evalStride(const char *text, const SymbolTable &table) {
  Expected<Expr> e = Expr::parse(text, biasScope());
  EXPECT_OK(e);
  if (!e.ok())
    return -999999;
  EXPECT_TRUE(!e->isFloat());
  Expected<int64_t> v = e->evalInt(table);
  EXPECT_OK(v);
  return v.ok() ? *v : -999999;
}

} // namespace

TEST(Expr, expr_stride_values) {
  SymbolTable t = sampleSymbols();
  // Dense bias [2, 16, 1000, 333].
  t.setOperand("bias", kBiasDims, {2, 16, 1000, 333},
               {16 * 1000 * 333, 1000 * 333, 333, 1});
  // A query slice of a padded buffer: [2, 1000, 16, 128] inside
  // [2, 1024, 24, 136].
  t.setOperand("query", kBshdDims, {2, 1000, 16, 128},
               {1024 * 24 * 136, 24 * 136, 136, 1});
  EXPECT_EQ(evalStride("stride(bias, batch)", t), 16 * 1000 * 333);
  EXPECT_EQ(evalStride("stride(bias, head)", t), 1000 * 333);
  EXPECT_EQ(evalStride("stride(bias, seq_q)", t), 333);
  EXPECT_EQ(evalStride("stride(bias, seq_k)", t), 1);
  EXPECT_EQ(evalStride("stride(query, batch)", t), 1024 * 24 * 136);
  EXPECT_EQ(evalStride("stride(query, seq)", t), 24 * 136);
  EXPECT_EQ(evalStride("stride(query, head)", t), 136);
  EXPECT_EQ(evalStride(" stride ( query , dim ) ", t), 1);
  EXPECT_EQ(evalStride("stride(bias, seq_q) * seq_q + ceildiv(stride(query, head), 8)", t),
           333 * 1000 + 17);
  EXPECT_EQ(evalStride("max(stride(bias, head), 0) - -stride(bias, seq_k)", t),
           1000 * 333 + 1);
  EXPECT_EQ(*Expr::parse("stride(bias, seq_q) * 0.5")->evalFloat(t), 166.5);

  // Size-1 dims are broadcast: their stride reads 0, whatever was passed.
  t.setOperand("bias", kBiasDims, {1, 16, 1000, 333}, {12345, 1000 * 333, 333, 1});
  EXPECT_EQ(evalStride("stride(bias, batch)", t), 0);
  EXPECT_EQ(evalStride("stride(bias, head)", t), 1000 * 333);
  t.setOperand("bias", kBiasDims, {2, 1, 1000, 333}, {1000 * 333, 0, 333, 1});
  EXPECT_EQ(evalStride("stride(bias, batch)", t), 1000 * 333);
  EXPECT_EQ(evalStride("stride(bias, head)", t), 0);
  t.setOperand("bias", kBiasDims, {1, 1, 1, 333}, {7, 7, 7, 1});
  EXPECT_EQ(evalStride("stride(bias, batch) + stride(bias, head) + stride(bias, seq_q)", t), 0);
  // A stride of 0 on a dim that is not of size 1 stays as passed (an
  // expanded tensor).
  t.setOperand("bias", kBiasDims, {2, 16, 1000, 333}, {0, 0, 333, 1});
  EXPECT_EQ(evalStride("stride(bias, batch)", t), 0);
  EXPECT_EQ(evalStride("stride(bias, seq_q)", t), 333);
  EXPECT_TRUE(t.hasOperand("bias") && !t.hasOperand("key"));
  EXPECT_TRUE(!t.stride("bias", "seq"));

  // The references, each once, in order; stride() is not a symbol.
  Expected<Expr> e = Expr::parse(
      "stride(bias, seq_q) + stride(query, seq) * stride(bias, seq_q) + seq_k");
  EXPECT_OK(e);
  std::vector<StrideRef> refs = e->strides();
  EXPECT_EQ(refs.size(), size_t(2));
  if (refs.size() == 2) {
    EXPECT_EQ(refs[0].operand, std::string("bias"));
    EXPECT_EQ(refs[0].dim, std::string("seq_q"));
    EXPECT_EQ(refs[1].operand, std::string("query"));
    EXPECT_EQ(refs[1].dim, std::string("seq"));
  }
  EXPECT_EQ(e->symbols().size(), size_t(1));
  EXPECT_TRUE(Expr::parse("seq_q")->strides().empty());
}

TEST(Expr, expr_stride_errors) {
  const ErrorCode bad = ErrorCode::InvalidBundle;
  // Arity and argument form (with or without a scope).
  for (bool scoped : {false, true}) {
    auto parse = [&](const char *text) {
      return scoped ? Expr::parse(text, biasScope()) : Expr::parse(text);
    };
    EXPECT_ERROR(parse("stride()"), bad,
                "stride() takes 2 arguments, an operand and one of its dimensions; "
                "got 0 at column 8");
    EXPECT_ERROR(parse("stride(bias)"), bad,
                "stride() takes 2 arguments, an operand and one of its dimensions; "
                "got 1 at column 12");
    EXPECT_ERROR(parse("stride(bias, seq_q, seq_k)"), bad,
                "stride() takes 2 arguments, an operand and one of its dimensions; "
                "got more at column 19");
    EXPECT_ERROR(parse("stride(bias"), bad,
                "stride() takes 2 arguments, an operand and one of its dimensions; "
                "expected ',' at end of expression");
    EXPECT_ERROR(parse("stride(bias, seq_q"), bad, "expected ')' at end of expression");
    EXPECT_ERROR(parse("stride(1, batch)"), bad,
                "stride() takes names (an operand and one of its dimensions), not "
                "expressions; expected an operand name at column 8");
    EXPECT_ERROR(parse("stride(bias, 2 * seq_q)"), bad,
                "not expressions; expected a dimension name at column 14");
    EXPECT_ERROR(parse("stride(bias + 1, batch)"), bad,
                "not expressions; unexpected '+' at column 13");
    EXPECT_ERROR(parse("stride(bias, seq_q - 1)"), bad,
                "not expressions; unexpected '-' at column 20");
    EXPECT_ERROR(parse("stride((bias), batch)"), bad, "expected an operand name");
    EXPECT_ERROR(parse("stride * 2"), bad, "unknown symbol 'stride'");
  }
  EXPECT_ERROR(
      Expr::parse("strides(bias, batch)"), bad,
      "unknown function 'strides' (known: ceildiv, min, max, stride, size)");
  // With a scope, the names are checked and the message points at them.
  EXPECT_OK(Expr::parse("stride(bais, batch)")); // unchecked without a scope
  EXPECT_ERROR(Expr::parse("stride(bais, batch)", biasScope()), bad,
              "expression \"stride(bais, batch)\": stride(): unknown operand 'bais' "
              "(known: query, bias) at column 8");
  EXPECT_ERROR(Expr::parse("1 + stride(bias, seq)", biasScope()), bad,
              "stride(): operand 'bias' has no dimension 'seq' (its dims: batch, head, "
              "seq_q, seq_k) at column 18");
  EXPECT_ERROR(Expr::parse("stride(query, seq_q)", biasScope()), bad,
              "stride(): operand 'query' has no dimension 'seq_q' (its dims: batch, seq, "
              "head, dim)");

  // At launch: the operand must have been passed.
  const ErrorCode ev = ErrorCode::Expression;
  SymbolTable t = sampleSymbols();
  Expected<Expr> e = Expr::parse("ceildiv(stride(bias, seq_q), 8)", biasScope());
  EXPECT_ERROR(e->evalInt(t), ev,
              "expression \"ceildiv(stride(bias, seq_q), 8)\": stride(bias, seq_q): "
              "operand 'bias' is not passed at this launch");
  EXPECT_ERROR(e->evalFloat(t), ev, "operand 'bias' is not passed at this launch");
  t.setOperand("bias", kBiasDims, {2, 16, 1000, 333}, contiguousStrides4(2, 16, 1000, 333));
  EXPECT_EQ(*e->evalInt(t), 42);
  // Only an unchecked parse can name a dim the operand lacks.
  EXPECT_ERROR(Expr::parse("stride(bias, seq)")->evalInt(t), ev,
              "stride(bias, seq): operand 'bias' has no dimension 'seq'");
  t.setOperand("bias", kBiasDims, {2, 16, 1000, 333},
               {int64_t(1) << 62, 1000 * 333, 333, 1});
  EXPECT_ERROR(Expr::parse("stride(bias, batch) * 4")->evalInt(t), ev, "integer overflow");
}

TEST(Expr, expr_size_values_and_errors) {
  SymbolTable t = sampleSymbols();
  // A bias [1, 16, 1000, 333]: size() reads the sizes as passed, a size-1
  // dim included (its stride reads 0).
  t.setOperand("bias", kBiasDims, {1, 16, 1000, 333},
               {12345, 1000 * 333, 333, 1});
  EXPECT_EQ(evalStride("size(bias, batch)", t), 1);
  EXPECT_EQ(evalStride("size(bias, head)", t), 16);
  EXPECT_EQ(evalStride(" size ( bias , seq_k ) - 1", t), 332);
  EXPECT_EQ(
      evalStride(
          "size(bias, seq_q) * stride(bias, seq_q) + stride(bias, batch)", t),
      1000 * 333);
  EXPECT_TRUE(t.size("bias", "seq_q") == 1000 && !t.size("bias", "seq") &&
              !t.size("query", "seq"));

  // The references, each once, apart from stride()'s.
  Expected<Expr> e = Expr::parse(
      "size(bias, seq_k) + stride(bias, seq_k) * size(bias, seq_k)");
  EXPECT_OK(e);
  std::vector<StrideRef> sizes = e->sizes();
  EXPECT_EQ(sizes.size(), size_t(1));
  if (sizes.size() == 1)
    EXPECT_EQ(sizes[0].operand + "." + sizes[0].dim, std::string("bias.seq_k"));
  EXPECT_EQ(e->strides().size(), size_t(1));
  EXPECT_TRUE(Expr::parse("stride(bias, seq_k)")->sizes().empty());

  // Load time: the same rules and messages as stride(), naming size().
  const ErrorCode bad = ErrorCode::InvalidBundle;
  EXPECT_ERROR(Expr::parse("size(bias)"), bad,
               "size() takes 2 arguments, an operand and one of its "
               "dimensions; got 1 at "
               "column 10");
  EXPECT_ERROR(Expr::parse("size(bias, 2 * seq_q)"), bad,
               "size() takes names (an operand and one of its dimensions), not "
               "expressions; "
               "expected a dimension name at column 12");
  EXPECT_ERROR(Expr::parse("size(bais, batch)", biasScope()), bad,
               "expression \"size(bais, batch)\": size(): unknown operand "
               "'bais' (known: "
               "query, bias) at column 6");
  EXPECT_ERROR(Expr::parse("1 + size(bias, seq)", biasScope()), bad,
               "size(): operand 'bias' has no dimension 'seq' (its dims: "
               "batch, head, seq_q, "
               "seq_k) at column 16");
  EXPECT_ERROR(Expr::parse("size * 2"), bad, "unknown symbol 'size'");

  // Launch time: the operand must have been passed.
  const ErrorCode ev = ErrorCode::Expression;
  EXPECT_ERROR(Expr::parse("size(query, seq)", biasScope())->evalInt(t), ev,
               "expression \"size(query, seq)\": size(query, seq): operand "
               "'query' is not "
               "passed at this launch");
  EXPECT_ERROR(Expr::parse("size(bias, seq)")->evalInt(t), ev,
               "size(bias, seq): operand 'bias' has no dimension 'seq'");
}
