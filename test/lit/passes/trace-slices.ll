; graphjit-instrument<trace> also records the timeline: the thread's ring
; from gj_trace_enter at entry, then a slice written into it inline after
; each Apply, with its id and the two clock reads that bound it, and one
; for the whole call (id -1) before each return.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<trace>' -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument' -S %s | FileCheck %s --check-prefix=NOTRACE

; CHECK-LABEL: define i32 @gj_driver(
; CHECK:         %gj.ring = call ptr @gj_trace_enter()
; CHECK:         %[[T0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK:         call i32 @thunk(ptr %frame), !graphjit.apply
; CHECK:         %[[T1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; The slice, written inline at the ring's next slot: desc, id, start, end.
; CHECK:         %[[SLOTS:gj.slots[0-9]*]] = load ptr, ptr %gj.ring
; CHECK:         %[[NEXT:gj.next[0-9]*]] = load i64, ptr %gj.next.p
; CHECK:         %[[SLOT:gj.slot[0-9]*]] = getelementptr inbounds { ptr, i32, i64, i64 }, ptr %[[SLOTS]], i64 %[[NEXT]]
; CHECK:         store ptr @gj_driver.gj_profile,
; CHECK:         store i32 0,
; CHECK:         store i64 %[[T0]],
; CHECK:         store i64 %[[T1]],
; The next slot wraps at the capacity; every slice is counted.
; CHECK:         %[[AFTER:[0-9]+]] = add i64 %[[NEXT]], 1
; CHECK:         %[[WRAP:[0-9]+]] = icmp eq i64 %[[AFTER]], %gj.capacity
; CHECK:         select i1 %[[WRAP]], i64 0, i64 %[[AFTER]]
; CHECK:         %gj.written = load i64
; CHECK:         call void @gj_profile_exit(
; The call's own slice, id -1, before the return.
; CHECK:         store i32 -1,
; CHECK:         ret i32
; CHECK-NOT:     call {{.*}}@gj_trace
; NOTRACE-NOT: gj_trace

define internal i32 @thunk(ptr %frame) {
  ret i32 0
}

define i32 @gj_driver(ptr %frame) {
entry:
  %rc = call i32 @thunk(ptr %frame), !graphjit.apply !0
  ret i32 %rc
}

!0 = !{i32 0, !"Add(x, y)", !"t.graph:1", !"C"}
