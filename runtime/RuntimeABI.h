/*===- runtime/RuntimeABI.h - What JIT code calls at run time ------*- C -*-===
 *
 * The C interface between the code graphjit JIT-compiles and its runtime.
 * A compiled function is a driver `int32_t gj_driver(gj_frame *)` that calls
 * one thunk per Apply in schedule order. A thunk reads and writes array
 * descriptors (gj_slot, one per Variable) through the frame. Ops that have a
 * lowering first ask the runtime to check shapes and make their outputs
 * (gj_prepare) and then compute in JIT code; ops without one run their
 * reference perform (gj_perform, the "Py" path). A non-zero result is an
 * error the runtime has already recorded; the driver returns it at once.
 *
 * Versioned: a change to these declarations bumps GRAPHJIT_RUNTIME_ABI_VERSION.
 *===----------------------------------------------------------------------===*/
#ifndef GRAPHJIT_RUNTIME_ABI_H
#define GRAPHJIT_RUNTIME_ABI_H

#include <stdint.h>

#define GRAPHJIT_RUNTIME_ABI_VERSION 1
/* The largest rank a lowered Apply handles; larger ones take the Py path. */
#define GJ_MAX_RANK 8

#ifdef __cplusplus
extern "C" {
#endif

/* One Variable's array during a call: NumPy's data pointer, shape and byte
 * strides. Only the first rank entries are meaningful. */
typedef struct gj_slot {
  char *data;
  int64_t shape[GJ_MAX_RANK];
  int64_t strides[GJ_MAX_RANK];
} gj_slot;

/* The state of one call. JIT code only reads `slots`. */
typedef struct gj_frame {
  gj_slot *slots;
  void *impl; /* The runtime's own state. */
} gj_frame;

/* Checks Apply `node`'s input shapes and makes its outputs (allocated, or
 * views of its inputs) without computing values; fills their slots. */
int32_t gj_prepare(gj_frame *frame, int32_t node);
/* Runs Apply `node` through its op's reference perform (the Py path). */
int32_t gj_perform(gj_frame *frame, int32_t node);
/* Computes Apply `node`'s prepared outputs with the op's library code (for
 * dot: BLAS). */
int32_t gj_compute(gj_frame *frame, int32_t node);
/* Variable `var` is dead (allow_gc): its memory may be freed. */
void gj_release(gj_frame *frame, int32_t var);
/* The ABI version the runtime implements. */
int32_t gj_runtime_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif
