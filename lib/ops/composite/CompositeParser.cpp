//===- CompositeParser.cpp - A Composite's spelling read back ------------===//
//
// parseComposite(): the recursive-descent parser of the expressions
// CompositeScalar::str() writes, so that a printed graph with fused
// Elemwise Applies (`composite(x, y, expr="exp(i0) / (i0 + i1)")`) parses
// back to the same ops. The text becomes a small tree first; the tree
// becomes steps in post-order with identical subtrees made one step.
//
//===----------------------------------------------------------------------===//

#include "ops/composite/CompositeScalar.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include <map>
#include <tuple>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// Deeper nesting is refused rather than risking the stack.
constexpr unsigned MaxDepth = 200;

struct Node {
  int Input = -1; ///< >= 0: the input i<Input>; else an operation.
  ScalarOpKind Kind = ScalarOpKind::Add;
  DType CastTo = DType::F64;
  std::vector<unsigned> Args; ///< Into the parser's node arena.
};

class ExprParser {
public:
  ExprParser(StringRef Text, unsigned NumInputs, bool EveryInputUsed)
      : Text(Text), NumInputs(NumInputs), EveryInputUsed(EveryInputUsed) {}

  Expected<CompositeScalar> run();

private:
  StringRef Text;
  unsigned NumInputs;
  bool EveryInputUsed;
  size_t Pos = 0;
  std::vector<Node> Nodes;
  std::string Problem; ///< The first error; parsing stops there.

  bool fail(const llvm::Twine &Why) {
    if (Problem.empty())
      Problem = "at column " + std::to_string(Pos + 1) + ": " + Why.str();
    return false;
  }
  void skipSpace() {
    while (Pos < Text.size() && llvm::isSpace(Text[Pos]))
      ++Pos;
  }
  /// Consumes Tok if the text continues with it (after spaces).
  bool accept(StringRef Tok) {
    skipSpace();
    if (!Text.substr(Pos).starts_with(Tok))
      return false;
    Pos += Tok.size();
    return true;
  }
  bool expect(StringRef Tok) {
    if (accept(Tok))
      return true;
    return fail("expected '" + Tok + "', found " + found());
  }
  std::string found() {
    skipSpace();
    if (Pos >= Text.size())
      return "the end";
    return "'" + Text.substr(Pos, 1).str() + "'";
  }
  StringRef identifier() {
    skipSpace();
    size_t Start = Pos;
    if (Pos < Text.size() && (llvm::isAlpha(Text[Pos]) || Text[Pos] == '_'))
      while (Pos < Text.size() &&
             (llvm::isAlnum(Text[Pos]) || Text[Pos] == '_'))
        ++Pos;
    return Text.slice(Start, Pos);
  }
  unsigned make(Node N) {
    Nodes.push_back(std::move(N));
    return Nodes.size() - 1;
  }
  unsigned op(ScalarOpKind K, std::vector<unsigned> Args) {
    Node N;
    N.Kind = K;
    N.Args = std::move(Args);
    return make(std::move(N));
  }

  bool expr(unsigned &Out, unsigned Depth);
  bool additive(unsigned &Out, unsigned Depth);
  bool term(unsigned &Out, unsigned Depth);
  bool unary(unsigned &Out, unsigned Depth);
  bool power(unsigned &Out, unsigned Depth);
  bool primary(unsigned &Out, unsigned Depth);
  bool call(StringRef Name, unsigned &Out, unsigned Depth);
};

// expr := additive (cmp additive)?  -- comparisons do not chain.
bool ExprParser::expr(unsigned &Out, unsigned Depth) {
  if (Depth > MaxDepth)
    return fail("the expression nests deeper than " + llvm::Twine(MaxDepth));
  if (!additive(Out, Depth))
    return false;
  static const std::pair<StringRef, ScalarOpKind> Cmps[] = {
      {"==", ScalarOpKind::Eq}, {"!=", ScalarOpKind::Neq},
      {"<=", ScalarOpKind::Le}, {">=", ScalarOpKind::Ge},
      {"<", ScalarOpKind::Lt},  {">", ScalarOpKind::Gt}};
  for (auto [Tok, K] : Cmps) {
    if (!accept(Tok))
      continue;
    unsigned Rhs;
    if (!additive(Rhs, Depth))
      return false;
    Out = op(K, {Out, Rhs});
    for (auto [Tok2, K2] : Cmps)
      if (accept(Tok2))
        return fail("comparisons do not chain; add parentheses");
    return true;
  }
  return true;
}

// additive := term (('+' | '-') term)*; an unbroken run of '+' is one
// n-ary add, as str() writes n-ary adds.
bool ExprParser::additive(unsigned &Out, unsigned Depth) {
  if (!term(Out, Depth))
    return false;
  bool OpenAdd = false;
  for (;;) {
    bool Plus = accept("+");
    if (!Plus && !accept("-"))
      return true;
    unsigned Rhs;
    if (!term(Rhs, Depth))
      return false;
    if (Plus && OpenAdd) {
      Nodes[Out].Args.push_back(Rhs);
      continue;
    }
    Out = op(Plus ? ScalarOpKind::Add : ScalarOpKind::Sub, {Out, Rhs});
    OpenAdd = Plus;
  }
}

// term := unary (('*' | '//' | '/' | '%') unary)*; '*' runs as '+' runs.
bool ExprParser::term(unsigned &Out, unsigned Depth) {
  if (!unary(Out, Depth))
    return false;
  bool OpenMul = false;
  for (;;) {
    skipSpace();
    // '**' belongs to power().
    if (Text.substr(Pos).starts_with("**"))
      return fail("unexpected '**'");
    ScalarOpKind K;
    if (accept("*"))
      K = ScalarOpKind::Mul;
    else if (accept("//"))
      K = ScalarOpKind::IntDiv;
    else if (accept("/"))
      K = ScalarOpKind::TrueDiv;
    else if (accept("%"))
      K = ScalarOpKind::Mod;
    else
      return true;
    unsigned Rhs;
    if (!unary(Rhs, Depth))
      return false;
    if (K == ScalarOpKind::Mul && OpenMul) {
      Nodes[Out].Args.push_back(Rhs);
      continue;
    }
    Out = op(K, {Out, Rhs});
    OpenMul = K == ScalarOpKind::Mul;
  }
}

// unary := '-' unary | power  -- as in Python, -a ** b is -(a ** b).
bool ExprParser::unary(unsigned &Out, unsigned Depth) {
  if (Depth > MaxDepth)
    return fail("the expression nests deeper than " + llvm::Twine(MaxDepth));
  if (accept("-")) {
    unsigned X;
    if (!unary(X, Depth + 1))
      return false;
    Out = op(ScalarOpKind::Neg, {X});
    return true;
  }
  return power(Out, Depth);
}

// power := primary ('**' unary)?  -- right-associative.
bool ExprParser::power(unsigned &Out, unsigned Depth) {
  if (!primary(Out, Depth))
    return false;
  if (!accept("**"))
    return true;
  unsigned Rhs;
  if (!unary(Rhs, Depth + 1))
    return false;
  Out = op(ScalarOpKind::Pow, {Out, Rhs});
  return true;
}

bool ExprParser::primary(unsigned &Out, unsigned Depth) {
  if (accept("("))
    return expr(Out, Depth + 1) && expect(")");
  StringRef Name = identifier();
  if (Name.empty())
    return fail("expected an input (i0, i1, ...), a function or '(', "
                "found " +
                found());
  unsigned I;
  if (Name.size() > 1 && Name[0] == 'i' &&
      llvm::all_of(Name.drop_front(), llvm::isDigit)) {
    if (Name.drop_front().getAsInteger(10, I) || I >= NumInputs) {
      std::string Has = std::to_string(NumInputs) + " inputs";
      if (NumInputs)
        Has += " (i0 to i" + std::to_string(NumInputs - 1) + ")";
      return fail("'" + Name + "' is not an input: the composite has " + Has);
    }
    Node N;
    N.Input = int(I);
    Out = make(std::move(N));
    return true;
  }
  return call(Name, Out, Depth);
}

// Cast{float32}(x), or a scalar op by its graph-format name: exp(x),
// switch(c, a, b), add(a, b, c).
bool ExprParser::call(StringRef Name, unsigned &Out, unsigned Depth) {
  Node N;
  if (Name == "Cast") {
    if (!expect("{"))
      return false;
    StringRef D = identifier();
    std::optional<DType> T = parseDType(D);
    for (DType C : AllDTypes)
      if (dtypeNumpyName(C) == D)
        T = C;
    if (!T)
      return fail("unknown dtype '" + D + "' in Cast{...}");
    if (!expect("}"))
      return false;
    N.Kind = ScalarOpKind::Cast;
    N.CastTo = *T;
  } else {
    std::optional<ScalarOpKind> K = lookupScalarOp(Name);
    if (!K)
      return fail("unknown scalar operation '" + Name + "'");
    if (*K == ScalarOpKind::Cast)
      return fail("a cast is written Cast{float32}(x)");
    N.Kind = *K;
  }
  if (!expect("("))
    return false;
  do {
    unsigned A;
    if (!expr(A, Depth + 1))
      return false;
    N.Args.push_back(A);
  } while (accept(","));
  if (!expect(")"))
    return false;
  Out = make(std::move(N));
  return true;
}

Expected<CompositeScalar> ExprParser::run() {
  unsigned Root;
  bool Ok = expr(Root, 0);
  if (Ok) {
    skipSpace();
    if (Pos < Text.size())
      Ok = fail("unexpected " + found() + " after the expression");
  }
  if (!Ok)
    return llvm::createStringError("cannot parse the composite expression \"" +
                                   Text + "\" " + Problem);
  if (Nodes[Root].Input >= 0)
    return llvm::createStringError("the composite expression \"" + Text +
                                   "\" computes nothing (it is an input)");
  // Post-order, each distinct (operation, operands) once. Node ids grow
  // towards the root except for the arguments an n-ary run appended, so
  // the order is found by a walk, not by id.
  CompositeScalar C;
  C.NumInputs = NumInputs;
  using Key = std::tuple<unsigned, unsigned, std::vector<unsigned>>;
  std::map<Key, unsigned> Made;
  std::vector<int> ArgOf(Nodes.size(), -1);
  std::vector<std::pair<unsigned, bool>> Work{{Root, false}};
  while (!Work.empty()) {
    auto [Id, Expanded] = Work.back();
    Work.pop_back();
    const Node &N = Nodes[Id];
    if (ArgOf[Id] >= 0)
      continue;
    if (N.Input >= 0) {
      ArgOf[Id] = N.Input;
      continue;
    }
    if (!Expanded) {
      Work.push_back({Id, true});
      for (unsigned A : N.Args)
        Work.push_back({A, false});
      continue;
    }
    std::vector<unsigned> Args;
    for (unsigned A : N.Args)
      Args.push_back(unsigned(ArgOf[A]));
    Key K{unsigned(N.Kind), unsigned(N.CastTo), Args};
    auto [It, New] = Made.try_emplace(K, NumInputs + C.Steps.size());
    if (New)
      C.Steps.push_back(
          {N.Kind, N.CastTo, llvm::SmallVector<unsigned, 3>(Args.begin(),
                                                            Args.end())});
    ArgOf[Id] = int(It->second);
  }
  if (Error E = checkComposite(C, EveryInputUsed))
    return llvm::createStringError("the composite expression \"" + Text +
                                   "\": " + llvm::toString(std::move(E)));
  return C;
}

} // namespace

Expected<CompositeScalar> graphjit::parseComposite(StringRef Expr,
                                                   unsigned NumInputs,
                                                   bool EveryInputUsed) {
  return ExprParser(Expr, NumInputs, EveryInputUsed).run();
}
