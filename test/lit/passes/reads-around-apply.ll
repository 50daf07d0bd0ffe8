; One marked call gets a clock read before and after it, and its counter
; (entry 7 of the thread's block) gets the ticks and one call. The unmarked
; call next to it is not timed; the function calls gj_profile_enter at entry
; and gj_profile_exit with the whole call's ticks before returning.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %s | FileCheck %s

declare i32 @thunk(ptr)
declare void @other(ptr)

; CHECK: @f.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 8, ptr @{{.*}}, i32 1, ptr @f.gj_applies, i32 0 }

define i32 @f(ptr %frame) {
; CHECK-LABEL: define i32 @f(
; CHECK-NEXT:    %gj.counters = call ptr @gj_profile_enter(ptr @f.gj_profile)
; CHECK-NEXT:    %[[T0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    call void @other(ptr %frame)
; CHECK-NEXT:    %[[START:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %rc = call i32 @thunk(ptr %frame), !graphjit.apply !0
; CHECK-NEXT:    %[[END:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %[[CTR:.*]] = getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 7
; CHECK-NEXT:    %[[TP:.*]] = getelementptr inbounds { i64, i64 }, ptr %[[CTR]], i32 0, i32 0
; CHECK-NEXT:    %[[CP:.*]] = getelementptr inbounds { i64, i64 }, ptr %[[CTR]], i32 0, i32 1
; CHECK-NEXT:    %[[DT:.*]] = sub i64 %[[END]], %[[START]]
; CHECK-NEXT:    %[[TICKS:.*]] = load i64, ptr %[[TP]], align 8
; CHECK-NEXT:    %[[TICKS1:.*]] = add i64 %[[TICKS]], %[[DT]]
; CHECK-NEXT:    store i64 %[[TICKS1]], ptr %[[TP]], align 8
; CHECK-NEXT:    %[[CALLS:.*]] = load i64, ptr %[[CP]], align 8
; CHECK-NEXT:    %[[CALLS1:.*]] = add i64 %[[CALLS]], 1
; CHECK-NEXT:    store i64 %[[CALLS1]], ptr %[[CP]], align 8
; CHECK-NEXT:    call void @other(ptr %frame)
; CHECK-NEXT:    %[[T1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %[[WHOLE:.*]] = sub i64 %[[T1]], %[[T0]]
; CHECK-NEXT:    call void @gj_profile_exit(ptr @f.gj_profile, ptr %gj.counters, i64 %[[WHOLE]])
; CHECK-NEXT:    ret i32 %rc
  call void @other(ptr %frame)
  %rc = call i32 @thunk(ptr %frame), !graphjit.apply !0
  call void @other(ptr %frame)
  ret i32 %rc
}

; Unmarked functions are left alone.
define i32 @plain(ptr %frame) {
; CHECK-LABEL: define i32 @plain(
; CHECK-NEXT:    %rc = call i32 @thunk(ptr %frame)
; CHECK-NEXT:    ret i32 %rc
  %rc = call i32 @thunk(ptr %frame)
  ret i32 %rc
}

; CHECK-NOT: plain.gj_profile
; CHECK: declare ptr @gj_profile_enter(ptr)
; CHECK: declare void @gj_profile_exit(ptr, ptr, i64)

!0 = !{i32 7, !"Elemwise{add,no_inplace}(x, y)", !"example.graph:5", !"C"}
