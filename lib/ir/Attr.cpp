//===- Attr.cpp - Op attributes ------------------------------------------===//

#include "graphjit/Attr.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace graphjit;
using llvm::Expected;

char AttrError::ID = 0;

std::string graphjit::formatFloatLiteral(double V) {
  if (std::isnan(V))
    return "nan";
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  // The shortest spelling that reads back as the same double.
  char Buf[64];
  for (int Precision = 1; Precision <= 17; ++Precision) {
    snprintf(Buf, sizeof Buf, "%.*g", Precision, V);
    if (std::strtod(Buf, nullptr) == V)
      break;
  }
  std::string R = Buf;
  if (R.find_first_of(".e") == std::string::npos)
    R += ".0";
  return R;
}

AttrValue AttrValue::floating(double V, std::string Spelling) {
  AttrValue A;
  A.K = Float;
  A.F = V;
  A.S = std::move(Spelling);
  return A;
}

AttrValue AttrValue::intList(const std::vector<int64_t> &V) {
  std::vector<AttrValue> Elts;
  for (int64_t I : V)
    Elts.push_back(integer(I));
  return list(std::move(Elts));
}

std::string AttrValue::str() const {
  switch (K) {
  case Int: return std::to_string(I);
  case Float: {
    if (!S.empty())
      return S;
    return formatFloatLiteral(F);
  }
  case Bool: return B ? "true" : "false";
  case Ident: {
    // A name, or text read from a string (composite's expr): quoted, with
    // the format's two escapes, unless it reads back as a name.
    bool Name = !S.empty() && (llvm::isAlpha(S[0]) || S[0] == '_') &&
                llvm::all_of(S, [](char C) {
                  return llvm::isAlnum(C) || C == '_';
                });
    if (Name)
      return S;
    std::string Q = "\"";
    for (char C : S) {
      if (C == '"' || C == '\\')
        Q += '\\';
      Q += C;
    }
    return Q + "\"";
  }
  case List: {
    std::string R = "[";
    for (size_t J = 0; J < Elts.size(); ++J) {
      if (J)
        R += ",";
      R += Elts[J].str();
    }
    return R + "]";
  }
  }
  return "";
}

bool AttrValue::operator==(const AttrValue &O) const {
  if (K != O.K)
    return false;
  switch (K) {
  case Int: return I == O.I;
  case Float: return F == O.F;
  case Bool: return B == O.B;
  case Ident: return S == O.S;
  case List: return Elts == O.Elts;
  }
  return false;
}

const AttrValue *AttrReader::get(llvm::StringRef Key) const {
  auto It = Attrs.find(Key.str());
  return It == Attrs.end() ? nullptr : &It->second;
}

Expected<int64_t> AttrReader::getInt(llvm::StringRef Key) const {
  const AttrValue *V = get(Key);
  if (!V)
    return attrError(Key.str(), "op '" + OpName + "' needs attribute '" +
                                    Key + "'");
  if (V->K != AttrValue::Int)
    return attrError(Key.str(), "attribute '" + Key + "' of '" + OpName +
                                    "' must be an integer, not '" + V->str() +
                                    "'");
  return V->I;
}

Expected<int64_t> AttrReader::getInt(llvm::StringRef Key,
                                     int64_t Default) const {
  if (!has(Key))
    return Default;
  return getInt(Key);
}

Expected<bool> AttrReader::getBool(llvm::StringRef Key, bool Default) const {
  const AttrValue *V = get(Key);
  if (!V)
    return Default;
  if (V->K != AttrValue::Bool)
    return attrError(Key.str(), "attribute '" + Key + "' of '" + OpName +
                                    "' must be true or false, not '" +
                                    V->str() + "'");
  return V->B;
}

llvm::Error AttrReader::readBool(llvm::StringRef Key, bool Default,
                                 bool &Into) const {
  Expected<bool> V = getBool(Key, Default);
  if (!V)
    return V.takeError();
  Into = *V;
  return llvm::Error::success();
}

Expected<std::string> AttrReader::getIdent(llvm::StringRef Key) const {
  const AttrValue *V = get(Key);
  if (!V)
    return attrError(Key.str(), "op '" + OpName + "' needs attribute '" +
                                    Key + "'");
  if (V->K != AttrValue::Ident)
    return attrError(Key.str(), "attribute '" + Key + "' of '" + OpName +
                                    "' must be a name, not '" + V->str() +
                                    "'");
  return V->S;
}

Expected<std::vector<int64_t>>
AttrReader::getIntList(llvm::StringRef Key) const {
  const AttrValue *V = get(Key);
  if (!V)
    return attrError(Key.str(), "op '" + OpName + "' needs attribute '" +
                                    Key + "'");
  if (V->K == AttrValue::Int)
    return std::vector<int64_t>{V->I};
  std::vector<int64_t> R;
  if (V->K == AttrValue::List) {
    for (const AttrValue &E : V->Elts) {
      if (E.K != AttrValue::Int)
        break;
      R.push_back(E.I);
    }
    if (R.size() == V->Elts.size())
      return R;
  }
  return attrError(Key.str(), "attribute '" + Key + "' of '" + OpName +
                                  "' must be an integer or a list of "
                                  "integers, not '" +
                                  V->str() + "'");
}

llvm::Error
AttrReader::checkOnly(std::initializer_list<llvm::StringRef> Known) const {
  for (const auto &[Key, Value] : Attrs) {
    if (llvm::is_contained(Known, Key))
      continue;
    std::string List;
    for (llvm::StringRef K : Known)
      List += (List.empty() ? "" : ", ") + K.str();
    return attrError(Key, "op '" + OpName + "' has no attribute '" + Key +
                              "'" +
                              (List.empty() ? std::string(" (it takes none)")
                                            : " (it takes: " + List + ")"));
  }
  return llvm::Error::success();
}
