/*===- fa_runtime.h - C API of the fa-mlir kernel runtime ---------*- C -*-===*\
|*                                                                            *|
|* Loads kernel bundles (docs/BundleFormat.md) and launches them. Plain C,    *|
|* fixed-size structs and opaque handles so that Python ctypes and frameworks *|
|* can call it directly. No function throws or aborts: each returns an        *|
|* fa_status and, on failure, leaves a message for fa_last_error().           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef FA_RUNTIME_FA_RUNTIME_H
#define FA_RUNTIME_FA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FA_RUNTIME_ABI_VERSION 1
#define FA_MAX_RANK 8

/* Status codes (fa::runtime::ErrorCode). */
typedef enum fa_status {
  FA_OK = 0,
  FA_ERROR_INVALID_ARGUMENT = 1,
  FA_ERROR_IO = 2,
  FA_ERROR_PARSE = 3,
  FA_ERROR_INVALID_BUNDLE = 4,
  FA_ERROR_TENSOR = 5,
  FA_ERROR_NO_DRIVER = 6,
  FA_ERROR_NO_DEVICE = 7,
  FA_ERROR_DRIVER = 8,
  FA_ERROR_UNSUPPORTED_DEVICE = 9,
  FA_ERROR_EXPRESSION = 10,
  FA_ERROR_INTERNAL = 11
} fa_status;

/* Element types (fa::runtime::DType). */
typedef enum fa_dtype {
  FA_DTYPE_F32 = 0,
  FA_DTYPE_F16 = 1,
  FA_DTYPE_BF16 = 2,
  FA_DTYPE_F8E4M3FN = 3,
  FA_DTYPE_F8E5M2 = 4,
  FA_DTYPE_F64 = 5,
  FA_DTYPE_I32 = 6,
  FA_DTYPE_I64 = 7,
  FA_DTYPE_I8 = 8,
  FA_DTYPE_U8 = 9
} fa_dtype;

/* One operand: a device tensor passed by role ("query", "key", "value",
 * "output", "lse", ..., or a scratch name of the bundle). sizes and strides
 * (in elements) are outermost first; entries past `rank` are ignored.
 * Layout on x86-64: 160 bytes. */
typedef struct fa_tensor {
  const char *role;
  void *data;     /* device address */
  int32_t dtype;  /* fa_dtype */
  int32_t rank;
  int64_t sizes[FA_MAX_RANK];
  int64_t strides[FA_MAX_RANK];
} fa_tensor;

typedef struct fa_bundle fa_bundle;

/* Message of the last failing call on this thread; "" after a success. The
 * pointer stays valid until the next fa_* call on this thread. */
const char *fa_last_error(void);
/* "FA_OK", "FA_ERROR_TENSOR", ... ("FA_ERROR_UNKNOWN" for other values). */
const char *fa_status_name(int status);
int fa_runtime_abi_version(void);
/* Bundle format version this runtime reads. */
int fa_bundle_format_version(void);

/* Canonical name of a dtype ("bf16"); NULL for an unknown value. */
const char *fa_dtype_name(int32_t dtype);
/* Parses "bf16", "f8E4M3FN", ... into *out. */
int fa_dtype_from_name(const char *name, int32_t *out);

/* Reads and validates `json_path`, an fa-kernel-bundle and the cubin it
 * names, or an fa-kernel-sequence and every kernel bundle (and cubin) it
 * lists. No GPU needed. On success *out is a handle to release with
 * fa_bundle_free; both formats launch through the same calls. */
int fa_bundle_load(const char *json_path, fa_bundle **out);
/* The same for a plain fa-kernel-bundle held in memory: its JSON text and
 * its device image (the JSON's "cubin" file name is not read), as a program
 * that embeds its kernels carries them. Sequences load from files only. */
int fa_bundle_load_from_memory(const char *json, size_t json_len,
                               const void *image, size_t image_len,
                               fa_bundle **out);
void fa_bundle_free(fa_bundle *bundle);

/* Borrowed strings, valid while the bundle lives. For a sequence: its
 * kernels' entry names joined by ",", and its own op, chip, config, JSON. */
const char *fa_bundle_kernel_name(const fa_bundle *bundle);
const char *fa_bundle_op(const fa_bundle *bundle);
const char *fa_bundle_chip(const fa_bundle *bundle);
const char *fa_bundle_config_json(const fa_bundle *bundle); /* "config" */
const char *fa_bundle_json(const fa_bundle *bundle);        /* whole file */
/* Comma-separated roles a launch must pass. */
const char *fa_bundle_required_operands(const fa_bundle *bundle);
/* Kernel parameters (of all kernels, for a sequence). */
int fa_bundle_num_params(const fa_bundle *bundle);
/* Kernels a launch queues: 1 for a plain bundle. */
int fa_bundle_num_kernels(const fa_bundle *bundle);
/* The sequence's "workspace" array as JSON text; "[]" for a plain bundle. */
const char *fa_bundle_workspace(const fa_bundle *bundle);
/* Total bytes of the workspace buffers for these operands: what a launch
 * allocates when the caller passes none of them (0 for a plain bundle). */
int fa_bundle_workspace_bytes(const fa_bundle *bundle,
                              const fa_tensor *tensors, int num_tensors,
                              int64_t *bytes);

/* Checks the operands and evaluates the grid without a GPU, as a launch
 * would on a device with `num_sms` SMs. grid_out (3 values) may be NULL.
 * A sequence checks every kernel (workspace buffers not passed count as
 * provided) and returns its first kernel's grid. */
int fa_bundle_check(const fa_bundle *bundle, const fa_tensor *tensors,
                    int num_tensors, int num_sms, uint32_t *grid_out);

/* Launches on `stream` (a CUstream; NULL = legacy default stream) in the
 * stream's context (else the current one, else device 0's primary one).
 * Asynchronous: returns once the kernel is queued. A sequence allocates the
 * workspace buffers not passed (cuMemAllocAsync on the stream), zeroes the
 * "init": "zero" ones, queues its kernels in order and frees what it
 * allocated (cuMemFreeAsync, after the last kernel). */
int fa_bundle_launch(fa_bundle *bundle, const fa_tensor *tensors,
                     int num_tensors, void *stream);

/* Device memory for host programs without CUDA of their own (a compiled
 * MLIR program that runs its attention through the runtime). Each call runs
 * in the context a launch on `stream` would and is asynchronous on `stream`
 * (NULL: the legacy default stream); fa_stream_synchronize waits for it.
 * fa_device_free(NULL, ...) does nothing. */
int fa_device_alloc(size_t bytes, void *stream, void **out);
int fa_device_free(void *ptr, void *stream);
int fa_copy_to_device(void *dst, const void *src, size_t bytes, void *stream);
int fa_copy_to_host(void *dst, const void *src, size_t bytes, void *stream);
int fa_stream_synchronize(void *stream);

/* For compiled programs (convert-fa-to-runtime-calls): runs the plain
 * bundle embedded as `json` and `image` on operands in host memory.
 * `*cache` is the call site's slot (NULL at first) where the loaded bundle
 * stays for the rest of the process. `roles` names the operands,
 * comma-separated; `words` describes each in turn as [address, dtype,
 * direction, rank, sizes[rank], strides[rank]] (direction 1: read by the
 * kernel, 2: written, 3: both). Device buffers are allocated, inputs copied
 * in, the kernel launched on the default stream, outputs copied back and
 * the buffers freed before it returns. */
int fa_launch_embedded(const char *json, int64_t json_len, const void *image,
                       int64_t image_len, void **cache, const char *roles,
                       int64_t num_operands, const int64_t *words);
/* The same for generated code: on failure prints the error and aborts. */
void fa_launch_embedded_or_abort(const char *json, int64_t json_len,
                                 const void *image, int64_t image_len,
                                 void **cache, const char *roles,
                                 int64_t num_operands, const int64_t *words);

/* Loads the CUDA driver and counts GPUs; FA_OK when at least one is usable.
 * *num_devices (may be NULL) receives the count. */
int fa_driver_check(int *num_devices);

#ifdef __cplusplus
}
#endif

#endif /* FA_RUNTIME_FA_RUNTIME_H */
