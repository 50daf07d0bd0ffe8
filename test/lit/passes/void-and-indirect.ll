; The contract times any marked call (docs/instrumentation.md): one that
; returns nothing and one through a pointer are timed like a thunk's call,
; each between two clock reads charged to its Apply.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %s | FileCheck %s

declare void @thunk_void(ptr)

; CHECK: @f.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 2, ptr @{{.*}}, i32 2, ptr @f.gj_applies, i32 0 }

define i32 @f(ptr %frame, ptr %fn) {
; CHECK-LABEL: define i32 @f(
; CHECK:         %[[S0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    call void @thunk_void(ptr %frame), !graphjit.apply !0
; CHECK-NEXT:    %[[E0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 0
; CHECK:         %rc = call i32 %fn(ptr %frame), !graphjit.apply !1
; CHECK-NEXT:    %[[E1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 1
; CHECK:         call void @gj_profile_exit(
  call void @thunk_void(ptr %frame), !graphjit.apply !0
  %rc = call i32 %fn(ptr %frame), !graphjit.apply !1
  ret i32 %rc
}

!0 = !{i32 0, !"void", !"x.graph:1", !"C"}
!1 = !{i32 1, !"indirect", !"x.graph:2", !"Py"}
