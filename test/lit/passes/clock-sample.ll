; clock=sample: the call asks gj_sample_enter for the thread's slot, each
; Apply stores its id there (a relaxed atomic store) and counts its call,
; and every return stores -1 before gj_profile_exit gets the call's time
; from gj_profile_now(). No clock is read per Apply; the descriptor says
; the ticks are sampled (clock 2). A timeline needs exact times: refused.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=sample>' -S %s | FileCheck %s
; RUN: not %opt -load-pass-plugin=%graphjit_plugin -passes='graphjit-instrument<clock=sample;trace>' -S %s 2>&1 | FileCheck %s --check-prefix=TRACE
; TRACE: error: graphjit-instrument: clock=sample cannot record a timeline (trace)

; CHECK: @f.gj_profile = constant { i32, i32, ptr, i32, ptr, i32 } { i32 5, i32 2, ptr @{{[^,]*}}, i32 2, ptr @f.gj_applies, i32 2 }

declare void @thunk(ptr)
declare i32 @may_fail(ptr)

define i32 @f(ptr %frame) {
; CHECK-LABEL: define i32 @f(
; CHECK-NEXT:    %gj.counters = call ptr @gj_profile_enter(ptr @f.gj_profile)
; CHECK-NEXT:    %gj.sample = call ptr @gj_sample_enter(ptr @f.gj_profile, ptr %gj.counters)
; CHECK-NEXT:    %[[START:.*]] = call i64 @gj_profile_now()
; CHECK-NEXT:    %[[P0:.*]] = getelementptr inbounds { ptr, ptr, i32 }, ptr %gj.sample, i32 0, i32 2
; CHECK-NEXT:    store atomic i32 0, ptr %[[P0]] monotonic, align 4
; CHECK:         %gj.calls.new = add i64 %gj.calls, 1
; CHECK:         %rc = call i32 @may_fail(ptr %frame), !graphjit.apply !0
; CHECK:         store atomic i32 1, ptr %{{.*}} monotonic, align 4
; CHECK:         call void @thunk(ptr %frame), !graphjit.apply !1
; Both returns: -1, then the call's time.
; CHECK:         store atomic i32 -1, ptr %{{.*}} monotonic, align 4
; CHECK-NEXT:    %[[END:.*]] = call i64 @gj_profile_now()
; CHECK-NEXT:    %gj.dt = sub i64 %[[END]], %[[START]]
; CHECK-NEXT:    call void @gj_profile_exit(ptr @f.gj_profile, ptr %gj.counters, i64 %gj.dt)
; CHECK:         store atomic i32 -1, ptr %{{.*}} monotonic, align 4
; CHECK-NOT:     readcyclecounter
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

!0 = !{i32 0, !"A", !"", !"C"}
!1 = !{i32 1, !"B", !"", !"Py"}
