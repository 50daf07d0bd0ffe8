//===- ProfileMergeDiffTest.cpp - Sums of runs and differences ------------===//
//
// mergeProfiles() adds runs of the same functions and refuses different
// graphs; diffProfiles() finds rows added, removed and changed.
//
//===----------------------------------------------------------------------===//
#include "ProfileTestUtil.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace graphjit;
using namespace graphjit::test;

namespace {

Profile run(double Scale, uint64_t Calls) {
  Profile P;
  P.Functions.push_back(
      function("train",
               {apply(0, "Dot", "Dot", Calls, 1.0 * Scale),
                apply(1, "Add", "Elemwise", Calls, 0.5 * Scale)},
               Calls));
  P.Functions[0].Applies[0].FlopsPerCall = 100;
  return P;
}

TEST(ProfileMerge, SumsRunsOfTheSameFunctions) {
  Profile A = run(1, 10), B = run(2, 30);
  B.Functions[0].Applies[0].FlopsPerCall = 200;
  B.Functions[0].Applies[1].Inputs = {{"float32", {7}, {4}}};
  B.Functions.push_back(function("predict", {apply(0, "Dot", "Dot", 1, 0.1)}));
  llvm::Expected<Profile> S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  ASSERT_EQ(S->Functions.size(), 2u);
  const FunctionProfile &T = S->Functions[0];
  EXPECT_EQ(T.Calls, 40u);
  EXPECT_DOUBLE_EQ(T.thunkSeconds(), 4.5);
  EXPECT_DOUBLE_EQ(T.Compile.Lower, 1.0);
  EXPECT_EQ(T.Applies[0].Calls, 40u);
  EXPECT_DOUBLE_EQ(T.Applies[0].Seconds, 3.0);
  // Total flops are kept: (100 * 10 + 200 * 30) / 40 per call.
  EXPECT_DOUBLE_EQ(T.Applies[0].FlopsPerCall, 175.0);
  // The tensors as last seen.
  EXPECT_EQ(T.Applies[1].Inputs[0].Shape, std::vector<int64_t>{7});
  EXPECT_EQ(S->Functions[1].Name, "predict");
}

TEST(ProfileMerge, RefusesDifferentGraphs) {
  Profile A = run(1, 10), B = run(1, 10);
  B.Functions[0].Applies[1].Name = "Mul(v1)";
  llvm::Expected<Profile> S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(llvm::toString(S.takeError()),
            "cannot merge a.json and b.json: function 'train' (t.graph): "
            "Apply 1 is 'Add(v1)' in a.json but 'Mul(v1)' in b.json");

  B = run(1, 10);
  B.Functions[0].Applies.pop_back();
  S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_FALSE(bool(S));
  EXPECT_NE(
      llvm::toString(S.takeError()).find("2 Applies in a.json but 1 in b.json"),
      std::string::npos);

  B = run(1, 10);
  B.Functions[0].Linker = "py";
  S = mergeProfiles({A, B});
  ASSERT_FALSE(bool(S));
  EXPECT_NE(llvm::toString(S.takeError())
                .find("cannot merge profile 1 and profile 2: function 'train' "
                      "(t.graph): linker c|py in profile 1 but py in "
                      "profile 2"),
            std::string::npos);

  // Same name, other file: another function, kept apart.
  B = run(1, 10);
  B.Functions[0].File = "other.graph";
  B.Functions[0].Applies.pop_back();
  S = mergeProfiles({A, B});
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(S->Functions.size(), 2u);
}

TEST(ProfileDiff, AddedRemovedChanged) {
  Profile A = run(1, 10);
  Profile B = run(1, 10);
  // B: the Dot got faster and shifted to id 1; Add is gone; a Softmax is new.
  B.Functions[0].Applies = {apply(0, "Softmax", "Softmax", 10, 0.2),
                            apply(1, "Dot", "Dot", 10, 0.4)};
  B.Functions[0].Applies[1].Name = "Dot(v0)";
  B.Functions.push_back(function("predict", {apply(0, "Dot", "Dot", 1, 0.1)}));
  ProfileDiff D = diffProfiles(A, B);
  EXPECT_DOUBLE_EQ(D.ThunkSecondsA, 1.5);
  EXPECT_DOUBLE_EQ(D.ThunkSecondsB, 0.7);
  EXPECT_EQ(D.FunctionsAdded, std::vector<std::string>{"predict"});
  EXPECT_TRUE(D.FunctionsRemoved.empty());

  ASSERT_EQ(D.Applies.size(), 4u);
  // Sorted by |difference|: Dot -0.6, Add -0.5, Softmax +0.2, predict +0.1.
  EXPECT_EQ(D.Applies[0].Key, "Dot(v0)"); // matched by name across ids
  EXPECT_EQ(D.Applies[0].State, DiffRow::Changed);
  EXPECT_DOUBLE_EQ(D.Applies[0].difference(), -0.6);
  EXPECT_EQ(D.Applies[1].Key, "Add(v1)");
  EXPECT_EQ(D.Applies[1].State, DiffRow::Removed);
  EXPECT_EQ(D.Applies[2].Key, "Softmax(v0)");
  EXPECT_EQ(D.Applies[2].State, DiffRow::Added);
  EXPECT_EQ(D.Applies[3].Function, "predict");
  EXPECT_EQ(D.Applies[3].State, DiffRow::Added);

  ASSERT_EQ(D.Ops.size(), 3u);
  // Add -0.5 and Dot 1.0 -> 0.5 (both functions), then Softmax +0.2.
  EXPECT_EQ(D.Ops[2].Key, "Softmax");
  EXPECT_EQ(D.Ops[2].State, DiffRow::Added);
  for (const DiffRow &R : D.Ops) {
    if (R.Key == "Add") {
      EXPECT_EQ(R.State, DiffRow::Removed);
    }
  }
  EXPECT_EQ(D.Classes.size(), 3u);

  std::string S;
  llvm::raw_string_ostream OS(S);
  printDiff(OS, D, "a.json", "b.json");
  EXPECT_NE(S.find("Time in thunks: A 1.500000e+00s, B 7.000000e-01s, "
                   "difference -8.000000e-01s, ratio B/A 0.467"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("Functions only in B: predict"), std::string::npos);
  EXPECT_NE(S.find("removed  train: Add(v1)"), std::string::npos) << S;
  EXPECT_EQ(S.find("inf"), std::string::npos);
  EXPECT_EQ(S.find("nan"), std::string::npos);
}

TEST(ProfileDiff, DuplicateNamesMatchInOrder) {
  Profile A, B;
  A.Functions = {function(
      "f", {apply(0, "Add", "E", 1, 0.1), apply(1, "Add", "E", 1, 0.2)})};
  A.Functions[0].Applies[1].Name = A.Functions[0].Applies[0].Name;
  B = A;
  B.Functions[0].Applies[1].Seconds = 0.5;
  ProfileDiff D = diffProfiles(A, B);
  ASSERT_EQ(D.Applies.size(), 2u);
  EXPECT_EQ(D.Applies[0].State, DiffRow::Changed);
  EXPECT_DOUBLE_EQ(D.Applies[0].difference(), 0.3);
  EXPECT_EQ(D.Applies[1].State, DiffRow::Same);
}

} // namespace
