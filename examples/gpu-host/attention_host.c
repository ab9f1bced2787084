/*===- attention_host.c - Launching an fa-mlir kernel bundle from C -------===*\
|*                                                                            *|
|* A host program's side of the GPU path: load a bundle that fa-compile      *|
|* wrote, describe the operands (device pointers, sizes, strides) and hand   *|
|* them to the runtime. Without a GPU it checks the operands and evaluates   *|
|* the launch grid as a launch on an H100 (132 SMs) would; with --launch on  *|
|* a machine with a GPU the same descriptors go to fa_bundle_launch.         *|
|*                                                                            *|
|*   attention_host BUNDLE.json [--launch]                                    *|
|*                                                                            *|
|* The operands are those of a causal GQA bf16 attention, Q [2, 8, 512, 64]  *|
|* and K, V [2, 2, 512, 64] (bhsd), as in docs/UsingInYourCompiler.md.       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fa/Runtime/fa_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { Batch = 2, QHeads = 8, KVHeads = 2, Seq = 512, Dim = 64 };

/* A contiguous [batch, heads, seq, last] tensor at `data`. */
static fa_tensor bhsd(const char *role, void *data, int32_t dtype,
                      int64_t heads, int64_t last) {
  fa_tensor t;
  memset(&t, 0, sizeof t);
  t.role = role;
  t.data = data;
  t.dtype = dtype;
  t.rank = 4;
  int64_t sizes[4] = {Batch, heads, Seq, last};
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    t.sizes[i] = sizes[i];
    t.strides[i] = stride;
    stride *= sizes[i];
  }
  return t;
}

static int fail(const char *what) {
  fprintf(stderr, "%s: %s\n", what, fa_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s BUNDLE.json [--launch]\n", argv[0]);
    return 2;
  }
  fa_bundle *bundle;
  if (fa_bundle_load(argv[1], &bundle) != FA_OK)
    return fail("fa_bundle_load");
  printf("kernel %s (%s, %s), operands: %s\n", fa_bundle_kernel_name(bundle),
         fa_bundle_op(bundle), fa_bundle_chip(bundle),
         fa_bundle_required_operands(bundle));

  /* Device addresses: here stand-ins that the check does not dereference;
   * a program passes its own allocations (cuMemAlloc or its framework's). */
  char *base = (char *)(uintptr_t)0x10000000;
  fa_tensor operands[4] = {
      bhsd("query", base, FA_DTYPE_BF16, QHeads, Dim),
      bhsd("key", base + (1 << 24), FA_DTYPE_BF16, KVHeads, Dim),
      bhsd("value", base + (2 << 24), FA_DTYPE_BF16, KVHeads, Dim),
      bhsd("output", base + (3 << 24), FA_DTYPE_BF16, QHeads, Dim),
  };
  uint32_t grid[3];
  if (fa_bundle_check(bundle, operands, 4, 132, grid) != FA_OK)
    return fail("fa_bundle_check");
  printf("operands ok, grid %u x %u x %u on 132 SMs\n", grid[0], grid[1],
         grid[2]);

  /* A wrong operand is refused with its role named. */
  operands[1].sizes[3] = Dim / 2;
  if (fa_bundle_check(bundle, operands, 4, 132, NULL) == FA_OK)
    return fail("a key of the wrong head dim was accepted");
  printf("refused: %s\n", fa_last_error());
  operands[1].sizes[3] = Dim;

  if (argc > 2 && strcmp(argv[2], "--launch") == 0) {
    /* On a GPU machine: replace the stand-in addresses by device memory,
     * then queue the kernel on the default stream. */
    if (fa_bundle_launch(bundle, operands, 4, NULL) != FA_OK)
      return fail("fa_bundle_launch");
  }
  fa_bundle_free(bundle);
  return 0;
}
