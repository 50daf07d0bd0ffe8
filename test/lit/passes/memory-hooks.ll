; graphjit-instrument<memory> records each call's memory: gj_memory_enter
; after gj_profile_enter, gj_memory_apply(id) before each Apply's clock
; read and gj_memory_apply(-1) after the Apply's end read, gj_memory_exit
; before each return; and every call of the C allocator in the module,
; marked or not, goes through the runtime's hooks. Without `memory` none of
; this happens.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<memory>' -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=call;memory>' -S %s | FileCheck %s --check-prefix=CALL
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %s | FileCheck %s --check-prefix=PLAIN
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<memory>' -print-pipeline-passes -disable-output %s | FileCheck %s --check-prefix=PIPE
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<memroy>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=BAD

declare ptr @malloc(i64)
declare ptr @aligned_alloc(i64, i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)

define internal i32 @thunk(ptr %frame) {
; CHECK-LABEL: define internal i32 @thunk(
; CHECK-NEXT:    %p = call ptr @gj_memory_malloc(i64 64)
; CHECK-NEXT:    %q = call ptr @gj_memory_realloc(ptr %p, i64 128)
; CHECK-NEXT:    %r = call ptr @gj_memory_aligned_alloc(i64 64, i64 256)
; CHECK-NEXT:    call void @gj_memory_free(ptr %q)
; CHECK-NEXT:    call void @gj_memory_free(ptr %r)
; PLAIN-LABEL: define internal i32 @thunk(
; PLAIN-NEXT:    %p = call ptr @malloc(i64 64)
  %p = call ptr @malloc(i64 64)
  %q = call ptr @realloc(ptr %p, i64 128)
  %r = call ptr @aligned_alloc(i64 64, i64 256)
  call void @free(ptr %q)
  call void @free(ptr %r)
  ret i32 0
}

define i32 @gj_driver(ptr %frame) {
; CHECK-LABEL: define i32 @gj_driver(
; CHECK-NEXT:    %gj.counters = call ptr @gj_profile_enter(ptr @gj_driver.gj_profile)
; CHECK-NEXT:    %gj.memory = call ptr @gj_memory_enter(ptr @gj_driver.gj_profile)
; CHECK-NEXT:    call void @gj_memory_apply(ptr %gj.memory, i32 0)
; CHECK-NEXT:    %[[T0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %a = call i32 @thunk(ptr %frame), !graphjit.apply !0
; CHECK-NEXT:    call void @gj_memory_apply(ptr %gj.memory, i32 -1)
; CHECK-NEXT:    call void @gj_memory_apply(ptr %gj.memory, i32 1)
; CHECK-NEXT:    %[[T1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK:         %b = call i32 @thunk(ptr %frame), !graphjit.apply !1
; CHECK-NEXT:    %[[T2:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK:         call void @gj_memory_apply(ptr %gj.memory, i32 -1)
; CHECK-NEXT:    call void @gj_memory_exit(ptr %gj.memory)
; CHECK:         call void @gj_profile_exit(
; CHECK-NEXT:    ret i32 0
; CALL:          %gj.memory = call ptr @gj_memory_enter(ptr @gj_driver.gj_profile)
; CALL:          call void @gj_memory_exit(ptr %gj.memory)
; PLAIN-NOT:     gj_memory
  %a = call i32 @thunk(ptr %frame), !graphjit.apply !0
  %b = call i32 @thunk(ptr %frame), !graphjit.apply !1
  ret i32 0
}

; PIPE: graphjit-instrument<clock=tsc;memory>
; BAD: invalid graphjit-instrument parameter 'memroy' (expected clock=tsc, clock=call, clock=sample, memory or trace)

!0 = !{i32 0, !"A(x)", !"", !"C"}
!1 = !{i32 1, !"B(x)", !"", !"C"}
