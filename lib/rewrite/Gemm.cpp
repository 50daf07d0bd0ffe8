//===- Gemm.cpp - Products and their sums into one BLAS call -------------===//
//
// Theano's gemm rewrites. BLAS's gemm and gemv compute
// beta * C + alpha * op(A) op(B) in one pass, where op is the identity or a
// transpose read through a flag; a dot followed by a scaling and an add or
// a sub (a bias, an SGD step W - lr * dot(x.T, g)) is that form, computed
// in two or three passes over memory. The rewrites:
//
//   dot_to_gemm     k * dot(A, B) + m * C    -> gemm(C, A, B, alpha=k, beta=m)
//                   k * gemm(C, A, B, a, b) + m * C
//                                            -> gemm(C, A, B, k*a, m + k*b)
//                   (the terms of an add or a sub; k, m constant scalars
//                   written as mul(s, x), x * s, or the sub's -1)
//   gemm_transpose  gemm(C, transpose(X), B) -> gemm(C, X, B, trans_a=true)
//   dot_transpose   dot(transpose(X), B)     -> gemm(0, X, B, beta=0,
//                                                    trans_a=true)
//
// They change the rounding (BLAS accumulates differently and may fuse
// multiply-adds), so they only touch float products whose operands all have
// the output's dtype, and only a product nothing else reads. The gemm op
// itself refuses a C that would broadcast the result larger than the
// product; such sums are left as they are.
//
//===----------------------------------------------------------------------===//

#include "Match.h"
#include "NodeRewrite.h"
#include "ops/linalg/LinalgOps.h"
#include "llvm/Support/Casting.h"
#include <charconv>
#include <cstdlib>

using namespace graphjit;
using namespace graphjit::rewrite;

using Reps = std::vector<Replacement>;

namespace {

const std::vector<std::string> GemmTags = {"gemm", "fast_run"};

/// beta * C + alpha * op(A) op(B); C is null when beta is 0 and C unread.
struct GemmForm {
  RValue *C = nullptr;
  RValue *A = nullptr, *B = nullptr;
  double Alpha = 1, Beta = 0;
  bool TransA = false, TransB = false;
};

double numberAttr(const AttrMap &Attrs, const char *Name, double Default) {
  auto It = Attrs.find(Name);
  if (It == Attrs.end())
    return Default;
  const AttrValue &V = It->second;
  return V.K == AttrValue::Float ? V.F : V.K == AttrValue::Int ? double(V.I)
                                                                : Default;
}

bool boolAttr(const AttrMap &Attrs, const char *Name) {
  auto It = Attrs.find(Name);
  return It != Attrs.end() && It->second.K == AttrValue::Bool &&
         It->second.B;
}

bool isGemm(const RNode &N) {
  return N.op().formatName() == "gemm" && N.Inputs.size() == 3;
}

/// The product V is, as a GemmForm: a dot or a gemm of float operands of
/// V's dtype.
std::optional<GemmForm> productOf(const RValue &V) {
  RNode *P = liveOwner(V);
  if (!P || !isFloatValue(V))
    return std::nullopt;
  for (RValue *In : P->Inputs)
    if (In->Type.Dtype != V.Type.Dtype)
      return std::nullopt;
  if (llvm::isa<DotOp>(P->op()) && P->Inputs.size() == 2) {
    GemmForm F;
    F.A = P->Inputs[0];
    F.B = P->Inputs[1];
    return F;
  }
  if (!isGemm(*P))
    return std::nullopt;
  const AttrMap &Attrs = P->op().attrs();
  GemmForm F;
  F.C = P->Inputs[0];
  F.A = P->Inputs[1];
  F.B = P->Inputs[2];
  F.Alpha = numberAttr(Attrs, "alpha", 1);
  F.Beta = numberAttr(Attrs, "beta", 1);
  F.TransA = boolAttr(Attrs, "trans_a");
  F.TransB = boolAttr(Attrs, "trans_b");
  if (F.Beta == 0)
    F.C = nullptr;
  return F;
}

/// A term of a sum: Coef * Value.
struct Term {
  double Coef = 1;
  RValue *Value = nullptr;
  /// Value was read through a mul that only this sum reads.
  bool ScaledOnce = true;
};

/// V as k * x when V is mul(s, x) or mul(x, s) with s a constant scalar
/// that changes neither x's type nor the product's.
Term termOf(RValue *V, double Sign) {
  RNode *M = producedBy(*V, ScalarOpKind::Mul);
  if (M && M->Inputs.size() == 2)
    for (unsigned K = 0; K < 2; ++K) {
      std::optional<double> S = constantScalar(*M->Inputs[K]);
      RValue *X = M->Inputs[1 - K];
      if (S && X->Type == V->Type)
        return {Sign * *S, X, V->Uses == 1};
    }
  return {Sign, V, true};
}

/// V as the shortest decimal that T reads back as the same value: an f32
/// product computes with float(alpha), so 0.1f (0.10000000149011612 as a
/// double) is spelled 0.1 in the op's name and the printed graph.
double coefficient(double V, DType T) {
  if (T != DType::F32)
    return V;
  char Buf[32];
  auto R = std::to_chars(Buf, Buf + sizeof(Buf), float(V));
  *R.ptr = '\0';
  return std::strtod(Buf, nullptr);
}

AttrMap gemmAttrs(const GemmForm &F, DType T) {
  return {{"alpha", AttrValue::floating(coefficient(F.Alpha, T))},
          {"beta", AttrValue::floating(coefficient(F.Beta, T))},
          {"trans_a", AttrValue::boolean(F.TransA)},
          {"trans_b", AttrValue::boolean(F.TransB)}};
}

/// Whether C, broadcast, can never make a result larger than the product:
/// each of its dims (aligned right) is a known 1 or the product's own dim.
/// A symbolic dim of C against another symbol or a known 1 of the product
/// could (`f64[m, p]` plus a product `f64[m, 1]` with p = 3): the sum
/// broadcasts, gemm would refuse it at run time.
bool fitsProduct(const TensorType &C, const TensorType &Product) {
  if (C.rank() > Product.rank())
    return false;
  unsigned Off = Product.rank() - C.rank();
  for (unsigned I = 0; I < C.rank(); ++I) {
    const Dim &D = C.Dims[I], &P = Product.Dims[Off + I];
    bool One = D.isKnown() && D.Size == 1;
    if (!One && !(D == P && (D.isKnown() || D.isSymbolic())))
      return false;
  }
  return true;
}

/// A gemm Apply for F standing for N's output, if the op takes it and it
/// has N's output type; none otherwise.
llvm::Expected<Reps> replaceByGemm(RewriteGraph &G, RNode &N,
                                   const GemmForm &F) {
  RValue *C = F.C;
  if (!C) {
    // beta = 0: BLAS does not read C; a 0-d zero of the dtype stands in.
    NDArray Zero = NDArray::zeros(N.Outputs[0]->Type.Dtype, {});
    C = G.makeConstant(std::move(Zero), N.Loc);
  }
  llvm::Expected<RNode *> New = G.makeNode("gemm", {C, F.A, F.B},
                                          gemmAttrs(F, N.Outputs[0]->Type.Dtype));
  if (!New) {
    // Shapes gemm refuses (a C broadcasting the result larger): not a gemm.
    llvm::consumeError(New.takeError());
    return Reps{};
  }
  if ((*New)->Outputs[0]->Type != N.Outputs[0]->Type)
    return Reps{};
  return Reps{{N.Outputs[0], (*New)->Outputs[0]}};
}

/// k * product + m * C for the add or sub N.
class DotToGemm final : public NodeRewrite {
public:
  DotToGemm() : NodeRewrite("dot_to_gemm", GemmTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    bool IsSub = elemwiseOf(N, ScalarOpKind::Sub);
    if ((!IsSub && !elemwiseOf(N, ScalarOpKind::Add)) ||
        N.Inputs.size() != 2 || !isFloatValue(*N.Outputs[0]))
      return Reps{};
    Term Terms[2] = {termOf(N.Inputs[0], 1), termOf(N.Inputs[1], IsSub ? -1 : 1)};
    for (unsigned P = 0; P < 2; ++P) {
      const Term &Prod = Terms[P], &Other = Terms[1 - P];
      std::optional<GemmForm> F = productOf(*Prod.Value);
      // The product must die here, or it would be computed twice.
      if (!F || Prod.Value->Uses != 1 || !Prod.ScaledOnce ||
          Other.Value->Type.Dtype != N.Outputs[0]->Type.Dtype)
        continue;
      GemmForm New = *F;
      New.Alpha = Prod.Coef * F->Alpha;
      if (!F->C) {
        New.C = Other.Value;
        New.Beta = Other.Coef;
      } else if (F->C == Other.Value) {
        New.Beta = Other.Coef + Prod.Coef * F->Beta;
      } else {
        continue;
      }
      // A zero coefficient would make gemm skip an operand whose infinities
      // and NaNs the sum propagates (0 * inf); and C must not broadcast the
      // result larger than the product.
      if (New.Alpha == 0 || New.Beta == 0 ||
          !fitsProduct(New.C->Type, Prod.Value->Type))
        continue;
      llvm::Expected<Reps> R = replaceByGemm(G, N, New);
      if (!R || !R->empty())
        return R;
    }
    return Reps{};
  }
};

/// gemm(C, transpose(X), B) -> gemm(C, X, B, trans_a = !trans_a), and the
/// same for B.
class GemmTranspose final : public NodeRewrite {
public:
  GemmTranspose() : NodeRewrite("gemm_transpose", GemmTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    if (!isGemm(N))
      return Reps{};
    std::optional<GemmForm> F = productOf(*N.Outputs[0]);
    if (!F)
      return Reps{};
    F->C = N.Inputs[0]; // kept as written even when beta is 0
    return absorbTransposes(G, N, *F);
  }

  /// F with its transposed operands read through the flags; none if it
  /// has none.
  static llvm::Expected<Reps> absorbTransposes(RewriteGraph &G, RNode &N,
                                               GemmForm F) {
    bool Changed = false;
    if (RValue *X = transposed(*F.A)) {
      F.A = X;
      F.TransA = !F.TransA;
      Changed = true;
    }
    if (RValue *X = transposed(*F.B)) {
      F.B = X;
      F.TransB = !F.TransB;
      Changed = true;
    }
    if (!Changed)
      return Reps{};
    return replaceByGemm(G, N, F);
  }
};

/// dot(transpose(X), B) -> gemm(0, X, B, alpha=1, beta=0, trans_a=true).
class DotTranspose final : public NodeRewrite {
public:
  DotTranspose() : NodeRewrite("dot_transpose", GemmTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    if (!llvm::isa<DotOp>(N.op()))
      return Reps{};
    std::optional<GemmForm> F = productOf(*N.Outputs[0]);
    if (!F)
      return Reps{};
    return GemmTranspose::absorbTransposes(G, N, *F);
  }
};

} // namespace

std::vector<std::unique_ptr<NodeRewrite>> rewrite::makeGemmRewrites() {
  std::vector<std::unique_ptr<NodeRewrite>> R;
  R.push_back(std::make_unique<DotToGemm>());
  R.push_back(std::make_unique<GemmTranspose>());
  R.push_back(std::make_unique<DotTranspose>());
  return R;
}
