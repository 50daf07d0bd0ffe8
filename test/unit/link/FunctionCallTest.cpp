//===- FunctionCallTest.cpp - Calls reusing their state, from many threads -===//
//
// A Function plans its calls once and reuses the working memory of one
// call in the next (lib/link/call/CallPlan.h). These tests check that reuse
// changes nothing a caller sees: results across shapes and errors, errors
// worded as before, results that alias inputs, and calls of one Function
// from several threads at once.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "gtest/gtest.h"
#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

using namespace graphjit;

namespace {

const char *Example = R"(
func example(x: f64[n], y: f64[n], z: f64[n]) -> (r) {
  s = add(x, y)
  t = add(s, z)
  r = mul(t, 2.0)
}
func views(x: f64[n, m]) -> (x, xt, x) {
  xt = dimshuffle(x, pattern=[1, 0])
}
)";

std::unique_ptr<GraphModule> parseExample() {
  auto M = parseGraph(Example, "call.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

std::unique_ptr<Function> compileOrFail(FunctionGraph &F, LinkerKind K) {
  CompileOptions O;
  O.Linker = K;
  auto Fn = Function::compile(F, O);
  if (!Fn) {
    ADD_FAILURE() << llvm::toString(Fn.takeError());
    return nullptr;
  }
  return std::move(*Fn);
}

NDArray vec(int64_t N, double Start, double Step) {
  NDArray A = NDArray::zeros(DType::F64, {N});
  for (int64_t I = 0; I < N; ++I)
    A.dataAs<double>()[I] = Start + Step * double(I);
  return A;
}

// (x + y + z) * 2 on vec(N, A, 1), vec(N, B, 2), vec(N, C, 3): an empty
// string if Out is right, else what is wrong.
std::string checkExample(const NDArray &Out, int64_t N, double A, double B,
                         double C) {
  if (Out.isNull() || Out.dtype() != DType::F64 || Out.shape() != Shape{N})
    return "wrong array: " + (Out.isNull() ? "null" : shapeStr(Out.shape()));
  for (int64_t I = 0; I < N; ++I) {
    double D = double(I);
    double Want = ((A + D) + (B + 2 * D) + (C + 3 * D)) * 2.0;
    if (Out.getDouble(I) != Want)
      return "element " + std::to_string(I) + " is " +
             std::to_string(Out.getDouble(I)) + ", want " +
             std::to_string(Want);
  }
  return "";
}

class FunctionCall : public ::testing::TestWithParam<LinkerKind> {};

} // namespace

TEST_P(FunctionCall, ReusedStateAcrossShapesAndErrors) {
  auto M = parseExample();
  ASSERT_TRUE(M);
  auto Fn = compileOrFail(*M->lookupFunction("example"), GetParam());
  ASSERT_TRUE(Fn);
  std::string FirstError;
  for (int Round = 0; Round < 3; ++Round) {
    for (int64_t N : {3, 0, 1, 7, 3}) {
      double A = N + Round, B = 10 * Round, C = -1.5;
      auto R = Fn->call({vec(N, A, 1), vec(N, B, 2), vec(N, C, 3)});
      ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
      ASSERT_EQ(1u, R->size());
      EXPECT_EQ("", checkExample((*R)[0], N, A, B, C)) << "n=" << N;
    }
    // A failing call in between, worded the same every time.
    auto Bad = Fn->call({vec(3, 0, 1), vec(4, 0, 1), vec(3, 0, 1)});
    ASSERT_FALSE(bool(Bad));
    std::string Msg = llvm::toString(Bad.takeError());
    EXPECT_EQ("input 'y' dim 0 is 4, but 'n' is 3 from input 'x' dim 0", Msg);
    auto Few = Fn->call({vec(3, 0, 1)});
    ASSERT_FALSE(bool(Few));
    EXPECT_EQ("function 'example' takes 3 inputs, got 1",
              llvm::toString(Few.takeError()));
    auto Null = Fn->call({vec(3, 0, 1), NDArray(), vec(3, 0, 1)});
    ASSERT_FALSE(bool(Null));
    EXPECT_EQ("input 'y' has no value", llvm::toString(Null.takeError()));
  }
  // Sizes given for a symbol an input binds: the general path.
  DimBindings Given;
  Given["n"] = 2;
  auto G = Fn->call({vec(2, 1, 1), vec(2, 2, 2), vec(2, 3, 3)}, Given);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ("", checkExample((*G)[0], 2, 1, 2, 3));
  Given["n"] = 5;
  auto GBad = Fn->call({vec(2, 1, 1), vec(2, 2, 2), vec(2, 3, 3)}, Given);
  ASSERT_FALSE(bool(GBad));
  EXPECT_EQ("input 'x' dim 0 is 2, but 'n' is 5 from the sizes given",
            llvm::toString(GBad.takeError()));
}

// Outputs that are an input or a view of one stay valid after the caller
// drops the input (the call only borrows its inputs).
// An output too large for the machine fails its call with an error that
// names the Apply and the bytes; the function stays usable.
TEST_P(FunctionCall, OutOfMemoryIsAnErrorAndTheFunctionGoesOn) {
  // More bytes than any 57-bit address space holds: malloc fails under
  // every overcommit policy (8 TB did not where overcommit is unlimited).
  auto M = parseGraph("func f(x: f64[n], v: f64[n], w: f64[n]) -> (z) {\n"
                      "  z = mul(reshape(x, shape=[-1, 1, 1]), "
                      "reshape(v, shape=[-1, 1]), w)\n"
                      "}\n",
                      "oom.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  auto Fn = compileOrFail(*(*M)->lookupFunction("f"), GetParam());
  ASSERT_TRUE(Fn);
  const int64_t Huge = int64_t(1) << 19; // a 2^60-byte output
  auto R = Fn->call({vec(Huge, 0, 1), vec(Huge, 0, 1), vec(Huge, 0, 1)});
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("out of memory: cannot allocate 1152921504606846976 bytes"),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("Elemwise{mul,no_inplace}"), std::string::npos) << Msg;
  auto Small = Fn->call({vec(3, 1, 1), vec(3, 1, 0), vec(3, 1, 0)});
  ASSERT_TRUE(bool(Small)) << llvm::toString(Small.takeError());
  EXPECT_EQ((*Small)[0].shape(), (Shape{3, 3, 3}));
  EXPECT_EQ((*Small)[0].getDouble(26), 3.0); // x[2] * v[2] * w[2]
}

TEST_P(FunctionCall, ResultsThatAliasInputsOwnTheirMemory) {
  auto M = parseExample();
  ASSERT_TRUE(M);
  auto Fn = compileOrFail(*M->lookupFunction("views"), GetParam());
  ASSERT_TRUE(Fn);
  std::vector<NDArray> Results;
  {
    NDArray X = NDArray::zeros(DType::F64, {2, 3});
    for (int I = 0; I < 6; ++I)
      X.dataAs<double>()[I] = I;
    auto R = Fn->call({X});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    Results = std::move(*R);
    for (const NDArray &A : Results) {
      EXPECT_FALSE(A.isBorrowed());
      EXPECT_TRUE(A.sharesBufferWith(X));
    }
  }
  ASSERT_EQ(3u, Results.size());
  EXPECT_EQ((Shape{2, 3}), Results[0].shape());
  EXPECT_EQ((Shape{3, 2}), Results[1].shape());
  for (int I = 0; I < 6; ++I) {
    EXPECT_EQ(I, Results[0].getDouble(I));
    EXPECT_EQ(I, Results[2].getDouble(I));
  }
  EXPECT_EQ(3, Results[1].getDouble(1)); // xt[0][1] = x[1][0]
  EXPECT_EQ(2u, Results[0].buffer().use_count() - 1); // 3 results share it.
}

// callInto() gives call()'s results in the caller's vector, across shapes
// and errors; a copy the caller keeps is not written over by later calls.
TEST_P(FunctionCall, CallIntoReusesTheCallersArrays) {
  auto M = parseExample();
  ASSERT_TRUE(M);
  auto Fn = compileOrFail(*M->lookupFunction("example"), GetParam());
  ASSERT_TRUE(Fn);
  std::vector<NDArray> Out;
  NDArray Kept;
  for (int64_t N : {4, 4, 0, 7, 4}) {
    double A = double(N), B = 2, C = -1;
    llvm::Error E = Fn->callInto({vec(N, A, 1), vec(N, B, 2), vec(N, C, 3)}, Out);
    ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
    ASSERT_EQ(1u, Out.size());
    EXPECT_EQ("", checkExample(Out[0], N, A, B, C)) << "n=" << N;
    if (Kept.isNull())
      Kept = Out[0];
  }
  EXPECT_EQ("", checkExample(Kept, 4, 4, 2, -1));
  // A failing call leaves null arrays; the next call works.
  llvm::Error Bad = Fn->callInto({vec(3, 0, 1), vec(4, 0, 1), vec(3, 0, 1)}, Out);
  ASSERT_TRUE(bool(Bad));
  EXPECT_EQ("input 'y' dim 0 is 4, but 'n' is 3 from input 'x' dim 0",
            llvm::toString(std::move(Bad)));
  ASSERT_EQ(1u, Out.size());
  EXPECT_TRUE(Out[0].isNull());
  llvm::Error Good = Fn->callInto({vec(2, 1, 1), vec(2, 2, 2), vec(2, 3, 3)}, Out);
  ASSERT_FALSE(bool(Good)) << llvm::toString(std::move(Good));
  EXPECT_EQ("", checkExample(Out[0], 2, 1, 2, 3));
  // Outputs that are an input or a view of one own a share of its memory,
  // as call()'s do.
  auto Views = compileOrFail(*M->lookupFunction("views"), GetParam());
  ASSERT_TRUE(Views);
  NDArray X = NDArray::zeros(DType::F64, {2, 3});
  for (int I = 0; I < 6; ++I)
    X.dataAs<double>()[I] = I;
  llvm::Error V = Views->callInto({X}, Out);
  ASSERT_FALSE(bool(V)) << llvm::toString(std::move(V));
  ASSERT_EQ(3u, Out.size());
  for (const NDArray &A : Out) {
    EXPECT_FALSE(A.isBorrowed());
    EXPECT_TRUE(A.sharesBufferWith(X));
  }
  EXPECT_EQ(3, Out[1].getDouble(1)); // xt[0][1] = x[1][0]
  // Feeding an output back: as an element of Outputs, an error that
  // changes nothing; as a copy, the next call's input.
  llvm::Error Fed = Views->callInto(llvm::ArrayRef<NDArray>(Out).take_front(1),
                                    Out);
  ASSERT_TRUE(bool(Fed));
  EXPECT_EQ("callInto: input 0 is an element of the outputs vector, which "
            "the call overwrites; pass a copy of it",
            llvm::toString(std::move(Fed)));
  EXPECT_TRUE(Out[0].sharesBufferWith(X));
  NDArray Back = Out[0];
  llvm::Error Copied = Views->callInto({Back}, Out);
  ASSERT_FALSE(bool(Copied)) << llvm::toString(std::move(Copied));
  EXPECT_EQ(4, Out[0].getDouble(4));
}

namespace {
// Global operator new, counted on this thread while Counting is set.
thread_local bool Counting = false;
thread_local size_t Allocations = 0;
} // namespace

// The replacements pair malloc with free, which GCC cannot see through.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Every unaligned form is replaced, so that each allocation is freed by
// its own kind (the sanitizers check); the aligned forms stay the
// library's, a pair of their own.
void *operator new(size_t Size) {
  if (Counting)
    ++Allocations;
  if (void *P = std::malloc(Size ? Size : 1))
    return P;
  throw std::bad_alloc();
}
void *operator new[](size_t Size) { return operator new(Size); }
void *operator new(size_t Size, const std::nothrow_t &) noexcept {
  if (Counting)
    ++Allocations;
  return std::malloc(Size ? Size : 1);
}
void *operator new[](size_t Size, const std::nothrow_t &Tag) noexcept {
  return operator new(Size, Tag);
}
void operator delete(void *P) noexcept { std::free(P); }
void operator delete[](void *P) noexcept { std::free(P); }
void operator delete(void *P, size_t) noexcept { std::free(P); }
void operator delete[](void *P, size_t) noexcept { std::free(P); }
void operator delete(void *P, const std::nothrow_t &) noexcept { std::free(P); }
void operator delete[](void *P, const std::nothrow_t &) noexcept {
  std::free(P);
}

// A steady loop of callInto() on the JIT allocates nothing on the heap
// (no shape vectors, no result vector), and the output lands in the same
// memory every call (its planned storage, given back by the last result).
TEST(FunctionCallInto, SteadyCallsAllocateNothing) {
  auto M = parseExample();
  ASSERT_TRUE(M);
  auto Fn = compileOrFail(*M->lookupFunction("example"), LinkerKind::CPy);
  ASSERT_TRUE(Fn);
  std::vector<NDArray> In = {vec(5, 1, 1), vec(5, 2, 2), vec(5, 3, 3)};
  std::vector<NDArray> Out;
  for (int Warm = 0; Warm < 2; ++Warm)
    ASSERT_FALSE(bool(Fn->callInto(In, Out)));
  const void *Data = Out[0].data();
  Allocations = 0;
  Counting = true;
  for (int I = 0; I < 100; ++I)
    if (llvm::Error E = Fn->callInto(In, Out)) {
      Counting = false;
      FAIL() << llvm::toString(std::move(E));
    }
  Counting = false;
  EXPECT_EQ(0u, Allocations);
  EXPECT_EQ(Data, Out[0].data());
  EXPECT_EQ("", checkExample(Out[0], 5, 1, 2, 3));
  // call() for comparison makes the result vector and its shapes.
  Counting = true;
  auto R = Fn->call(In);
  Counting = false;
  ASSERT_TRUE(bool(R));
  EXPECT_GT(Allocations, 0u);
}

// One Function called from 4 threads at once, each with its own inputs
// and shapes; every result is checked.
TEST_P(FunctionCall, ConcurrentCallsFromFourThreads) {
  auto M = parseExample();
  ASSERT_TRUE(M);
  auto Fn = compileOrFail(*M->lookupFunction("example"), GetParam());
  ASSERT_TRUE(Fn);
  std::atomic<int> Failures{0};
  std::vector<std::string> FirstFailure(4);
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      for (int I = 0; I < 500; ++I) {
        int64_t N = 1 + (T + I) % 6;
        double A = T * 1000 + I, B = -T, C = 0.25 * I;
        auto R = Fn->call({vec(N, A, 1), vec(N, B, 2), vec(N, C, 3)});
        std::string Why = R ? checkExample((*R)[0], N, A, B, C)
                            : llvm::toString(R.takeError());
        if (!Why.empty() && Failures++ == 0)
          FirstFailure[T] = Why;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(0, Failures.load());
  for (const std::string &F : FirstFailure)
    EXPECT_EQ("", F);
}

INSTANTIATE_TEST_SUITE_P(Linkers, FunctionCall,
                         ::testing::Values(LinkerKind::Py, LinkerKind::CPy,
                                           LinkerKind::C),
                         [](const auto &Info) {
                           return std::string(Info.param == LinkerKind::Py
                                                  ? "py"
                                              : Info.param == LinkerKind::CPy
                                                  ? "cpy"
                                                  : "c");
                         });

TEST(NDArrayReuse, EmptyIntoReusesAndChecks) {
  NDArray A;
  ASSERT_FALSE(bool(NDArray::emptyInto(A, DType::F32, {2, 3})));
  EXPECT_EQ((Shape{2, 3}), A.shape());
  EXPECT_EQ((Shape{12, 4}), A.strides());
  EXPECT_EQ(DType::F32, A.dtype());
  const void *OldBuffer = A.buffer().get();
  ASSERT_FALSE(bool(NDArray::emptyInto(A, DType::F64, {4})));
  EXPECT_NE(OldBuffer, A.buffer().get());
  EXPECT_EQ((Shape{4}), A.shape());
  EXPECT_EQ((Shape{8}), A.strides());
  // Onto its own shape.
  ASSERT_FALSE(bool(NDArray::emptyInto(A, DType::I8, A.shape())));
  EXPECT_EQ((Shape{4}), A.shape());
  EXPECT_EQ((Shape{1}), A.strides());
  // Errors leave the array as it was.
  llvm::Error E = NDArray::emptyInto(A, DType::F64, {-1});
  ASSERT_TRUE(bool(E));
  EXPECT_EQ("negative dimension in shape (-1,)", llvm::toString(std::move(E)));
  EXPECT_EQ((Shape{4}), A.shape());
  EXPECT_EQ(DType::I8, A.dtype());
  auto Empty = NDArray::empty(DType::I64, {0, 5});
  ASSERT_TRUE(bool(Empty));
  EXPECT_EQ(0, Empty->numElements());
}

TEST(NDArrayReuse, BorrowAndReown) {
  NDArray Owner = NDArray::zeros(DType::F64, {3});
  NDArray B;
  B.borrow(Owner);
  EXPECT_TRUE(B.isBorrowed());
  EXPECT_FALSE(Owner.isBorrowed());
  EXPECT_EQ(1, Owner.buffer().use_count()); // Borrowing counts nothing.
  EXPECT_TRUE(B.sharesBufferWith(Owner));
  NDArray V = B.view({1}, {8}, 8); // Views of a borrowed array borrow.
  EXPECT_TRUE(V.isBorrowed());
  V.reown(NDArray::zeros(DType::F64, {3})); // Not its buffer: no change.
  EXPECT_TRUE(V.isBorrowed());
  V.reown(Owner);
  EXPECT_FALSE(V.isBorrowed());
  EXPECT_EQ(2, Owner.buffer().use_count());
  B.dropBuffer();
  EXPECT_TRUE(B.isNull());
}
