; clock=sample: the call asks gj_sample_enter for the thread's slot, each
; Apply stores its id there (a relaxed atomic store), and every return
; stores -1 before gj_profile_exit gets the call's time from
; gj_profile_now(). No clock is read per Apply. @f's Applies are a chain
; from its entry block: only the way out after A counts (clock 3, the
; table in run order); @g's are not: each Apply counts its call (clock 2).
; A timeline needs exact times: refused.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=sample>' -S %s | FileCheck %s
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=sample;trace>' -S %s 2>&1 | FileCheck %s --check-prefix=TRACE
; TRACE: error: graphjit-instrument: clock=sample cannot record a timeline (trace)

; CHECK-DAG: @f.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 2, ptr @{{[^,]*}}, i32 2, ptr @f.gj_applies, i32 3 }
; CHECK-DAG: @g.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 2, ptr @{{[^,]*}}, i32 2, ptr @g.gj_applies, i32 2 }

declare void @thunk(ptr)
declare i32 @may_fail(ptr)

define i32 @f(ptr %frame) {
; CHECK-LABEL: define i32 @f(
; CHECK-NEXT:    %gj.counters = call ptr @gj_profile_enter(ptr @f.gj_profile)
; CHECK-NEXT:    %gj.sample = call ptr @gj_sample_enter(ptr @f.gj_profile, ptr %gj.counters)
; CHECK-NEXT:    %[[START:.*]] = call i64 @gj_profile_now()
; CHECK-NEXT:    %[[P0:.*]] = getelementptr inbounds { ptr, ptr, i32 }, ptr %gj.sample, i32 0, i32 2
; CHECK-NEXT:    store atomic i32 0, ptr %[[P0]] monotonic, align 4
; CHECK-NEXT:    %rc = call i32 @may_fail(ptr %frame), !graphjit.apply !0
; CHECK:         store atomic i32 1, ptr %{{.*}} monotonic, align 4
; CHECK-NEXT:    call void @thunk(ptr %frame), !graphjit.apply !1
; Both returns: -1, then the call's time; the way out after A counts one
; in A's calls.
; CHECK:         store atomic i32 -1, ptr %{{.*}} monotonic, align 4
; CHECK-NEXT:    %[[END:.*]] = call i64 @gj_profile_now()
; CHECK-NEXT:    %gj.dt = sub i64 %[[END]], %[[START]]
; CHECK-NEXT:    call void @gj_profile_exit(ptr @f.gj_profile, ptr %gj.counters, i64 %gj.dt)
; CHECK:       .gj.exit:
; CHECK:         %gj.calls.new = add i64 %gj.calls, 1
; CHECK:         store atomic i32 -1, ptr %{{.*}} monotonic, align 4
; CHECK-NOT:     readcyclecounter
; CHECK-LABEL: define i32 @g(
; CHECK:         %gj.sample = call ptr @gj_sample_enter(ptr @g.gj_profile, ptr %gj.counters)
; CHECK:         store atomic i32 0,
; CHECK-NEXT:    getelementptr
; CHECK:         %gj.calls.new = add i64 %gj.calls, 1
; CHECK:         store atomic i32 1,
; CHECK:         %gj.calls.new{{[0-9]*}} = add i64 %gj.calls{{[0-9]*}}, 1
; CHECK:         declare ptr @gj_sample_enter(ptr, ptr)
  %rc = call i32 @may_fail(ptr %frame), !graphjit.apply !0
  %bad = icmp ne i32 %rc, 0
  br i1 %bad, label %failed, label %ok
ok:
  call void @thunk(ptr %frame), !graphjit.apply !1
  ret i32 0
failed:
  ret i32 %rc
}

; Not a chain: the entry block chooses between two Applies.
define i32 @g(ptr %frame, i1 %which) {
  br i1 %which, label %left, label %right
left:
  call void @thunk(ptr %frame), !graphjit.apply !2
  ret i32 0
right:
  call void @thunk(ptr %frame), !graphjit.apply !3
  ret i32 1
}

!0 = !{i32 0, !"A", !"", !"C"}
!1 = !{i32 1, !"B", !"", !"Py"}
!2 = !{i32 0, !"C", !"", !"C"}
!3 = !{i32 1, !"D", !"", !"C"}
