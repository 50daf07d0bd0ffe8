; Consecutive Applies share one clock read: the read before an Apply ends
; the one before it, so what lies between them (here @between) is charged to
; the earlier Apply, and each boundary costs one read. The first Apply at the
; top of the function starts with the call's own start read.
; RUN: %opt -load-pass-plugin=%graphjit_plugin -passes=graphjit-instrument -S %s > %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=READS < %t.ll

declare void @a(ptr)
declare void @between(ptr)

define void @one_block(ptr %frame) {
; CHECK-LABEL: define void @one_block(
; CHECK-NEXT:    %gj.counters = call ptr @gj_profile_enter(ptr @one_block.gj_profile)
; CHECK-NEXT:    %[[T0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    call void @a(ptr %frame), !graphjit.apply !0
; CHECK-NEXT:    call void @between(ptr %frame)
; CHECK-NEXT:    %[[T1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %[[C0:.*]] = getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 0
; CHECK:         sub i64 %[[T1]], %[[T0]]
; CHECK:         call void @a(ptr %frame), !graphjit.apply !1
; CHECK-NEXT:    %[[T2:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %[[C1:.*]] = getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 1
; CHECK:         sub i64 %[[T2]], %[[T1]]
; CHECK:         call void @a(ptr %frame), !graphjit.apply !2
; CHECK-NEXT:    %[[T3:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %[[C2:.*]] = getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 2
; CHECK:         sub i64 %[[T3]], %[[T2]]
; CHECK:         call void @gj_profile_exit(
; CHECK-NEXT:    ret void

; Three Applies, five reads: the call's start (shared with the first Apply's),
; two boundaries, the last Apply's end and the call's end.
; READS-LABEL:   define void @one_block(
; READS-COUNT-5: call i64 @llvm.readcyclecounter()
; READS-NOT:     call i64 @llvm.readcyclecounter()
; READS:         ret void
  call void @a(ptr %frame), !graphjit.apply !0
  call void @between(ptr %frame)
  call void @a(ptr %frame), !graphjit.apply !1
  call void @a(ptr %frame), !graphjit.apply !2
  ret void
}

declare i32 @thunk(ptr)

; The driver's shape: each Apply in a block of its own after the error test.
; The chain crosses the blocks; the error edges, where the next Apply's read
; is not reached, get a block of their own that ends the Apply.
define i32 @driver(ptr %frame) {
; CHECK-LABEL: define i32 @driver(
; CHECK:       entry:
; CHECK-NEXT:    %gj.counters = call ptr @gj_profile_enter(ptr @driver.gj_profile)
; CHECK-NEXT:    %[[D0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %rc0 = call i32 @thunk(ptr %frame), !graphjit.apply !0
; CHECK-NEXT:    %0 = icmp ne i32 %rc0, 0
; CHECK-NEXT:    br i1 %0, label %entry.gj.exit, label %after0
; CHECK:       entry.gj.exit:
; CHECK-NEXT:    %[[E0:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 0
; CHECK:         sub i64 %[[E0]], %[[D0]]
; CHECK:         br label %failed
; CHECK:       failed:
; CHECK-NEXT:    %rc = phi i32 [ %rc0, %entry.gj.exit ], [ %rc1, %after0 ]
; CHECK-NEXT:    %[[F:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %[[FD:.*]] = sub i64 %[[F]], %[[D0]]
; CHECK-NEXT:    call void @gj_profile_exit(ptr @driver.gj_profile, ptr %gj.counters, i64 %[[FD]])
; CHECK-NEXT:    ret i32 %rc
; CHECK:       after0:
; CHECK-NEXT:    %[[D1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 0
; CHECK:         sub i64 %[[D1]], %[[D0]]
; CHECK:         %rc1 = call i32 @thunk(ptr %frame), !graphjit.apply !1
; CHECK-NEXT:    %[[E1:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    getelementptr inbounds { i64, i64 }, ptr %gj.counters, i64 1
; CHECK:         sub i64 %[[E1]], %[[D1]]
; CHECK:         br i1 %1, label %failed, label %done
; CHECK:       done:
; CHECK-NEXT:    call void @between(ptr %frame)
; CHECK-NEXT:    %[[R:gj.t[0-9]*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    %[[RD:.*]] = sub i64 %[[R]], %[[D0]]
; CHECK-NEXT:    call void @gj_profile_exit(ptr @driver.gj_profile, ptr %gj.counters, i64 %[[RD]])
; CHECK-NEXT:    ret i32 0
entry:
  %rc0 = call i32 @thunk(ptr %frame), !graphjit.apply !0
  %0 = icmp ne i32 %rc0, 0
  br i1 %0, label %failed, label %after0
failed:
  %rc = phi i32 [ %rc0, %entry ], [ %rc1, %after0 ]
  ret i32 %rc
after0:
  %rc1 = call i32 @thunk(ptr %frame), !graphjit.apply !1
  %1 = icmp ne i32 %rc1, 0
  br i1 %1, label %failed, label %done
done:
  call void @between(ptr %frame)
  ret i32 0
}

; No chain where two paths from one Apply lead to Applies, nor into a block
; with other predecessors: the Apply's read follows its call.
define void @branches(ptr %frame, i1 %c) {
; CHECK-LABEL: define void @branches(
; CHECK:         call void @a(ptr %frame), !graphjit.apply !0
; CHECK-NEXT:    call i64 @llvm.readcyclecounter()
; CHECK-NOT:   gj.exit
; CHECK:       left:
; CHECK:         call void @a(ptr %frame), !graphjit.apply !1
; CHECK-NEXT:    call i64 @llvm.readcyclecounter()
; CHECK:       right:
; CHECK:         call void @a(ptr %frame), !graphjit.apply !2
; CHECK-NEXT:    call i64 @llvm.readcyclecounter()
; CHECK:       join:
; CHECK-NEXT:    call i64 @llvm.readcyclecounter()
; CHECK-NEXT:    call void @a(ptr %frame), !graphjit.apply !3
; CHECK-NEXT:    call i64 @llvm.readcyclecounter()
entry:
  call void @a(ptr %frame), !graphjit.apply !0
  br i1 %c, label %left, label %right
left:
  call void @a(ptr %frame), !graphjit.apply !1
  br label %join
right:
  call void @a(ptr %frame), !graphjit.apply !2
  br label %join
join:
  call void @a(ptr %frame), !graphjit.apply !3
  ret void
}

!0 = !{i32 0, !"A", !"", !"C"}
!1 = !{i32 1, !"B", !"", !"C"}
!2 = !{i32 2, !"C", !"", !"C"}
!3 = !{i32 3, !"D", !"", !"C"}
