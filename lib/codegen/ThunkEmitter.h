//===- ThunkEmitter.h - Writing one Apply's thunk in LLVM IR ---*- C++ -*-===//
//
// What an op family's lowering gets to emit the body of its Apply's thunk: an
// IRBuilder positioned inside `i32 gj_thunk_<id>(ptr %frame)` after the runtime
// has prepared the outputs (gj_prepare), access to every variable's data
// pointer, dims and byte strides through the frame's slots, the scalar kernels
// (lib/ops/elemwise/ScalarKernels.h compiled to bitcode), and loop nests. A
// lowering returns an llvm::Error only for a bug or an unsupported case found
// while compiling; run-time errors are gj_prepare's.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LOWER_THUNKEMITTER_H
#define GRAPHJIT_LOWER_THUNKEMITTER_H

#include "graphjit/Graph.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace graphjit {

class KernelLibrary;

class ThunkEmitter {
public:
  ThunkEmitter(llvm::IRBuilder<> &B, llvm::Module &M, llvm::Value *Frame,
               const Apply &Node, KernelLibrary &Kernels);
  /// An emitter for a helper function of the same Apply (a loop kernel
  /// shared by several thunks, say): B writes into that function, which
  /// has no frame, so the slot accessors must not be used.
  ThunkEmitter forHelper(llvm::IRBuilder<> &HelperB) const {
    return ThunkEmitter(HelperB, M, Node, Kernels);
  }
  /// The same for a helper that gets variables' slots as pointers: the
  /// slot accessors of a variable in SlotOf read through its pointer.
  ThunkEmitter
  forHelper(llvm::IRBuilder<> &HelperB,
            llvm::DenseMap<const Variable *, llvm::Value *> SlotOf) const {
    ThunkEmitter H(HelperB, M, Node, Kernels);
    H.SlotOf = std::move(SlotOf);
    return H;
  }
  /// An emitter for a function outside any thunk (a GPU kernel, which
  /// gets its arrays as arguments): no frame, so the slot accessors must
  /// not be used. Node names the Apply the function computes for.
  static ThunkEmitter forKernel(llvm::IRBuilder<> &B, llvm::Module &M,
                                const Apply &Node, KernelLibrary &Kernels) {
    return ThunkEmitter(B, M, Node, Kernels);
  }
  /// The thunk's gj_frame pointer (null in helpers).
  llvm::Value *frame() const { return Frame; }
  /// An emitter for a thunk shared by several Applies of the same code
  /// (a planned thunk, ModuleLowering.cpp): it has the frame, and gets the
  /// Apply's slots as pointers in SlotOf; Node is the Apply it is made for.
  static ThunkEmitter
  forSharedThunk(llvm::IRBuilder<> &B, llvm::Module &M, llvm::Value *Frame,
                 llvm::Value *NodeId, const Apply &Node,
                 KernelLibrary &Kernels,
                 llvm::DenseMap<const Variable *, llvm::Value *> SlotOf) {
    ThunkEmitter E(B, M, Node, Kernels);
    E.Frame = Frame;
    E.NodeId = NodeId;
    E.SlotOf = std::move(SlotOf);
    return E;
  }
  /// The id of the Apply the code runs for (an argument of a shared
  /// thunk, else Node's).
  llvm::Value *nodeId() { return NodeId ? NodeId : B.getInt32(Node.id()); }
  /// Writes V's slot: its data pointer, dims and byte strides.
  void setSlot(const Variable *V, llvm::Value *Data,
               llvm::ArrayRef<llvm::Value *> Dims,
               llvm::ArrayRef<llvm::Value *> Strides);
  /// The address of V's gj_slot (to hand to a helper).
  llvm::Value *slotPointer(const Variable *V);

  /// Continues where Ok holds; elsewhere the thunk reports the Apply's
  /// error through gj_fail (planned thunks only: FailBlock is set).
  void failUnless(llvm::Value *Ok, const llvm::Twine &Name = "ok");
  llvm::BasicBlock *FailBlock = nullptr;
  /// `Entry(frame, node)`: a runtime entry on this Apply (gj_prepare,
  /// gj_compute); its return code.
  llvm::Value *callNodeEntry(llvm::StringRef Entry);
  /// `if (Rc) return Rc;`, continuing where Rc is 0.
  void returnIfFailed(llvm::Value *Rc);
  /// C-order strides over Dims of ElementSize-byte elements, as NumPy's: a
  /// dim of 0 or 1 steps as 1; a product that overflows (only with a dim
  /// of 0) saturates.
  llvm::SmallVector<llvm::Value *, 8>
  contiguousStrides(llvm::ArrayRef<llvm::Value *> Dims, int64_t ElementSize);
  /// The thunk planned its outputs: each has memory of its own (an
  /// in-place op's output is not its input).
  bool Planned = false;

  llvm::IRBuilder<> &B;
  llvm::Module &M;
  const Apply &Node;

  llvm::LLVMContext &ctx() { return M.getContext(); }
  llvm::Type *i64() { return B.getInt64Ty(); }
  llvm::Value *constI64(int64_t V) { return B.getInt64(V); }

  /// Variable V's slot fields during the call.
  llvm::Value *data(const Variable *V);
  llvm::Value *dim(const Variable *V, unsigned D);
  llvm::Value *stride(const Variable *V, unsigned D);
  /// The number of elements of V (product of its dims).
  llvm::Value *numElements(const Variable *V);
  /// The size the call binds to symbolic dim Symbol, which must be one of
  /// InputSymbols (read from gj_frame::dims; planned thunks only).
  llvm::Value *symbolSize(llvm::StringRef Symbol);
  /// The function's FunctionGraph::inputSymbols(), in gj_frame::dims order.
  llvm::ArrayRef<std::string> InputSymbols;

  /// The type a value of dtype T has in registers: i1 for bool, iN, float,
  /// double. In memory a bool is an i8 (0 or 1).
  llvm::Type *valueType(DType T);
  llvm::Type *memoryType(DType T);
  /// Loads/stores an element of dtype T at byte address Ptr.
  llvm::Value *loadElement(DType T, llvm::Value *Ptr);
  void storeElement(DType T, llvm::Value *V, llvm::Value *Ptr);
  /// Ptr + Index * Stride (bytes).
  llvm::Value *offset(llvm::Value *Ptr, llvm::Value *Index,
                      llvm::Value *Stride);

  /// Calls scalar kernel Name (e.g. "gj_scalar_add_f64") from the kernel
  /// library on register values; bool arguments and results are i1.
  llvm::Value *callKernel(llvm::StringRef Name,
                          llvm::ArrayRef<llvm::Value *> Args);
  /// Converts a register value from dtype From to To (NumPy's astype).
  llvm::Value *convert(llvm::Value *V, DType From, DType To);

  /// Emits `for (I = 0; I < Count; ++I) Body(I)`, leaving the builder after
  /// the loop.
  void emitLoop(llvm::Value *Count, llvm::StringRef Name,
                llvm::function_ref<void(llvm::Value *I)> Body);
  /// Nested loops over Extents (outermost first); Body gets the indices.
  void emitLoopNest(llvm::ArrayRef<llvm::Value *> Extents,
                    llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)>
                        Body);

private:
  ThunkEmitter(llvm::IRBuilder<> &B, llvm::Module &M, const Apply &Node,
               KernelLibrary &Kernels)
      : B(B), M(M), Node(Node), Frame(nullptr), Kernels(Kernels) {}
  llvm::Value *Frame;
  llvm::Value *NodeId = nullptr;
  KernelLibrary &Kernels;
  llvm::Value *Slots = nullptr; ///< gj_slot*, loaded once per thunk.
  llvm::DenseMap<const Variable *, llvm::Value *> SlotOf; ///< Helpers'.
  llvm::Value *slotField(const Variable *V, unsigned Field, unsigned Index);
};

/// Tags I as an access to the runtime's descriptors (gj_slot, gj_storage)
/// or to array elements: TBAA tells LLVM the two never alias.
llvm::Instruction *tagDescriptorAccess(llvm::Instruction *I);
llvm::Instruction *tagElementAccess(llvm::Instruction *I);
/// A descriptor access to a slot, in the alias scope of the slots, and a
/// runtime call that never touches a slot (gj_storage_grow): slots loaded
/// before the call stay valid after it.
llvm::Instruction *tagSlotAccess(llvm::Instruction *I);
llvm::CallInst *markNoSlotAccess(llvm::CallInst *Call);

/// Loads a pointer that stays the same for the frame's life (gj_frame's
/// slots and storages), marked !invariant.load.
llvm::Value *loadInvariant(llvm::IRBuilder<> &B, llvm::Value *Ptr,
                           const llvm::Twine &Name);

/// Each output's dims, as EmitOutputDims computes them.
using OutputDims = llvm::SmallVector<llvm::SmallVector<llvm::Value *, 4>, 1>;

/// How an op kind is lowered. NeedsPrepare: the thunk first calls
/// gj_prepare. Emit writes the body; it may be null when gj_prepare does
/// all the work (views). Supports says whether this Apply can be lowered
/// (e.g. its ranks fit the slots); null means always.
///
/// EmitOutputDims, where set, lets the thunk plan its outputs instead of
/// calling gj_prepare (StoragePlan.h): it computes every output's dims from
/// the inputs' slots, and checks them with E.failUnless() wherever the
/// op's prepare() would refuse them, so that gj_fail words the error.
/// PlansOutputs says whether it can for this Apply (null: always), given
/// the symbolic dims whose sizes the thunk can read (symbolSize()).
struct Lowering {
  bool NeedsPrepare = true;
  llvm::Error (*Emit)(ThunkEmitter &E) = nullptr;
  bool (*Supports)(const Apply &N) = nullptr;
  void (*EmitOutputDims)(ThunkEmitter &E, OutputDims &Dims) = nullptr;
  bool (*PlansOutputs)(const Apply &N,
                       llvm::ArrayRef<std::string> InputSymbols) = nullptr;
  /// For views (OutputAlias::View): instead of EmitOutputDims, writes the
  /// outputs' slots (data into the viewed input, dims, strides) after the
  /// same checks as prepare's; a planned view has no storage.
  void (*EmitViewOutputs)(ThunkEmitter &E) = nullptr;
  /// Planned Applies with equal keys share one thunk: the key names all
  /// that its code depends on besides the slots' contents (null, or an
  /// empty key: the Apply's thunk is its own).
  std::string (*ThunkKey)(const Apply &N) = nullptr;
  /// Set when Emit's code depends on nothing but E.nodeId() (a call into
  /// the runtime): unplanned Applies of this lowering share one thunk of
  /// this name, called with the Apply's id.
  const char *SharedThunk = nullptr;
};

/// The lowering of N's op, or null if it runs through perform.
const Lowering *findLowering(const Apply &N);
/// Whether N's thunk can plan its outputs (its lowering has
/// EmitOutputDims and accepts N, in a function whose inputs bind
/// InputSymbols).
bool canPlanOutputs(const Apply &N, llvm::ArrayRef<std::string> InputSymbols);

/// The host lowering of ops of Kind; each family's registration is in its
/// *Lowering.cpp file here.
void registerLowering(OpKind Kind, Lowering L);
void registerElemwiseLowerings();
void registerStructuralLowerings();

} // namespace graphjit

#endif
