; clock=call reads gj_profile_now() (nanoseconds) instead of the TSC, for
; machines without an invariant TSC; the descriptor says so (clock 1).
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=call>' -S %s | FileCheck %s --check-prefixes=CHECK,CALL
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=tsc>' -S %s | FileCheck %s --check-prefixes=CHECK,TSC
; An unknown clock is an error.
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=wall>' -S %s 2>&1 | FileCheck %s --check-prefix=BAD
; BAD: error: invalid graphjit-instrument parameter 'clock=wall' (expected clock=tsc, clock=call, clock=sample, memory or trace)

; CALL: @f.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 1, ptr @{{[^,]*}}, i32 1, ptr @f.gj_applies, i32 1 }
; TSC:  @f.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 1, ptr @{{[^,]*}}, i32 1, ptr @f.gj_applies, i32 0 }

declare void @thunk(ptr)

define void @f(ptr %frame) {
; CHECK-LABEL: define void @f(
; CHECK-NEXT:    %gj.counters = call ptr @gj_profile_enter(ptr @f.gj_profile)
; CALL-NEXT:     %[[START:.*]] = call i64 @gj_profile_now()
; TSC-NEXT:      %[[START:.*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    call void @thunk(ptr %frame), !graphjit.apply !0
; CALL-NEXT:     %[[END:.*]] = call i64 @gj_profile_now()
; TSC-NEXT:      %[[END:.*]] = call i64 @llvm.readcyclecounter()
; CHECK:         sub i64 %[[END]], %[[START]]
; CALL-NOT:      readcyclecounter
; TSC-NOT:       gj_profile_now
  call void @thunk(ptr %frame), !graphjit.apply !0
  ret void
}

; CALL: declare i64 @gj_profile_now()

!0 = !{i32 0, !"A", !"", !"C"}
