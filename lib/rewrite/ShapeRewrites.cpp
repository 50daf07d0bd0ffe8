//===- ShapeRewrites.cpp - Shapes known before the call ------------------===//
//
// Shape_i (`shape(x, axis=0)`) reads one dim. Where the static type knows
// that dim, it becomes a constant; where the dim is a symbol that an input
// binds, it reads that input instead (Theano's ShapeFeature does both), so
// that the value it measured may be dropped and equal reads merge.
// A symbolic dim of any variable has the size the symbol is bound to in the
// call: every op infers symbols only from its inputs' and its attributes'.
//
//===----------------------------------------------------------------------===//

#include "NodeRewrite.h"
#include "ops/shape/ShapeOps.h"
#include "ops/StructuralParams.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using namespace graphjit::rewrite;

using Reps = std::vector<Replacement>;

namespace {

const std::vector<std::string> ShapeTags = {"shape", "canonicalize",
                                            "fast_run"};

/// The dim N (a Shape_i) reads, if it is one.
std::optional<unsigned> shapeAxis(const RNode &N) {
  if (!llvm::isa<ShapeIOp>(N.op()) || N.Inputs.size() != 1)
    return std::nullopt;
  return shapeIAxis(N.op(), N.Inputs[0]->Type.rank());
}

/// Shape_i of a known dim -> an i64 constant.
class ShapeIConstant final : public NodeRewrite {
public:
  ShapeIConstant() : NodeRewrite("shape_i_constant", ShapeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    std::optional<unsigned> Axis = shapeAxis(N);
    if (!Axis)
      return Reps{};
    const Dim &D = N.Inputs[0]->Type.Dims[*Axis];
    if (!D.isKnown() || N.Outputs[0]->Type != TensorType::scalar(DType::I64))
      return Reps{};
    NDArray Size = NDArray::zeros(DType::I64, {});
    *Size.dataAs<int64_t>() = D.Size;
    return Reps{{N.Outputs[0], G.makeConstant(std::move(Size), N.Loc)}};
  }
};

/// Shape_i of a symbolic dim -> Shape_i of the first input having it.
class ShapeIOfInput final : public NodeRewrite {
public:
  ShapeIOfInput() : NodeRewrite("shape_i_of_input", ShapeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    std::optional<unsigned> Axis = shapeAxis(N);
    if (!Axis)
      return Reps{};
    const Dim &D = N.Inputs[0]->Type.Dims[*Axis];
    if (!D.isSymbolic())
      return Reps{};
    auto It = G.boundDims().find(D.Symbol);
    if (It == G.boundDims().end())
      return Reps{}; // a size given to the call, not an input's
    auto [In, InAxis] = It->second;
    if (In == N.Inputs[0] && InAxis == *Axis)
      return Reps{};
    llvm::Expected<RNode *> New = G.makeNode(
        "shape", {In}, {{"axis", AttrValue::integer(int64_t(InAxis))}});
    if (!New)
      return New.takeError();
    if ((*New)->Outputs[0]->Type != N.Outputs[0]->Type)
      return Reps{};
    return Reps{{N.Outputs[0], (*New)->Outputs[0]}};
  }
};

} // namespace

std::vector<std::unique_ptr<NodeRewrite>> rewrite::makeShapeRewrites() {
  std::vector<std::unique_ptr<NodeRewrite>> R;
  R.push_back(std::make_unique<ShapeIConstant>());
  R.push_back(std::make_unique<ShapeIOfInput>());
  return R;
}
