//===- ExprTest.cpp - Shape expressions -----------------------------------===//
#include "Check.h"

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

int64_t evalInt(const char *text) {
  Expected<Expr> e = Expr::parse(text);
  CHECK_OK(e);
  if (!e.ok())
    return -999999;
  Expected<int64_t> v = e->evalInt(sampleSymbols());
  CHECK_OK(v);
  return v.ok() ? *v : -999999;
}

double evalFloat(const char *text) {
  Expected<Expr> e = Expr::parse(text);
  CHECK_OK(e);
  if (!e.ok())
    return -999999;
  Expected<double> v = e->evalFloat(sampleSymbols());
  CHECK_OK(v);
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

TEST(expr_integer_values) {
  CHECK_EQ(evalInt("42"), 42);
  CHECK_EQ(evalInt("seq_q"), 1000);
  CHECK_EQ(evalInt("ceildiv(seq_q, 128)"), 8);
  CHECK_EQ(evalInt("ceildiv(1024, 128)"), 8);
  CHECK_EQ(evalInt("ceildiv(0, 128)"), 0);
  CHECK_EQ(evalInt("ceildiv(-7, 2)"), -3);
  CHECK_EQ(evalInt("seq_q / 128"), 7);
  CHECK_EQ(evalInt("-7 / 2"), -3); // truncates toward zero, like C
  CHECK_EQ(evalInt("1 + 2 * 3"), 7);
  CHECK_EQ(evalInt("(1 + 2) * 3"), 9);
  CHECK_EQ(evalInt("10 - 4 - 3"), 3); // left associative
  CHECK_EQ(evalInt("100 / 10 / 5"), 2);
  CHECK_EQ(evalInt("-heads_kv + +heads_q"), 12);
  CHECK_EQ(evalInt("--3"), 3);
  CHECK_EQ(evalInt("min(seq_q, seq_k)"), 333);
  CHECK_EQ(evalInt("max(seq_q, seq_k)"), 1000);
  CHECK_EQ(evalInt("heads_q / heads_kv"), 4);
  CHECK_EQ(evalInt("batch * heads_q * ceildiv(seq_q, 128)"), 256);
  CHECK_EQ(evalInt("min(num_sms, batch * heads_q * ceildiv(seq_q, 128))"), 132);
  CHECK_EQ(evalInt(" head_dim+head_dim_v "), 192);
  CHECK_EQ(evalInt("max(min(1, 2), ceildiv(9, max(2, 3)))"), 3);
}

TEST(expr_float_values) {
  CHECK_EQ(evalFloat("1.4426950408889634 * 0.08838834764831845"),
           1.4426950408889634 * 0.08838834764831845);
  CHECK_EQ(evalFloat("1.0 / head_dim"), 1.0 / 128);
  CHECK_EQ(evalFloat("1 / 2"), 0.0); // integer division stays integer
  CHECK_EQ(evalFloat("1 / 2.0"), 0.5);
  CHECK_EQ(evalFloat("1e-3"), 1e-3);
  CHECK_EQ(evalFloat("2.5E2"), 250.0);
  CHECK_EQ(evalFloat(".5"), 0.5);
  CHECK_EQ(evalFloat("3."), 3.0);
  CHECK_EQ(evalFloat("-0.5 * 4"), -2.0);
  CHECK_EQ(evalFloat("min(0.5, 1)"), 0.5);
  CHECK_EQ(evalFloat("max(seq_k, 0.5)"), 333.0);
  CHECK_EQ(evalFloat("seq_q"), 1000.0);
  CHECK(Expr::parse("0.5 * head_dim")->isFloat());
  CHECK(!Expr::parse("ceildiv(seq_q, 64)")->isFloat());
  CHECK(Expr::parse("min(seq_q, 1.0)")->isFloat());
}

TEST(expr_symbols_and_literals) {
  Expected<Expr> e = Expr::parse("ceildiv(seq_q, 128) * heads_q + seq_q");
  CHECK_OK(e);
  std::vector<Symbol> syms = e->symbols();
  CHECK_EQ(syms.size(), size_t(2));
  CHECK(syms[0] == Symbol::HeadsQ && syms[1] == Symbol::SeqQ);
  CHECK_EQ(Expr::integer(7).text(), std::string("7"));
  CHECK_EQ(Expr::floating(0.25).text(), std::string("0.25"));
  CHECK(Expr::floating(0.25).isFloat());
  CHECK_EQ(*Expr::integer(-4).evalInt(SymbolTable()), -4);
  for (int i = 0; i < kNumSymbols; ++i)
    CHECK(parseSymbol(symbolName(static_cast<Symbol>(i))) ==
          static_cast<Symbol>(i));
}

TEST(expr_syntax_errors) {
  const ErrorCode bad = ErrorCode::InvalidBundle;
  CHECK_ERROR(Expr::parse(""), bad, "expected a number, symbol, function or '(' at end");
  CHECK_ERROR(Expr::parse("seq_q +"), bad, "at end of expression");
  CHECK_ERROR(Expr::parse("seq_q seq_k"), bad, "unexpected 's' at column 7");
  CHECK_ERROR(Expr::parse("(seq_q"), bad, "expected ')'");
  CHECK_ERROR(Expr::parse("seq_q)"), bad, "unexpected ')'");
  CHECK_ERROR(Expr::parse("seq_len"), bad, "unknown symbol 'seq_len'");
  CHECK_ERROR(Expr::parse("floor(seq_q)"), bad, "unknown function 'floor'");
  CHECK_ERROR(Expr::parse("ceildiv(seq_q)"), bad, "ceildiv() takes 2 arguments");
  CHECK_ERROR(Expr::parse("min(1, 2, 3)"), bad, "min() takes 2 arguments");
  CHECK_ERROR(Expr::parse("ceildiv(seq_q, 2.0)"), bad, "ceildiv() needs integer");
  CHECK_ERROR(Expr::parse("seq_q % 2"), bad, "unexpected '%'");
  CHECK_ERROR(Expr::parse("1e"), bad, "expected digits in the exponent");
  CHECK_ERROR(Expr::parse("."), bad, "invalid number");
  CHECK_ERROR(Expr::parse("99999999999999999999"), bad, "out of range");
  CHECK_ERROR(Expr::parse("2 ** 3"), bad, "unexpected '*'");
}

TEST(expr_evaluation_errors) {
  const ErrorCode ev = ErrorCode::Expression;
  CHECK_ERROR(evalError("seq_q / 0"), ev, "division by zero");
  CHECK_ERROR(evalError("seq_q / (heads_q - 16)"), ev, "division by zero");
  CHECK_ERROR(evalError("ceildiv(seq_q, 0)"), ev, "division by zero in ceildiv()");
  CHECK_ERROR(evalError("1.0 / 0"), ev, "division by zero");
  CHECK_ERROR(evalError("9223372036854775807 + 1"), ev, "integer overflow");
  CHECK_ERROR(evalError("3037000500 * 3037000500"), ev, "integer overflow");
  CHECK_ERROR(evalError("-9223372036854775807 - 2"), ev, "integer overflow");
  CHECK_ERROR(evalError("1e308 * 10.0"), ev, "not finite");
  Expected<Expr> e = Expr::parse("seq_q * 0.5");
  CHECK_ERROR(e->evalInt(sampleSymbols()), ev, "float value where an integer");
  Expected<Expr> s = Expr::parse("ceildiv(seq_k, 64)");
  SymbolTable partial;
  partial.set(Symbol::SeqQ, 5);
  CHECK_ERROR(s->evalInt(partial), ev, "symbol 'seq_k' has no value");
  CHECK_ERROR(s->evalInt(partial), ev, "expression \"ceildiv(seq_k, 64)\"");
}
