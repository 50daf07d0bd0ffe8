; A module that follows the instrumentation contract, as another tool might
; write it: @gj_driver(frame) calls three marked thunks; frame is i64 slots:
; [0] how many times thunk 0 ran, [1] non-zero makes thunk 1 fail.
define internal i32 @thunk0(ptr %frame) {
  %v = load i64, ptr %frame
  %v1 = add i64 %v, 1
  store i64 %v1, ptr %frame
  ret i32 0
}

define internal i32 @thunk1(ptr %frame) {
  %p = getelementptr i64, ptr %frame, i64 1
  %f = load i64, ptr %p
  %c = icmp ne i64 %f, 0
  %r = select i1 %c, i32 3, i32 0
  ret i32 %r
}

define internal i32 @thunk2(ptr %frame) {
  ret i32 0
}

define i32 @gj_driver(ptr %frame) {
entry:
  %rc0 = call i32 @thunk0(ptr %frame), !graphjit.apply !0
  %c0 = icmp ne i32 %rc0, 0
  br i1 %c0, label %failed, label %after0
failed:
  %rc = phi i32 [ %rc0, %entry ], [ %rc1, %after0 ], [ %rc2, %after1 ]
  ret i32 %rc
after0:
  %rc1 = call i32 @thunk1(ptr %frame), !graphjit.apply !1
  %c1 = icmp ne i32 %rc1, 0
  br i1 %c1, label %failed, label %after1
after1:
  %rc2 = call i32 @thunk2(ptr %frame), !graphjit.apply !2
  %c2 = icmp ne i32 %rc2, 0
  br i1 %c2, label %failed, label %after2
after2:
  ret i32 0
}

!0 = !{i32 0, !"First(x)", !"other.graph:1", !"C"}
!1 = !{i32 1, !"MayFail(x)", !"other.graph:2", !"C"}
!2 = !{i32 2, !"Last(x)", !"other.graph:3", !"Py"}
