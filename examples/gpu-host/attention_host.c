/*===- attention_host.c - Launching an fa-mlir kernel bundle from C -------===*\
|*                                                                            *|
|* A host program's side of the GPU path: load a bundle that fa-compile      *|
|* wrote, describe the operands (device pointers, sizes, strides) and hand   *|
|* them to the runtime.                                                      *|
|*                                                                            *|
|*   attention_host BUNDLE.json                                               *|
|*     no GPU needed: checks the operands and evaluates the launch grid as a *|
|*     launch on an H100 (132 SMs) would                                      *|
|*   attention_host --launch BUNDLE.json IMAGE                                *|
|*     on an sm_90a GPU, with no CUDA of the program's own: the bundle from  *|
|*     memory (as a program that embeds it holds it), device buffers through *|
|*     the runtime, random inputs, the output checked against float64 on a   *|
|*     sample of rows (FlashAttention's criterion, next to a plain bf16      *|
|*     computation)                                                          *|
|*                                                                            *|
|* The operands are those of a causal GQA bf16 attention, Q [2, 8, 512, 64]  *|
|* and K, V [2, 2, 512, 64] (bhsd), as in docs/UsingInYourCompiler.md.       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fa/Runtime/fa_runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The four operands at `q`, `k`, `v`, `o`. */
static void describe(fa_tensor operands[4], void *q, void *k, void *v,
                     void *o) {
  operands[0] = bhsd("query", q, FA_DTYPE_BF16, QHeads, Dim);
  operands[1] = bhsd("key", k, FA_DTYPE_BF16, KVHeads, Dim);
  operands[2] = bhsd("value", v, FA_DTYPE_BF16, KVHeads, Dim);
  operands[3] = bhsd("output", o, FA_DTYPE_BF16, QHeads, Dim);
}

/* Without a GPU: the runtime checks the operands and evaluates the grid. */
static int checkOnly(const char *path) {
  fa_bundle *bundle;
  if (fa_bundle_load(path, &bundle) != FA_OK)
    return fail("fa_bundle_load");
  printf("kernel %s (%s, %s), operands: %s\n", fa_bundle_kernel_name(bundle),
         fa_bundle_op(bundle), fa_bundle_chip(bundle),
         fa_bundle_required_operands(bundle));

  /* Device addresses: stand-ins that the check does not dereference. */
  char *base = (char *)(uintptr_t)0x10000000;
  fa_tensor operands[4];
  describe(operands, base, base + (1 << 24), base + (2 << 24),
           base + (3 << 24));
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
  fa_bundle_free(bundle);
  return 0;
}

/* The whole file at `path` in a malloc'ed buffer (NUL-terminated, which a
 * PTX image needs); NULL on failure. */
static char *readFile(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (data && fread(data, 1, (size_t)n, f) == (size_t)n) {
    data[n] = 0;
    *size = (size_t)n;
  } else {
    free(data);
    data = NULL;
  }
  fclose(f);
  return data;
}

static uint16_t toBF16(float x) { /* round to nearest even */
  uint32_t bits;
  memcpy(&bits, &x, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}

static float fromBF16(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float x;
  memcpy(&x, &bits, 4);
  return x;
}

/* N(0, 1)-ish values from a fixed generator (sum of 4 uniforms). */
static void fillRandom(uint16_t *data, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) {
    float sum = 0;
    for (int j = 0; j < 4; ++j) {
      seed = seed * 1664525u + 1013904223u;
      sum += (float)(seed >> 8) / (float)(1u << 24) - 0.5f;
    }
    data[i] = toBF16(sum * 1.7320508f);
  }
}

/* Row `i` of head `h` of batch `b`: causal (keys j <= i), GQA, scale
 * 1/sqrt(Dim), in float64 (`exact`) and as a plain bf16 implementation
 * computes it (`plain`: float scores, P and O rounded to bf16). */
static void referenceRow(const uint16_t *q, const uint16_t *k,
                         const uint16_t *v, int b, int h, int i,
                         double exact[Dim], double plain[Dim]) {
  int kvh = h / (QHeads / KVHeads);
  const uint16_t *qi = q + (((size_t)b * QHeads + h) * Seq + i) * Dim;
  const uint16_t *kb = k + ((size_t)b * KVHeads + kvh) * Seq * Dim;
  const uint16_t *vb = v + ((size_t)b * KVHeads + kvh) * Seq * Dim;
  static double s[Seq];
  double scale = 1.0 / sqrt((double)Dim), max = -INFINITY, sum = 0;
  for (int j = 0; j <= i; ++j) {
    double dot = 0;
    for (int d = 0; d < Dim; ++d)
      dot += (double)fromBF16(qi[d]) * fromBF16(kb[(size_t)j * Dim + d]);
    s[j] = dot * scale;
    max = s[j] > max ? s[j] : max;
  }
  for (int j = 0; j <= i; ++j)
    sum += exp(s[j] - max);
  for (int d = 0; d < Dim; ++d) {
    double e = 0;
    float p = 0;
    for (int j = 0; j <= i; ++j) {
      double w = exp(s[j] - max) / sum;
      double x = fromBF16(vb[(size_t)j * Dim + d]);
      e += w * x;
      p += fromBF16(toBF16((float)w)) * (float)x;
    }
    exact[d] = e;
    plain[d] = fromBF16(toBF16(p));
  }
}

/* Every 37th row and the last of each (batch, head): errors against
 * float64 of ours and of the plain bf16 computation. */
static void compare(const uint16_t *q, const uint16_t *k, const uint16_t *v,
                    const uint16_t *o, double *ours, double *plain) {
  double exact[Dim], plainRow[Dim];
  *ours = *plain = 0;
  for (int b = 0; b < Batch; ++b)
    for (int h = 0; h < QHeads; ++h)
      for (int i = 0; i < Seq; i += (i + 37 < Seq ? 37 : Seq - 1 - i)) {
        referenceRow(q, k, v, b, h, i, exact, plainRow);
        const uint16_t *oi = o + (((size_t)b * QHeads + h) * Seq + i) * Dim;
        for (int d = 0; d < Dim; ++d) {
          double e1 = fabs(fromBF16(oi[d]) - exact[d]);
          double e2 = fabs(plainRow[d] - exact[d]);
          *ours = e1 > *ours ? e1 : *ours;
          *plain = e2 > *plain ? e2 : *plain;
        }
        if (i == Seq - 1)
          break;
      }
}

/* On the GPU, with device memory from the runtime. */
static int launch(const char *jsonPath, const char *imagePath) {
  size_t jsonSize, imageSize;
  char *json = readFile(jsonPath, &jsonSize);
  char *image = readFile(imagePath, &imageSize);
  if (!json || !image) {
    fprintf(stderr, "cannot read %s or %s\n", jsonPath, imagePath);
    return 1;
  }
  fa_bundle *bundle;
  /* PTX images are passed with their NUL. */
  if (fa_bundle_load_from_memory(json, jsonSize, image, imageSize + 1,
                                 &bundle) != FA_OK)
    return fail("fa_bundle_load_from_memory");

  size_t qn = (size_t)Batch * QHeads * Seq * Dim;
  size_t kn = (size_t)Batch * KVHeads * Seq * Dim;
  uint16_t *host[4] = {malloc(qn * 2), malloc(kn * 2), malloc(kn * 2),
                       malloc(qn * 2)};
  size_t bytes[4] = {qn * 2, kn * 2, kn * 2, qn * 2};
  fillRandom(host[0], qn, 1);
  fillRandom(host[1], kn, 2);
  fillRandom(host[2], kn, 3);
  void *dev[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < 4; ++i)
    if (fa_device_alloc(bytes[i], NULL, &dev[i]) != FA_OK)
      return fail("fa_device_alloc");
  for (int i = 0; i < 3; ++i)
    if (fa_copy_to_device(dev[i], host[i], bytes[i], NULL) != FA_OK)
      return fail("fa_copy_to_device");
  fa_tensor operands[4];
  describe(operands, dev[0], dev[1], dev[2], dev[3]);
  if (fa_bundle_launch(bundle, operands, 4, NULL) != FA_OK)
    return fail("fa_bundle_launch");
  if (fa_copy_to_host(host[3], dev[3], bytes[3], NULL) != FA_OK ||
      fa_stream_synchronize(NULL) != FA_OK)
    return fail("fa_copy_to_host");
  for (int i = 0; i < 4; ++i)
    fa_device_free(dev[i], NULL);
  fa_stream_synchronize(NULL);

  double ours, plain;
  compare(host[0], host[1], host[2], host[3], &ours, &plain);
  int ok = ours <= 2 * plain + 1e-5;
  printf("launched %s: max error vs float64 %.3g, plain bf16 %.3g: %s\n",
         fa_bundle_kernel_name(bundle), ours, plain, ok ? "ok" : "FAIL");
  for (int i = 0; i < 4; ++i)
    free(host[i]);
  free(json);
  free(image);
  fa_bundle_free(bundle);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 2)
    return checkOnly(argv[1]);
  if (argc == 4 && strcmp(argv[1], "--launch") == 0)
    return launch(argv[2], argv[3]);
  fprintf(stderr, "usage: %s BUNDLE.json | --launch BUNDLE.json IMAGE\n",
          argv[0]);
  return 2;
}
