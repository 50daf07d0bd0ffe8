//===- graphjit/Op.h - What an Apply node computes -------------*- C++ -*-===//
//
// An Op is the computation of an Apply node with its parameters (Theano's Op):
// it knows its names, checks and infers types statically, estimates flops
// and bytes, declares which outputs are views of or in place on which inputs,
// and has a reference `perform` on strided NDArrays (the "py" linker's path).
//
// Ops are immutable and shared; two ops are equal when their profile names
// are equal, since the name spells every parameter (`Sum{axis=[0]}`).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OP_H
#define GRAPHJIT_OP_H

#include "graphjit/Attr.h"
#include "graphjit/NDArray.h"
#include "graphjit/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {

/// Sizes of the symbolic dims, bound when a function is called.
using DimBindings = llvm::StringMap<int64_t>;

class Apply;
struct ExecContext;

/// Runs the Applies placed on a device. The device layer implements it
/// (lib/gpu/GpuProgram.h); the GPU ops (lib/ops/gpu/GpuOps.h) run through it,
/// so that ops never depend on the device layer.
class DeviceRunner {
public:
  virtual ~DeviceRunner();
  virtual llvm::Error run(const Apply &N, llvm::ArrayRef<NDArray> In,
                          std::vector<NDArray> &Out,
                          const ExecContext &Ctx) = 0;
};

/// What perform() may need besides its inputs.
struct ExecContext {
  const DimBindings *Dims = nullptr;
  /// The Apply being run (set by the linkers' NodeRunner).
  const Apply *Node = nullptr;
  /// A function with GPU Applies: its kernels, device and timers
  /// (lib/gpu/GpuProgram.h); null otherwise.
  DeviceRunner *Gpu = nullptr;
};

/// How an output relates to the inputs' memory (Theano's view_map and
/// destroy_map).
struct OutputAlias {
  enum Kind { Created, View, Inplace } K = Created;
  int Input = -1; ///< The input viewed or overwritten.
  static OutputAlias created() { return {}; }
  static OutputAlias viewOf(int I) { return {View, I}; }
  static OutputAlias inplaceOn(int I) { return {Inplace, I}; }
};

/// What class an Op is, for LLVM's isa<>, cast<> and dyn_cast<>
/// (llvm/Support/Casting.h): each op class has a classof() that reads it.
/// Rewrites, lowerings and the GPU path dispatch on kinds, never on
/// className(), which only names. Ops from outside the library (the Python
/// package's, a program's own) are Foreign: no rewrite or lowering takes
/// them for one of graphjit's, whatever they are called.
enum class OpKind : uint8_t {
  Foreign,
  Elemwise,
  DimShuffle,
  Reshape,
  ShapeI,
  Subtensor,
  Join,
  Alloc,
  FillLike,
  Reduce,
  ArgReduce,
  MaxAndArgmax,
  Softmax,
  Dot,
  Gemm,
  Take,
  IncRows,
  Cumulative,
  Lapack,
  Spectral,
  Check,
  ArrayFn,
  ScalarLoop,
  Scan,
  Gpu,
  Transfer,
};
inline constexpr unsigned NumOpKinds = unsigned(OpKind::Transfer) + 1;

class Op {
public:
  /// FormatName and Attrs are how the op is written in a .graph file; the
  /// printer writes them back. Kind is the op class's (Foreign outside
  /// graphjit).
  Op(std::string FormatName, AttrMap Attrs, OpKind Kind = OpKind::Foreign)
      : FormatName(std::move(FormatName)), Attrs(std::move(Attrs)),
        Kind(Kind) {}
  virtual ~Op();

  OpKind kind() const { return Kind; }

  /// The name a profile shows, spelling every parameter:
  /// "Elemwise{add,no_inplace}", "DimShuffle{1,0}", "Sum{axis=[0]}".
  virtual std::string name() const = 0;
  /// The Class table's name: "Elemwise", "DimShuffle", "CAReduce".
  virtual llvm::StringRef className() const = 0;

  /// The graph format's op name ("add") and attributes.
  llvm::StringRef formatName() const { return FormatName; }
  const AttrMap &attrs() const { return Attrs; }

  /// Checks the inputs' types and returns the outputs' types. Errors say
  /// what is wrong in words (the caller adds where).
  virtual llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> Inputs) const = 0;

  /// Computes the outputs from the inputs. Outputs arrive empty (isNull) and
  /// are created here, or are views or in place as outputAlias() declares.
  /// Shape errors found at run time are returned, not asserted.
  virtual llvm::Error perform(llvm::ArrayRef<NDArray> Inputs,
                              std::vector<NDArray> &Outputs,
                              const ExecContext &Ctx) const = 0;

  /// For ops the JIT lowers: checks the input shapes and makes the outputs
  /// (created, or views of the inputs as outputAlias() declares) without
  /// computing their values; the JIT code computes them. Its errors are
  /// perform()'s. The default says the op has no lowering.
  virtual llvm::Error prepare(llvm::ArrayRef<NDArray> Inputs,
                              std::vector<NDArray> &Outputs,
                              const ExecContext &Ctx) const;

  /// For ops whose JIT code calls library code (dot: BLAS): computes the
  /// values of outputs made by prepare().
  virtual llvm::Error compute(llvm::ArrayRef<NDArray> Inputs,
                              llvm::ArrayRef<NDArray> Outputs,
                              const ExecContext &Ctx) const;

  virtual unsigned numOutputs() const { return 1; }
  /// How many leading inputs are conditions, not values: number literals
  /// among the values take the values' dtype only (switch's condition,
  /// as np.where's).
  virtual unsigned numConditionInputs() const { return 0; }

  virtual OutputAlias outputAlias(unsigned Output) const {
    (void)Output;
    return OutputAlias::created();
  }

  /// Floating-point operations of one call for these shapes (Mflops column).
  virtual double flops(llvm::ArrayRef<Shape> Inputs,
                       llvm::ArrayRef<Shape> Outputs) const;
  /// Bytes read and written by one call (GB/s). The default counts every
  /// input and created output once.
  virtual double bytesMoved(llvm::ArrayRef<NDArray> Inputs,
                            llvm::ArrayRef<NDArray> Outputs) const;

  bool equals(const Op &O) const { return name() == O.name(); }
  /// Consistent with equals(), for merging equal ops in hash tables.
  size_t hash() const { return std::hash<std::string>()(name()); }

private:
  std::string FormatName;
  AttrMap Attrs;
  OpKind Kind;
};

using OpRef = std::shared_ptr<const Op>;

/// The element count of a shape (no overflow check: shapes of live arrays).
int64_t numElementsOf(const Shape &S);

} // namespace graphjit

#endif
