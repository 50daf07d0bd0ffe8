//===- StructuralOpsTestUtil.h - Helpers of the structural op tests -*- C++ -*-//
//
// Shared by the Shape, Indexing, Reduction, Linalg and NN op tests: making
// ops through the registry, inferring types to strings, building arrays from
// value lists, running perform() and reading results back.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TEST_STRUCTURALOPSTESTUTIL_H
#define GRAPHJIT_TEST_STRUCTURALOPSTESTUTIL_H

#include "graphjit/OpRegistry.h"
#include "gtest/gtest.h"
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace graphjit::testutil {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double Inf = std::numeric_limits<double>::infinity();

inline Dim K(int64_t N) { return Dim::known(N); }
inline Dim S(const char *Name) { return Dim::symbolic(Name); }
inline TensorType ty(DType T, std::vector<Dim> Dims = {}) {
  return TensorType(T, std::move(Dims));
}

inline AttrValue ints(std::vector<int64_t> V) { return AttrValue::intList(V); }
inline AttrValue num(int64_t V) { return AttrValue::integer(V); }
inline AttrValue id(const char *S) { return AttrValue::ident(S); }
inline AttrValue flag(bool B) { return AttrValue::boolean(B); }

inline OpRef makeOp(llvm::StringRef Name, AttrMap Attrs = {},
                    unsigned NumInputs = 1) {
  return llvm::cantFail(OpRegistry::get().make(Name, Attrs, NumInputs));
}

/// The error text of making the op, "" if it was made; "attr:KEY: " is
/// prefixed when it is an AttrError naming KEY.
inline std::string makeError(llvm::StringRef Name, AttrMap Attrs,
                             unsigned NumInputs = 1) {
  llvm::Expected<OpRef> Op = OpRegistry::get().make(Name, Attrs, NumInputs);
  if (Op)
    return "";
  std::string Text;
  llvm::handleAllErrors(
      Op.takeError(),
      [&](const AttrError &E) { Text = "attr:" + E.attr() + ": " + E.text(); },
      [&](const llvm::ErrorInfoBase &E) { Text = E.message(); });
  return Text;
}

/// The output types joined by "; ", or "error: TEXT".
inline std::string inferOp(const Op &O, std::vector<TensorType> Ins) {
  llvm::Expected<std::vector<TensorType>> Out = O.inferTypes(Ins);
  if (!Out)
    return "error: " + llvm::toString(Out.takeError());
  std::string R;
  for (const TensorType &T : *Out)
    R += (R.empty() ? "" : "; ") + T.str();
  return R;
}

inline std::string infer(llvm::StringRef Name, std::vector<TensorType> Ins,
                         AttrMap Attrs = {}) {
  OpRef O = makeOp(Name, std::move(Attrs), Ins.size());
  return inferOp(*O, std::move(Ins));
}

/// A C-contiguous array holding Values (converted to T).
inline NDArray arr(DType T, const Shape &Sh, std::vector<double> Values) {
  NDArray A = NDArray::zeros(T, Sh);
  EXPECT_EQ(int64_t(Values.size()), A.numElements());
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (size_t I = 0; I < Values.size() && int64_t(I) < A.numElements(); ++I)
      A.dataAs<E>()[I] = static_cast<E>(Values[I]);
  });
  return A;
}

/// A float64 vector holding Values.
inline NDArray f64Vector(std::vector<double> Values) {
  Shape Sh{int64_t(Values.size())};
  return arr(DType::F64, Sh, std::move(Values));
}

/// 0, 1, 2, ... in the given shape.
inline NDArray iota(DType T, const Shape &Sh) {
  std::vector<double> V(numElementsOf(Sh));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = double(I);
  return arr(T, Sh, V);
}

/// The elements in C order as doubles.
inline std::vector<double> values(const NDArray &A) {
  std::vector<double> V;
  for (int64_t I = 0; I < A.numElements(); ++I)
    V.push_back(A.getDouble(I));
  return V;
}

/// Runs perform(); the outputs or the error.
inline llvm::Expected<std::vector<NDArray>>
runOp(const Op &O, std::vector<NDArray> Ins, const DimBindings *Dims = nullptr) {
  std::vector<NDArray> Outs(O.numOutputs());
  ExecContext Ctx;
  Ctx.Dims = Dims;
  if (llvm::Error E = O.perform(Ins, Outs, Ctx))
    return E;
  return Outs;
}

/// The single output of a perform that must succeed.
inline NDArray run1(const Op &O, std::vector<NDArray> Ins,
                    const DimBindings *Dims = nullptr) {
  llvm::Expected<std::vector<NDArray>> R = runOp(O, std::move(Ins), Dims);
  if (!R) {
    ADD_FAILURE() << "perform failed: " << llvm::toString(R.takeError());
    return NDArray::zeros(DType::F64, {});
  }
  return (*R)[0];
}

/// The error text of a perform that must fail.
inline std::string runError(const Op &O, std::vector<NDArray> Ins,
                            const DimBindings *Dims = nullptr) {
  llvm::Expected<std::vector<NDArray>> R = runOp(O, std::move(Ins), Dims);
  if (R) {
    ADD_FAILURE() << "perform unexpectedly succeeded";
    return "";
  }
  return llvm::toString(R.takeError());
}

/// Elements equal, NaN equal to NaN.
inline void expectValues(const NDArray &A, std::vector<double> Want,
                         double Tol = 0) {
  std::vector<double> Got = values(A);
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Got.size(); ++I) {
    if (std::isnan(Want[I])) {
      EXPECT_TRUE(std::isnan(Got[I])) << "element " << I;
      continue;
    }
    if (Tol == 0 || std::isinf(Want[I]))
      EXPECT_EQ(Got[I], Want[I]) << "element " << I;
    else
      EXPECT_NEAR(Got[I], Want[I], Tol * std::max(1.0, std::fabs(Want[I])))
          << "element " << I;
  }
}

} // namespace graphjit::testutil

#endif
