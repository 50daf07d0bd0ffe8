/*===- graphjit/runtime/RuntimeABI.h - What JIT code calls ----------*- C -*-===
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
 * Profiling (version 2): the instrumentation pass (passes/InstrumentApplies)
 * makes an instrumented function call gj_profile_enter on entry, add each
 * Apply's clock ticks and one call into the calling thread's counters, and
 * call gj_profile_exit before every return; docs/instrumentation.md.
 *
 * Memory (version 3): with its `memory` option the pass also brackets each
 * call with gj_memory_enter/gj_memory_exit, tells the runtime which Apply
 * runs (gj_memory_apply), and routes the module's malloc, calloc, realloc,
 * aligned_alloc and free through the gj_memory_* hooks, so that every
 * buffer made or freed during the call is counted against its Apply.
 *
 * Planned memory (version 4): a thunk whose op can compute its output
 * shapes in IR does so itself, and takes each output from a storage of the
 * function's memory plan (gj_frame::storages; lifetimes from the schedule)
 * instead of calling gj_prepare. It calls the runtime only when a storage
 * is too small or was handed out (gj_storage_grow) and when the shapes are
 * wrong (gj_fail, which words the error as gj_prepare would).
 *
 * Symbolic dims (version 5): gj_frame::dims gives the sizes the call's
 * inputs bind, so that a planned thunk whose shape names a symbol (reshape
 * to [n, -1], alloc of [n, 3]) computes it without the runtime.
 *
 * Versioned: a change to these declarations bumps GRAPHJIT_RUNTIME_ABI_VERSION.
 *===----------------------------------------------------------------------===*/
#ifndef GRAPHJIT_RUNTIME_ABI_H
#define GRAPHJIT_RUNTIME_ABI_H

#include <stddef.h>
#include <stdint.h>

#define GRAPHJIT_RUNTIME_ABI_VERSION 5
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

/* One storage of the memory plan (version 4): `capacity` bytes at `data`
 * that only the compiled code uses. A capacity below zero means the runtime
 * handed the memory out (a result, or an input of a Py op): the next
 * output placed there asks gj_storage_grow. */
typedef struct gj_storage {
  char *data;
  int64_t capacity;
} gj_storage;

/* The state of one call. JIT code reads `slots` and `storages`, and writes
 * the slots of the outputs it plans and their storages' capacities never. */
typedef struct gj_frame {
  gj_slot *slots;
  void *impl; /* The runtime's own state. */
  gj_storage *storages;
  /* The sizes of the symbolic dims the inputs bind, in the order they first
   * appear in the inputs' types (version 5). */
  const int64_t *dims;
} gj_frame;

/* Checks Apply `node`'s input shapes and makes its outputs (allocated, or
 * views of its inputs) without computing values; fills their slots. */
int32_t gj_prepare(gj_frame *frame, int32_t node);
/* Runs Apply `node` through its op's reference perform (the Py path). */
int32_t gj_perform(gj_frame *frame, int32_t node);
/* Computes Apply `node`'s prepared outputs with the op's library code (for
 * dot: BLAS). */
int32_t gj_compute(gj_frame *frame, int32_t node);
/* `storage` (an entry of frame->storages) must hold `bytes` bytes that
 * nothing outside the compiled code holds: returns its (new) data, or null
 * when the memory cannot be had (the thunk then calls gj_fail). It reads
 * and writes only that entry and the runtime's own memory, never a slot. */
char *gj_storage_grow(gj_frame *frame, gj_storage *storage, int64_t bytes);
/* A planned Apply `node` found its input shapes wrong (or its outputs too
 * large): records the error its op's prepare gives; returns non-zero. */
int32_t gj_fail(gj_frame *frame, int32_t node);
/* Variable `var` is dead (allow_gc): its memory may be freed. */
void gj_release(gj_frame *frame, int32_t var);
/* The ABI version the runtime implements. */
int32_t gj_runtime_abi_version(void);

/*--- Profiling (ABI version 2) -------------------------------------------*/

/* One Apply's totals in one thread: clock ticks (the unit is the
 * descriptor's clock) and calls. JIT code updates them with plain loads and
 * stores; only the owning thread writes them. */
typedef struct gj_apply_counter {
  uint64_t ticks;
  uint64_t calls;
} gj_apply_counter;

/* One marked Apply, from its !graphjit.apply metadata. */
typedef struct gj_profile_apply {
  int32_t id;
  const char *name;
  const char *loc;
  const char *kind;
} gj_profile_apply;

/* The clock an instrumented function reads. */
#define GJ_PROFILE_CLOCK_TSC 0  /* llvm.readcyclecounter ticks */
#define GJ_PROFILE_CLOCK_CALL 1 /* gj_profile_now() nanoseconds */
/* Sampling (version 5): the Applies' ticks are nanoseconds that a sampler
 * thread attributed to whichever Apply each thread was running (one store
 * per Apply in the code, gj_sample_enter); the call's, gj_profile_now's. */
#define GJ_PROFILE_CLOCK_SAMPLE 2
/* The same for a function whose Applies run as one chain (the first in the
 * entry block, each followed by the next or by a way out of the call):
 * the code counts no calls per Apply, only, on each way out after Apply
 * A, one in A's `calls`. The descriptor's table lists the Applies in the
 * order they run, and ProfileRuntime::totals() gives each the function's
 * calls less those that left before it. */
#define GJ_PROFILE_CLOCK_SAMPLE_CHAIN 3
#ifdef __cplusplus
inline bool gj_profile_clock_is_sampled(uint32_t clock) {
#else
static inline int gj_profile_clock_is_sampled(uint32_t clock) {
#endif
  return clock == GJ_PROFILE_CLOCK_SAMPLE ||
         clock == GJ_PROFILE_CLOCK_SAMPLE_CHAIN;
}
/* Apply ids must be below this (the counter block is indexed by id). */
#define GJ_PROFILE_MAX_APPLIES (1 << 20)

/* What the pass emits for each instrumented function F, as the constant
 * `F.gj_profile` (F's name and this suffix) with external linkage. */
#define GJ_PROFILE_DESC_SUFFIX ".gj_profile"
typedef struct gj_profile_desc {
  uint32_t abi_version;  /* GRAPHJIT_RUNTIME_ABI_VERSION */
  uint32_t num_counters; /* max Apply id + 1 */
  const char *function;  /* the instrumented LLVM function */
  uint32_t num_applies;  /* the marked Applies, by increasing id (in the
                            order they run for GJ_PROFILE_CLOCK_SAMPLE_CHAIN) */
  const gj_profile_apply *applies;
  uint32_t clock;        /* GJ_PROFILE_CLOCK_TSC or GJ_PROFILE_CLOCK_CALL */
} gj_profile_desc;

/* The calling thread's counters for desc, num_counters of them indexed by
 * Apply id (registered on first use; never null). */
gj_apply_counter *gj_profile_enter(const gj_profile_desc *desc);
/* End of one call of desc's function: driver_ticks is the whole call's
 * time, in desc's clock. counters is what gj_profile_enter returned. */
void gj_profile_exit(const gj_profile_desc *desc, gj_apply_counter *counters,
                     uint64_t driver_ticks);
/* The fallback clock (GJ_PROFILE_CLOCK_CALL): CLOCK_MONOTONIC_RAW in ns. */
uint64_t gj_profile_now(void);

/* Sampling: the calling thread's slot, which code instrumented with
 * clock=sample points at desc and counters on entry, sets `apply` to each
 * Apply's id before it runs (a relaxed atomic store) and to -1 before it
 * returns. A sampler thread, started on the first call, adds the time
 * since its last look to counters[apply].ticks of every thread's slot
 * (runtime/SampleRuntime.h). */
typedef struct gj_sample_slot {
  const gj_profile_desc *desc;
  gj_apply_counter *counters;
  int32_t apply;
} gj_sample_slot;
gj_sample_slot *gj_sample_enter(const gj_profile_desc *desc,
                                gj_apply_counter *counters);
/* Writes every instrumented function's counters so far as graphjit's
 * profile JSON to `path`, for `graphjit-prof summary` (version 5); 0, or
 * non-zero after printing why. A program also writes it at exit when
 * GRAPHJIT_PROFILE_JSON names a file. */
int32_t gj_profile_write(const char *path);

/*--- Timeline -----------------------------------------------------------*/

/* One slice of a thread's timeline: Apply apply of desc's function (-1:
 * the whole call) ran from start to end, in desc's clock; or, with apply
 * GJ_TRACE_LIVE_BYTES, a sample of the call's live bytes (end) at start
 * (profile_memory's hooks, after each Apply). */
#define GJ_TRACE_LIVE_BYTES (-2)
typedef struct gj_trace_slot {
  const gj_profile_desc *desc;
  int32_t apply;
  uint64_t start, end;
} gj_trace_slot;

/* A thread's ring of slots: the next slice goes to slots[next], next then
 * wraps to 0 at capacity, and written counts every slice. Code
 * instrumented with the pass's `trace` option writes it inline, after
 * every Apply and at the end of every call. */
typedef struct gj_trace_ring {
  gj_trace_slot *slots;
  uint64_t next;
  uint64_t capacity;
  uint64_t written;
} gj_trace_ring;

/* The calling thread's ring while a trace is on (TraceRuntime.h), else a
 * ring of one slot that nothing reads; never null. Instrumented code asks
 * once per call, at entry. */
gj_trace_ring *gj_trace_enter(void);
/* One slice, as instrumented code writes it (for callers outside JIT
 * code). */
void gj_trace_slice(const gj_profile_desc *desc, int32_t apply,
                    uint64_t start, uint64_t end);

/*--- Memory (ABI version 3) ----------------------------------------------*/

/* The memory record of one call in progress on the calling thread. */
typedef struct gj_memory_state gj_memory_state;

/* Starts recording the memory of one call of desc's function on this
 * thread: every buffer the runtime's allocator (or a gj_memory_* hook)
 * hands out until gj_memory_exit is counted, and the call's peak kept. */
gj_memory_state *gj_memory_enter(const gj_profile_desc *desc);
/* Ends the call's record: folds its peak and per-Apply bytes into the
 * function's. */
void gj_memory_exit(gj_memory_state *state);
/* From now on allocations are Apply `apply`'s (-1: the driver's own). */
void gj_memory_apply(gj_memory_state *state, int32_t apply);
/* The C allocator, counted against the running Apply while a call on this
 * thread is recorded (and plain malloc & co. otherwise). */
void *gj_memory_malloc(size_t bytes);
void *gj_memory_calloc(size_t count, size_t bytes);
void *gj_memory_realloc(void *p, size_t bytes);
void *gj_memory_aligned_alloc(size_t alignment, size_t bytes);
void gj_memory_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
