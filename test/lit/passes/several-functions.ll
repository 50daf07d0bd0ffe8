; Each function with marked Applies gets its own descriptor and counters;
; ids are per function, so two functions may both have Apply 0. Functions
; without marked calls, and declarations, are left alone.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %s | FileCheck %s

; CHECK-DAG: @train.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 2, ptr @[[TNAME:[^,]*]], i32 2, ptr @train.gj_applies, i32 0 }
; CHECK-DAG: @predict.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 1, ptr @[[PNAME:[^,]*]], i32 1, ptr @predict.gj_applies, i32 0 }
; CHECK-DAG: @[[TNAME]] = private unnamed_addr constant [6 x i8] c"train\00"
; CHECK-DAG: @[[PNAME]] = private unnamed_addr constant [8 x i8] c"predict\00"
; The table is sorted by id, whatever the order of the calls.
; CHECK-DAG: @train.gj_applies = private constant [2 x { i32, ptr, ptr, ptr }] [{ i32, ptr, ptr, ptr } { i32 0, {{.*}} }, { i32, ptr, ptr, ptr } { i32 1, {{.*}} }]
; CHECK-NOT: helper.gj_profile

declare void @thunk(ptr)

define void @train(ptr %frame) {
; CHECK-LABEL: define void @train(
; CHECK:         call ptr @gj_profile_enter(ptr @train.gj_profile)
; CHECK:         call void @thunk(ptr %frame), !graphjit.apply ![[T1:[0-9]+]]
; CHECK:         getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 1
; CHECK:         call void @thunk(ptr %frame), !graphjit.apply ![[T0:[0-9]+]]
; CHECK:         getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 0
; CHECK:         call void @gj_profile_exit(ptr @train.gj_profile,
  call void @thunk(ptr %frame), !graphjit.apply !1
  call void @thunk(ptr %frame), !graphjit.apply !0
  ret void
}

define void @predict(ptr %frame) {
; CHECK-LABEL: define void @predict(
; CHECK:         call ptr @gj_profile_enter(ptr @predict.gj_profile)
; CHECK:         getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 0
; CHECK:         call void @gj_profile_exit(ptr @predict.gj_profile,
  call void @thunk(ptr %frame), !graphjit.apply !2
  ret void
}

define void @helper(ptr %frame) {
; CHECK-LABEL: define void @helper(
; CHECK-NEXT:    call void @thunk(ptr %frame)
; CHECK-NEXT:    ret void
  call void @thunk(ptr %frame)
  ret void
}

!0 = !{i32 0, !"A", !"m.graph:2", !"C"}
!1 = !{i32 1, !"B", !"m.graph:3", !"Py"}
!2 = !{i32 0, !"A", !"m.graph:9", !"C"}
