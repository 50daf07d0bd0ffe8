//===- GraphParserFuzzer.cpp - libFuzzer target for the .graph reader -----===//
//
// Feeds arbitrary bytes to parseGraph. Whatever the input, the reader must
// not crash, leak or hit undefined behaviour, and:
//  - a rejected file has at least one diagnostic, each in the
//    `FILE:LINE:COL: error: ...` form;
//  - an accepted file prints as text that parses back to the same graph
//    (equal canonicalDump), and printing that again gives the same text;
//  - debugPrint and (for small graphs without npy files) initShared work.
// docs/fuzzing.md says how to build and run it.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Initialize.h"
#include "graphjit/Parser.h"
#include "graphjit/Printer.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace graphjit;

[[noreturn]] static void failWith(const llvm::Twine &What,
                                  llvm::StringRef Detail) {
  llvm::errs() << "graphjit-parser-fuzzer: " << What << "\n" << Detail << "\n";
  std::abort();
}

static std::string printedText(const GraphModule &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printModule(M, OS);
  return S;
}

// initShared allocates every shared variable: only do it when that is
// cheap and reads no file.
static bool cheapToInitialise(const GraphModule &M) {
  int64_t Total = 0;
  for (const auto &S : M.sharedVariables()) {
    if (S->Init.K == SharedInit::Npy)
      return false;
    int64_t N = 1;
    for (const Dim &D : S->Type.Dims) {
      if (D.Size > (int64_t(1) << 20) ||
          (D.Size && N > (int64_t(1) << 20) / D.Size))
        return false;
      N *= D.Size;
    }
    Total += N;
    if (Total > (int64_t(1) << 20))
      return false;
  }
  return true;
}

static void checkRejection(llvm::Error E) {
  llvm::handleAllErrors(
      std::move(E),
      [](const ParseError &PE) {
        std::string Text;
        llvm::raw_string_ostream OS(Text);
        PE.log(OS);
        if (PE.count() == 0 ||
            !llvm::StringRef(Text).starts_with("fuzz.graph:") ||
            !llvm::StringRef(Text).contains(": error: "))
          failWith("a rejected file without a proper diagnostic", Text);
      },
      [](const llvm::ErrorInfoBase &Other) {
        failWith("parseGraph failed with something other than a ParseError",
                 Other.message());
      });
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  graphjit::initialize();
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto M = parseGraph(Text, "fuzz.graph");
  if (!M) {
    checkRejection(M.takeError());
    return 0;
  }
  std::string Printed = printedText(**M);
  auto Again = parseGraph(Printed, "printed.graph");
  if (!Again)
    failWith("printed text does not parse",
             Printed + "\n" + llvm::toString(Again.takeError()));
  std::string Dump = canonicalDump(**M);
  if (Dump != canonicalDump(**Again))
    failWith("the round trip changed the graph", Printed + "\n--- before\n" +
                                                     Dump + "--- after\n" +
                                                     canonicalDump(**Again));
  if (printedText(**Again) != Printed)
    failWith("printing is not a fixed point", Printed);
  llvm::raw_null_ostream Null;
  for (const auto &F : (*M)->functions())
    debugPrint(*F, Null);
  if (cheapToInitialise(**M))
    if (llvm::Error E = (*M)->initShared())
      failWith("initShared failed", llvm::toString(std::move(E)));
  return 0;
}
