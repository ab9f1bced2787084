/* Prints a contiguous f32 memref of runtime_calls_program.mlir as
 * "data = v0 v1 ...", so that the program needs no MLIR library at run time
 * (MLIR's runner utilities link libMLIR.so). */
#include <stdint.h>
#include <stdio.h>

struct UnrankedMemRef {
  int64_t rank;
  void *
      descriptor; /* {allocated, aligned, offset, sizes[rank], strides[rank]} */
};

void _mlir_ciface_printF32(struct UnrankedMemRef *m) {
  float **pointers = (float **)m->descriptor;
  int64_t *words = (int64_t *)(pointers + 2);
  int64_t count = 1;
  for (int64_t i = 0; i < m->rank; ++i)
    count *= words[1 + i];
  const float *data = pointers[1] + words[0];
  printf("data =");
  for (int64_t i = 0; i < count; ++i)
    printf(" %.9g", data[i]);
  printf("\n");
}
