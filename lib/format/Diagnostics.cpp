//===- Diagnostics.cpp - Collecting .graph errors -------------------------===//

#include "Diagnostics.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace graphjit;
using namespace graphjit::format;

std::string format::quoteChar(unsigned char C) {
  std::string S = "'";
  if (C >= 0x20 && C < 0x7f) {
    S += char(C);
  } else {
    llvm::raw_string_ostream OS(S);
    OS << "\\x" << llvm::format_hex_no_prefix(C, 2, /*Upper=*/true);
  }
  return S + "'";
}

std::string format::suggestName(llvm::StringRef Name,
                                llvm::ArrayRef<llvm::StringRef> Candidates) {
  // Only suggest when the name is plausibly a typo of the candidate: one
  // edit in three characters at most, so one- and two-letter names get no
  // suggestion (any other short name would be one edit away).
  unsigned MaxDist = std::min<size_t>(Name.size(), 9) / 3;
  if (MaxDist == 0)
    return "";
  llvm::StringRef Best;
  unsigned BestDist = MaxDist + 1;
  for (llvm::StringRef C : Candidates) {
    if (C == Name || C.empty())
      continue;
    unsigned D = Name.edit_distance(C, /*AllowReplacements=*/true, BestDist);
    if (D < BestDist) {
      BestDist = D;
      Best = C;
    }
  }
  if (Best.empty())
    return "";
  return "; did you mean '" + Best.str() + "'?";
}

// SMDiagnostic::print drops the caret line when the source line holds a
// non-ASCII byte, and would copy NULs and control bytes to the terminal.
// Printing the line with each such byte shown as '?' keeps one column per
// byte, so the caret still lands under the reported column.
static std::string printableLine(llvm::StringRef Line) {
  std::string R;
  R.reserve(Line.size());
  for (char C : Line) {
    unsigned char U = C;
    R += (U == '\t' || (U >= 0x20 && U < 0x7f)) ? C : '?';
  }
  return R;
}

std::string Diagnostics::format(llvm::SMLoc Loc, llvm::SourceMgr::DiagKind Kind,
                                const llvm::Twine &Msg) const {
  llvm::SMDiagnostic D = SM.GetMessage(Loc, Kind, Msg);
  std::string Line = printableLine(D.getLineContents());
  llvm::SMDiagnostic Clean(SM, D.getLoc(), D.getFilename(), D.getLineNo(),
                           D.getColumnNo(), Kind, D.getMessage(), Line,
                           D.getRanges());
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  Clean.print(nullptr, OS, /*ShowColors=*/false);
  return Out;
}

void Diagnostics::error(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  Entries.push_back({Loc.getPointer(), unsigned(Entries.size()),
                     format(Loc, llvm::SourceMgr::DK_Error, Msg)});
}

void Diagnostics::note(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  if (Entries.empty())
    return;
  Entries.back().Text += format(Loc, llvm::SourceMgr::DK_Note, Msg);
}

llvm::Error Diagnostics::takeError() {
  if (Entries.empty())
    return llvm::Error::success();
  // By position, then in the order reported (an error before its notes'
  // neighbours, checks of one place in their order).
  std::sort(Entries.begin(), Entries.end(), [](const Entry &A, const Entry &B) {
    if (A.Pos != B.Pos)
      return std::less<const char *>()(A.Pos, B.Pos);
    return A.Seq < B.Seq;
  });
  std::string All;
  for (const Entry &E : Entries)
    All += E.Text;
  unsigned Count = Entries.size();
  Entries.clear();
  return llvm::make_error<ParseError>(std::move(All), Count);
}
