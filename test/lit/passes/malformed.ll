; Malformed markings are rejected with a diagnostic naming the function and
; the call, and opt exits with an error instead of crashing.
; RUN: rm -rf %t && split-file %s %t
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/operands.ll 2>&1 | FileCheck %s --check-prefix=OPERANDS
; OPERANDS: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': expected 4 operands (id, name, loc, kind), got 3
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/id-type.ll 2>&1 | FileCheck %s --check-prefix=ID-TYPE
; ID-TYPE: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': operand 0 (the Apply id) must be an i32 constant
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/id-string.ll 2>&1 | FileCheck %s --check-prefix=ID-TYPE
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/negative.ll 2>&1 | FileCheck %s --check-prefix=NEGATIVE
; NEGATIVE: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': Apply id -1 is out of range [0, 1048576)
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/huge.ll 2>&1 | FileCheck %s --check-prefix=HUGE
; HUGE: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': Apply id 2000000000 is out of range [0, 1048576)
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/name.ll 2>&1 | FileCheck %s --check-prefix=NAME
; NAME: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': operand 1 (the name) must be a string
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/kind.ll 2>&1 | FileCheck %s --check-prefix=KIND
; KIND: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': operand 3 (the kind) must be a string
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/duplicate.ll 2>&1 | FileCheck %s --check-prefix=DUPLICATE
; DUPLICATE: error: graphjit-instrument: in function 'g': !graphjit.apply on the call to 'other': Apply id 3 is already used by the call to 'thunk' in the same function
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/not-a-call.ll 2>&1 | FileCheck %s --check-prefix=NOT-CALL
; NOT-CALL: error: graphjit-instrument: in function 'f': !graphjit.apply on '%x = add i32 %a, 1, !graphjit.apply !0': only calls can be marked as Applies
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/invoke.ll 2>&1 | FileCheck %s --check-prefix=INVOKE
; INVOKE: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': invokes are not supported: an Apply is timed around a call, and a thunk does not unwind
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/banana.ll 2>&1 | FileCheck %s --check-prefix=BANANA
; BANANA: error: graphjit-instrument: in function 'f': !graphjit.apply on the call to 'thunk': operand 3 (the kind) must be "C" or "Py", not "banana"
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %t/abi.ll 2>&1 | FileCheck %s --check-prefix=ABI
; ABI: error: graphjit-instrument: 'gj_profile_enter' is already in the module with a type other than the runtime ABI's ptr (ptr)
; (That an error leaves the module unchanged, @f included, is checked by
; the unit test InstrumentApplies.MalformedMarkingLeavesTheModuleAlone.)

;--- operands.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i32 0, !"A", !"x.graph:1"}

;--- id-type.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i64 0, !"A", !"", !"C"}

;--- id-string.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{!"0", !"A", !"", !"C"}

;--- negative.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i32 -1, !"A", !"", !"C"}

;--- huge.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i32 2000000000, !"A", !"", !"C"}

;--- name.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i32 0, i32 5, !"", !"C"}

;--- kind.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i32 0, !"A", !"", null}

;--- duplicate.ll
declare i32 @thunk(ptr)
declare i32 @other(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
define i32 @g(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  %s = call i32 @other(ptr %p), !graphjit.apply !1
  ret i32 %s
}
!0 = !{i32 3, !"A", !"", !"C"}
!1 = !{i32 3, !"B", !"", !"C"}

;--- not-a-call.ll
define i32 @f(i32 %a) {
  %x = add i32 %a, 1, !graphjit.apply !0
  ret i32 %x
}
!0 = !{i32 0, !"A", !"", !"C"}

;--- abi.ll
declare i32 @thunk(ptr)
declare void @gj_profile_enter()
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i32 0, !"A", !"", !"C"}

;--- invoke.ll
declare i32 @thunk(ptr)
declare i32 @__gxx_personality_v0(...)
define i32 @f(ptr %p) personality ptr @__gxx_personality_v0 {
  %r = invoke i32 @thunk(ptr %p) to label %ok unwind label %lp, !graphjit.apply !0
ok:
  ret i32 %r
lp:
  %e = landingpad { ptr, i32 } cleanup
  ret i32 1
}
!0 = !{i32 0, !"A", !"", !"C"}

;--- banana.ll
declare i32 @thunk(ptr)
define i32 @f(ptr %p) {
  %r = call i32 @thunk(ptr %p), !graphjit.apply !0
  ret i32 %r
}
!0 = !{i32 0, !"A", !"", !"banana"}
