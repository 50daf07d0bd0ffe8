; A function whose descriptor already exists was instrumented before: it is
; left as it is, with a warning, so running the pass twice counts once.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %s -o %t.once.ll
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t.once.ll -o %t.twice.ll 2>&1 | FileCheck %s --check-prefix=WARN
; WARN: warning: graphjit-instrument: function 'f' is already instrumented (@f.gj_profile exists); left as it is
; RUN: FileCheck %s < %t.twice.ll

; CHECK-LABEL: define void @f(
; CHECK-COUNT-1: call ptr @gj_profile_enter(
; CHECK-NOT:     call ptr @gj_profile_enter(
; CHECK:         ret void

declare void @thunk(ptr)

define void @f(ptr %frame) {
  call void @thunk(ptr %frame), !graphjit.apply !0
  ret void
}

!0 = !{i32 0, !"A", !"", !"C"}
