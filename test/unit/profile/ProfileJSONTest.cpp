//===- ProfileJSONTest.cpp - Profiles to JSON and back --------------------===//
//
// The round trip is exact, and every malformed file is an error that names
// the file and the JSON path.
//
//===----------------------------------------------------------------------===//
#include "ProfileTestUtil.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace graphjit;
using namespace graphjit::test;

namespace {

std::string toJSON(const Profile &P) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeProfileJSON(OS, P);
  return S;
}

std::string errorOf(llvm::StringRef Text) {
  llvm::Expected<Profile> P = readProfileJSON(Text, "a.json");
  if (P)
    return "(no error)";
  return llvm::toString(P.takeError());
}

Profile sample() {
  Profile P;
  P.Machine = "x86-64, 2 cores";
  FunctionProfile F = function(
      "train", {apply(0, "Dot", "Dot", 10, 0.123456789012345),
                apply(1, "Softmax", "Softmax", 10, 1e-9, false, "float64")});
  F.Applies[0].FlopsPerCall = 2.5e9;
  F.Applies[0].BytesPerCall = 1.0 / 3.0;
  F.Applies[0].Inputs.push_back({"float32", {3, 4}, {4, 12}});
  F.Applies[1].Loc = "";
  F.Applies[1].Outputs.push_back({"int64", {}, {}});
  F.Applies[1].Terms = {"mu", "y"};
  F.Applies[1].Gradient = true;
  F.Compile = {0.1, 0.2, 0.3, 0.4, 0.5, true};
  F.Compile.Host = {{"PyTensor rewrites", 0.25},
                    {"translation to graphjit", 0.125}};
  F.Clock = "TSC (invariant), 2.904 GHz";
  P.Functions.push_back(F);
  P.Functions.push_back(function("empty", {}, 0, 0));
  // Compiled in parts: a count the round trip keeps (it is part of ==).
  P.Functions.back().Compile.PartThreads = 3;
  return P;
}

const char *Minimal = R"J({"graphjit_profile": 1, "functions": [
  {"name": "f", "calls": 1, "call_seconds": 1, "driver_seconds": 0.5,
   "applies": [{"id": 0, "name": "A(x)", "op": "A", "op_class": "A",
                "type": "C", "calls": 1, "seconds": 0.25}]}]})J";

TEST(ProfileJSON, RoundTrip) {
  Profile P = sample();
  std::string Text = toJSON(P);
  llvm::Expected<Profile> Back = readProfileJSON(Text, "t.json");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(*Back == P);
  EXPECT_EQ(toJSON(*Back), Text);
}

TEST(ProfileJSON, OptionalFieldsTakeDefaults) {
  llvm::Expected<Profile> P = readProfileJSON(Minimal, "m.json");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_EQ(P->Functions.size(), 1u);
  const FunctionProfile &F = P->Functions[0];
  EXPECT_EQ(F.File, "");
  EXPECT_EQ(F.Compile.total(), 0.0);
  ASSERT_EQ(F.Applies.size(), 1u);
  EXPECT_EQ(F.Applies[0].Loc, "");
  EXPECT_TRUE(F.Applies[0].Inputs.empty());
  EXPECT_DOUBLE_EQ(F.thunkSeconds(), 0.25);
}

TEST(ProfileJSON, ErrorsNameFileAndPath) {
  EXPECT_EQ(errorOf("{"), "a.json:1:1: invalid JSON: Expected object key");
  EXPECT_EQ(errorOf("[]"), "a.json: (root): expected an object");
  EXPECT_EQ(errorOf("{}"), "a.json: (root): not a graphjit profile: no "
                           "\"graphjit_profile\" version");
  EXPECT_EQ(errorOf(R"({"graphjit_profile": 4, "functions": []})"),
            "a.json: graphjit_profile: version 4 is not supported (this "
            "build reads versions 1 to 3)");
  EXPECT_EQ(errorOf(R"({"graphjit_profile": 0, "functions": []})"),
            "a.json: graphjit_profile: version 0 is not supported (this "
            "build reads versions 1 to 3)");
  EXPECT_EQ(errorOf(R"({"graphjit_profile": 1})"),
            "a.json: functions: missing");
  EXPECT_EQ(errorOf(R"({"graphjit_profile": 1, "functions": {}})"),
            "a.json: functions: expected an array");

  std::string Text = Minimal;
  auto Replaced = [&](llvm::StringRef From, llvm::StringRef To) {
    std::string S = Text;
    size_t At = S.find(From.str());
    EXPECT_NE(At, std::string::npos) << From.str();
    return S.replace(At, From.size(), To.str());
  };
  EXPECT_EQ(errorOf(Replaced("\"calls\": 1, \"seconds\"",
                             "\"calls\": 1.5, \"seconds\"")),
            "a.json: functions[0].applies[0].calls: expected an integer >= 0");
  EXPECT_EQ(errorOf(Replaced("\"calls\": 1, \"seconds\"",
                             "\"calls\": \"x\", \"seconds\"")),
            "a.json: functions[0].applies[0].calls: expected an integer >= 0");
  EXPECT_EQ(errorOf(Replaced("\"seconds\": 0.25", "\"seconds\": -1")),
            "a.json: functions[0].applies[0].seconds: expected a finite "
            "number >= 0");
  EXPECT_EQ(errorOf(Replaced("\"type\": \"C\"", "\"type\": \"Cuda\"")),
            "a.json: functions[0].applies[0].type: expected \"C\" or \"Py\", "
            "not \"Cuda\"");
  EXPECT_EQ(errorOf(Replaced("\"name\": \"A(x)\", ", "")),
            "a.json: functions[0].applies[0].name: missing");
  EXPECT_EQ(errorOf(Replaced("\"name\": \"f\"", "\"name\": 3")),
            "a.json: functions[0].name: expected a string");
  EXPECT_EQ(errorOf(Replaced("\"seconds\": 0.25",
                             "\"seconds\": 0.25, \"inputs\": [{\"dtype\": "
                             "\"float32\", \"shape\": [2], \"strides\": []}]")),
            "a.json: functions[0].applies[0].inputs[0].strides: expected as "
            "many strides as dims (1)");
  EXPECT_EQ(errorOf(Replaced("\"seconds\": 0.25",
                             "\"seconds\": 0.25, \"outputs\": [{\"dtype\": "
                             "\"float32\", \"shape\": [2.5], \"strides\": "
                             "[4]}]")),
            "a.json: functions[0].applies[0].outputs[0].shape[0]: expected an "
            "integer");
  EXPECT_EQ(errorOf(Replaced("\"driver_seconds\": 0.5",
                             "\"driver_seconds\": 0.5, \"compile\": "
                             "{\"cached\": 1}")),
            "a.json: functions[0].compile.cached: expected true or false");
  EXPECT_EQ(errorOf(Replaced("\"driver_seconds\": 0.5",
                             "\"driver_seconds\": 0.5, \"compile\": "
                             "{\"part_threads\": -2}")),
            "a.json: functions[0].compile.part_threads: expected an integer "
            ">= 0");
  EXPECT_EQ(errorOf(Replaced("\"applies\": [", "\"applies\": [7, ")),
            "a.json: functions[0].applies[0]: expected an object");
  std::string Dup =
      Replaced("}]}]}", "}, {\"id\": 0, \"name\": \"B\", \"op\": "
                        "\"B\", \"op_class\": \"B\", \"type\": "
                        "\"C\", \"calls\": 0, \"seconds\": 0}]}]}");
  EXPECT_EQ(errorOf(Dup), "a.json: functions[0].applies[1].id: duplicate id 0 "
                          "in this function");
}

TEST(ProfileJSON, MissingFileIsAnError) {
  llvm::Expected<Profile> P = readProfileJSONFile("/nonexistent/p.json");
  ASSERT_FALSE(bool(P));
  EXPECT_NE(
      llvm::toString(P.takeError()).find("/nonexistent/p.json: cannot read:"),
      std::string::npos);
}

} // namespace
