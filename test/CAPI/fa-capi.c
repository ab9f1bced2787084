/*===- fa-capi.c - fa-mlir's C API, used from C
----------------------------===*\
|*                                                                            *|
|* Loads the fa dialect through its handle, parses and verifies fa ops,      *|
|* raises attention written in linalg with the raise patterns and with the   *|
|* pass, and lowers it with fa-cpu-pipeline found by name.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: fa-capi-test 2>&1 | FileCheck %s
 */

#include "fa-c/Dialects.h"
#include "fa-c/Passes.h"
#include "fa-c/RaisePatterns.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *attentionModule =
    "func.func @attention(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>,"
    "                     %v: tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32> {\n"
    "  %o = fa.attention %q, %k, %v : tensor<1x4x16x8xf32>,"
    " tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> {causal}"
    " -> tensor<1x4x16x8xf32>\n"
    "  return %o : tensor<1x4x16x8xf32>\n"
    "}\n";

/* The value's element type differs from the query's. */
static const char *invalidModule =
    "func.func @f(%q: tensor<2x4x16x8xf16>, %k: tensor<2x4x16x8xf16>,"
    "             %v: tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xf16> {\n"
    "  %o = fa.attention %q, %k, %v : tensor<2x4x16x8xf16>,"
    " tensor<2x4x16x8xf16>, tensor<2x4x16x8xbf16> -> tensor<2x4x16x8xf16>\n"
    "  return %o : tensor<2x4x16x8xf16>\n"
    "}\n";

/* softmax(Q K^T / sqrt(8)) V as linalg, arith and math ops. */
static const char *linalgAttentionModule =
    "func.func @linalg_attention(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>,"
    " %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %ninf = arith.constant 0xFF800000 : f32\n"
    "  %es = tensor.empty() : tensor<2x4x4xf32>\n"
    "  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>)"
    " -> tensor<2x4x4xf32>\n"
    "  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x4x8xf32>,"
    " tensor<2x8x4xf32>) outs(%fs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>\n"
    "  %c = arith.constant dense<0.35355339> : tensor<2x4x4xf32>\n"
    "  %ss = arith.mulf %s, %c : tensor<2x4x4xf32>\n"
    "  %er = tensor.empty() : tensor<2x4xf32>\n"
    "  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>)"
    " -> tensor<2x4xf32>\n"
    "  %m = linalg.reduce ins(%ss : tensor<2x4x4xf32>)"
    " outs(%fm : tensor<2x4xf32>) dimensions = [2]\n"
    "    (%in: f32, %acc: f32) {\n"
    "      %r = arith.maximumf %in, %acc : f32\n"
    "      linalg.yield %r : f32\n"
    "    }\n"
    "  %mb = linalg.broadcast ins(%m : tensor<2x4xf32>)"
    " outs(%es : tensor<2x4x4xf32>) dimensions = [2]\n"
    "  %d = arith.subf %ss, %mb : tensor<2x4x4xf32>\n"
    "  %e = math.exp %d : tensor<2x4x4xf32>\n"
    "  %fl = linalg.fill ins(%zero : f32) outs(%er : tensor<2x4xf32>)"
    " -> tensor<2x4xf32>\n"
    "  %l = linalg.reduce ins(%e : tensor<2x4x4xf32>)"
    " outs(%fl : tensor<2x4xf32>) dimensions = [2]\n"
    "    (%in: f32, %acc: f32) {\n"
    "      %r = arith.addf %in, %acc : f32\n"
    "      linalg.yield %r : f32\n"
    "    }\n"
    "  %lb = linalg.broadcast ins(%l : tensor<2x4xf32>)"
    " outs(%es : tensor<2x4x4xf32>) dimensions = [2]\n"
    "  %p = arith.divf %e, %lb : tensor<2x4x4xf32>\n"
    "  %eo = tensor.empty() : tensor<2x4x8xf32>\n"
    "  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x8xf32>)"
    " -> tensor<2x4x8xf32>\n"
    "  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x4xf32>,"
    " tensor<2x4x8xf32>) outs(%fo : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>\n"
    "  return %o : tensor<2x4x8xf32>\n"
    "}\n";

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Prints each diagnostic's message on its own line. */
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirContext createContext(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__fa__(), registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  return context;
}

static MlirModule parse(MlirContext context, const char *text) {
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "cannot parse:\n%s\n", text);
    exit(1);
  }
  return module;
}

static void printModule(MlirModule module) {
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
}

static void testDialectHandle(MlirContext context) {
  printf("@dialect_handle\n");
  MlirStringRef ns =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__fa__());
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  MlirModule module = parse(context, attentionModule);
  printf("verified: %d\n", mlirOperationVerify(mlirModuleGetOperation(module)));
  printModule(module);
  mlirModuleDestroy(module);
}
// CHECK-LABEL: @dialect_handle
// CHECK: namespace: fa
// CHECK: verified: 1
// CHECK: fa.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> {causal} -> tensor<1x4x16x8xf32>

static void testVerifierDiagnostic(MlirContext context) {
  printf("@verifier_diagnostic\n");
  MlirModule module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(invalidModule));
  printf("parsed: %d\n", !mlirModuleIsNull(module));
}
// CHECK-LABEL: @verifier_diagnostic
// CHECK: diagnostic: 'fa.attention' op 'value' element type must be 'f16' (the type of 'query'), got 'bf16'
// CHECK: parsed: 0

/* The raise patterns in the caller's own greedy rewrite. */
static void testRaisePatterns(MlirContext context) {
  printf("@raise_patterns\n");
  MlirModule module = parse(context, linalgAttentionModule);
  MlirRewritePatternSet patterns = mlirRewritePatternSetCreate(context);
  mlirFAPopulateRaiseAttentionPatterns(patterns);
  MlirFrozenRewritePatternSet frozen = mlirFreezeRewritePattern(patterns);
  MlirGreedyRewriteDriverConfig config = mlirGreedyRewriteDriverConfigCreate();
  mlirGreedyRewriteDriverConfigSetUseTopDownTraversal(config, true);
  MlirLogicalResult result =
      mlirApplyPatternsAndFoldGreedily(module, frozen, config);
  printf("converged: %d\n", mlirLogicalResultIsSuccess(result));
  mlirFAFoldRaiseGlue(mlirModuleGetOperation(module));
  printModule(module);
  mlirGreedyRewriteDriverConfigDestroy(config);
  mlirFrozenRewritePatternSetDestroy(frozen);
  mlirModuleDestroy(module);
}
// CHECK-LABEL: @raise_patterns
// CHECK: diagnostic: raised to fa.attention (bhsd, 2 query heads / 2 kv heads, scale 3.535534e-01)
// CHECK: converged: 1
// CHECK: func.func @linalg_attention
// CHECK: fa.attention {{.+}} {scale = 0.353553{{[0-9]+}} : f32}
// CHECK-NOT: linalg.batch_matmul
// CHECK: return

/* fa-raise-attention as a pass object, then fa-cpu-pipeline by name. */
static void testPasses(MlirContext context) {
  printf("@passes\n");
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirStringRef pipeline = mlirStringRefCreateFromCString("fa-cpu-pipeline");
  /* Not found before fa's pipelines are registered. */
  printf("before registration: %d\n",
         mlirLogicalResultIsSuccess(
             mlirOpPassManagerAddPipeline(opm, pipeline, printToStdout, NULL)));
  mlirRegisterAllFAPassesAndPipelines();
  mlirPassManagerAddOwnedPass(pm, mlirCreateFAFARaiseAttention());
  printf("after registration: %d\n",
         mlirLogicalResultIsSuccess(
             mlirOpPassManagerAddPipeline(opm, pipeline, printToStdout, NULL)));

  MlirModule module = parse(context, linalgAttentionModule);
  MlirLogicalResult result =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  printf("ran: %d\n", mlirLogicalResultIsSuccess(result));
  printModule(module);
  mlirModuleDestroy(module);
  mlirPassManagerDestroy(pm);
}
// CHECK-LABEL: @passes
// CHECK: before registration: 0
// CHECK: after registration: 1
// CHECK: diagnostic: raised to fa.attention
// CHECK: ran: 1
// CHECK-NOT: fa.attention
// CHECK-NOT: linalg.
// CHECK: llvm.func @linalg_attention

int main(void) {
  MlirContext context = createContext();
  testDialectHandle(context);
  testVerifierDiagnostic(context);
  testRaisePatterns(context);
  testPasses(context);
  mlirContextDestroy(context);
  return 0;
}
