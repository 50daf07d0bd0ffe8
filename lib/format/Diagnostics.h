//===- Diagnostics.h - Collecting .graph errors -----------------*- C++ -*-===//
//
// Collects the errors (and their notes) found while parsing and checking one
// .graph file, each formatted by llvm::SourceMgr as
// `FILE:LINE:COL: error: WHAT`, the line and a caret. They are kept in source
// order so that the report reads top to bottom whatever order the checks
// found them in, and are handed back as one ParseError.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FORMAT_DIAGNOSTICS_H
#define GRAPHJIT_FORMAT_DIAGNOSTICS_H

#include "graphjit/Parser.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include <string>
#include <vector>

namespace graphjit {
namespace format {

class Diagnostics {
public:
  explicit Diagnostics(const llvm::SourceMgr &SM) : SM(SM) {}

  /// Reports an error at Loc.
  void error(llvm::SMLoc Loc, const llvm::Twine &Msg);
  /// Attaches a note (e.g. where a name was first defined) to the last error.
  void note(llvm::SMLoc Loc, const llvm::Twine &Msg);

  /// Accounts for N edit distances about to be computed for a "did you
  /// mean" suggestion; false once a file has used its budget (thousands of
  /// misspelt names among thousands of names), so that reporting stays
  /// linear in the size of the file.
  bool spendSuggestionWork(size_t N) {
    SuggestionWork += N;
    return SuggestionWork <= MaxSuggestionWork;
  }

  unsigned numErrors() const { return Entries.size(); }
  bool hasErrors() const { return !Entries.empty(); }
  /// All errors, in source order, as one ParseError.
  llvm::Error takeError();

private:
  struct Entry {
    const char *Pos; ///< For sorting; null sorts first.
    unsigned Seq;    ///< Report order, to break ties.
    std::string Text;
  };
  const llvm::SourceMgr &SM;
  std::vector<Entry> Entries;
  static constexpr size_t MaxSuggestionWork = 1000000;
  size_t SuggestionWork = 0;

  std::string format(llvm::SMLoc Loc, llvm::SourceMgr::DiagKind Kind,
                     const llvm::Twine &Msg) const;
};

/// `'c'` for a printable character, `'\xNN'` otherwise: how messages quote a
/// byte of the source.
std::string quoteChar(unsigned char C);

/// ", did you mean 'x'?" when one of Candidates is close to Name, else "".
std::string suggestName(llvm::StringRef Name,
                        llvm::ArrayRef<llvm::StringRef> Candidates);

} // namespace format
} // namespace graphjit

#endif
