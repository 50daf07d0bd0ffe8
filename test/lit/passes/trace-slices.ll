; graphjit-instrument<trace> also records the timeline: a gj_trace_slice
; after each Apply with its id and the two clock reads that bound it, and
; one for the whole call (id -1) before each return.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<trace>' -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument' -S %s | FileCheck %s --check-prefix=NOTRACE

; CHECK-LABEL: define i32 @gj_driver(
; CHECK:         %[[T0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK:         call i32 @thunk(ptr %frame), !graphjit.apply
; CHECK:         %[[T1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK:         call void @gj_trace_slice(ptr @gj_driver.gj_profile, i32 0, i64 %[[T0]], i64 %[[T1]])
; CHECK:         call void @gj_profile_exit(
; CHECK-NEXT:    call void @gj_trace_slice(ptr @gj_driver.gj_profile, i32 -1, i64 %{{.*}}, i64 %{{.*}})
; CHECK-NEXT:    ret i32
; NOTRACE-NOT: gj_trace_slice

define internal i32 @thunk(ptr %frame) {
  ret i32 0
}

define i32 @gj_driver(ptr %frame) {
entry:
  %rc = call i32 @thunk(ptr %frame), !graphjit.apply !0
  ret i32 %rc
}

!0 = !{i32 0, !"Add(x, y)", !"t.graph:1", !"C"}
