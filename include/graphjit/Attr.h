//===- graphjit/Attr.h - Op attributes (key=value) -------------*- C++ -*-===//
//
// The `key=value` arguments of an op call in the graph format: integers,
// floats, booleans, identifiers (dtypes, `x` in dimshuffle patterns,
// symbolic dim names) and lists of those.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_ATTR_H
#define GRAPHJIT_ATTR_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace graphjit {

struct AttrValue {
  enum Kind { Int, Float, Bool, Ident, List } K = Int;
  int64_t I = 0;
  double F = 0;
  bool B = false;
  std::string S;               ///< Ident, and a Float's spelling.
  std::vector<AttrValue> Elts; ///< List.

  static AttrValue integer(int64_t V) {
    AttrValue A;
    A.K = Int;
    A.I = V;
    return A;
  }
  static AttrValue floating(double V, std::string Spelling = {});
  static AttrValue boolean(bool V) {
    AttrValue A;
    A.K = Bool;
    A.B = V;
    return A;
  }
  static AttrValue ident(std::string V) {
    AttrValue A;
    A.K = Ident;
    A.S = std::move(V);
    return A;
  }
  static AttrValue list(std::vector<AttrValue> V) {
    AttrValue A;
    A.K = List;
    A.Elts = std::move(V);
    return A;
  }
  static AttrValue intList(const std::vector<int64_t> &V);

  /// The graph format's spelling, which parses back to the same value.
  std::string str() const;
  bool operator==(const AttrValue &O) const;
  bool operator!=(const AttrValue &O) const { return !(*this == O); }
};

/// The shortest spelling of V that reads back as V, always with a '.' or an
/// exponent so that it reads as a float: "2.0", "0.05", "1e-08", "inf".
std::string formatFloatLiteral(double V);

/// Attributes by name, ordered so that printing is deterministic.
using AttrMap = std::map<std::string, AttrValue>;

/// An attribute problem, with the attribute's name so the parser can point
/// at it (the column of `key=`).
class AttrError : public llvm::ErrorInfo<AttrError> {
public:
  static char ID;
  AttrError(std::string Attr, std::string Message)
      : Attr(std::move(Attr)), Message(std::move(Message)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  const std::string &attr() const { return Attr; }
  const std::string &text() const { return Message; }

private:
  std::string Attr;
  std::string Message;
};

inline llvm::Error attrError(const std::string &Attr, const llvm::Twine &Msg) {
  return llvm::make_error<AttrError>(Attr, Msg.str());
}

/// Reads attributes with type checking; errors are AttrErrors naming the
/// attribute. Used by op factories.
class AttrReader {
public:
  AttrReader(llvm::StringRef OpName, const AttrMap &Attrs)
      : OpName(OpName), Attrs(Attrs) {}

  bool has(llvm::StringRef Key) const { return Attrs.count(Key.str()); }
  llvm::Expected<int64_t> getInt(llvm::StringRef Key) const;
  llvm::Expected<int64_t> getInt(llvm::StringRef Key, int64_t Default) const;
  llvm::Expected<bool> getBool(llvm::StringRef Key, bool Default) const;
  /// getBool into Into, for factories that read several flags in a row.
  llvm::Error readBool(llvm::StringRef Key, bool Default, bool &Into) const;
  llvm::Expected<std::string> getIdent(llvm::StringRef Key) const;
  /// An int or a list of ints (`axis=1` and `axis=[0,1]` both work).
  llvm::Expected<std::vector<int64_t>> getIntList(llvm::StringRef Key) const;
  const AttrValue *get(llvm::StringRef Key) const;
  /// Fails on any attribute not in Known, listing the known ones.
  llvm::Error checkOnly(std::initializer_list<llvm::StringRef> Known) const;

private:
  std::string OpName;
  const AttrMap &Attrs;
};

} // namespace graphjit

#endif
