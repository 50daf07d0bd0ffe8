; A module that follows the instrumentation contract and calls the C
; allocator itself: Apply 0 keeps a 1000-byte block in frame[0], Apply 1
; uses a 500-byte scratch block and frees it, Apply 2 frees Apply 0's
; block. Each call's peak is 1500 bytes.
declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare void @free(ptr)

define internal i32 @keep(ptr %frame) {
  %p = call ptr @malloc(i64 1000)
  store ptr %p, ptr %frame
  ret i32 0
}

define internal i32 @scratch(ptr %frame) {
  %p = call ptr @calloc(i64 5, i64 100)
  call void @free(ptr %p)
  ret i32 0
}

define internal i32 @release(ptr %frame) {
  %p = load ptr, ptr %frame
  call void @free(ptr %p)
  ret i32 0
}

define i32 @gj_driver(ptr %frame) {
  call i32 @keep(ptr %frame), !graphjit.apply !0
  call i32 @scratch(ptr %frame), !graphjit.apply !1
  call i32 @release(ptr %frame), !graphjit.apply !2
  ret i32 0
}

!0 = !{i32 0, !"Keep(x)", !"mem.graph:1", !"C"}
!1 = !{i32 1, !"Scratch(x)", !"mem.graph:2", !"C"}
!2 = !{i32 2, !"Release(x)", !"mem.graph:3", !"C"}
