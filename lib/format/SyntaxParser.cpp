//===- SyntaxParser.cpp - Tokens to syntax tree ---------------------------===//
//
// A recursive-descent parser over the token vector. Each parse function
// reports at most one error and returns false; its caller then skips to a
// point where parsing can resume (the next statement of the function or the
// next `func`/`shared`). Nesting of calls and lists is limited to
// MaxNesting, so no input can exhaust the stack.
//
//===----------------------------------------------------------------------===//

#include "SyntaxParser.h"
#include "graphjit/DType.h"
#include <cmath>
#include <cstdlib>

using namespace graphjit;
using namespace graphjit::format;
using llvm::SMLoc;

namespace {

/// A dim as written, with where, for the checks on shared variables.
struct DimSyntax {
  Dim D;
  SMLoc Loc;
};

class SyntaxParser {
public:
  SyntaxParser(const std::vector<Token> &Toks, Diagnostics &Diags)
      : Toks(Toks), Diags(Diags) {}
  ModuleAST run();

private:
  const std::vector<Token> &Toks;
  Diagnostics &Diags;
  size_t P = 0;
  /// The first token of the statement or item being parsed.
  size_t ItemStart = 0;
  ModuleAST Mod;

  const Token &tok() const { return Toks[P]; }
  const Token &ahead(size_t N) const {
    return Toks[std::min(P + N, Toks.size() - 1)];
  }
  void consume() {
    if (P + 1 < Toks.size())
      ++P;
  }
  bool atStmtEnd() const {
    return tok().StartsLine || tok().is(Token::RBrace) || tok().is(Token::Eof);
  }
  bool atTopLevelKeyword() const {
    return tok().StartsLine &&
           (tok().isIdent("func") || tok().isIdent("shared")) &&
           ahead(1).is(Token::Ident);
  }

  /// Reports "expected What, got ..." (or the lexer's message) at tok().
  bool fail(llvm::StringRef What);
  bool expect(Token::Kind K, llvm::StringRef What);
  bool expectIdent(llvm::StringRef What, NameRef &Out);
  void recoverTopLevel();
  void recoverStatement();

  bool parseInt(const Token &T, int64_t &Out);
  bool parseNumber(const Token &T, NumberLit &Out);
  bool parseType(TensorType &Out, bool &TypeOK, std::vector<DimSyntax> &Dims);
  bool parseFunction();
  bool parseInputs(FuncDecl &F);
  bool parseOutputs(FuncDecl &F);
  void parseBody(FuncDecl &F, SMLoc OpenLoc);
  bool parseStatement(FuncDecl &F);
  std::unique_ptr<Expr> parseExpr(unsigned Depth);
  bool parseCallArgs(Expr &Call, unsigned Depth);
  bool parseAttrValue(AttrValue &Out, unsigned Depth);
  bool checkDepth(unsigned Depth);
  bool parseShared();
  bool parseInit(SharedDecl &S);
  bool parseRandomInit(SharedDecl &S, llvm::StringRef Kind);
  bool checkShared(const SharedDecl &S, const std::vector<DimSyntax> &Dims,
                   SMLoc InitLoc);
};

} // namespace

bool SyntaxParser::fail(llvm::StringRef What) {
  const Token &T = tok();
  if (T.is(Token::Error)) {
    Diags.error(T.ErrLoc, T.Value);
  } else if (T.StartsLine && !T.is(Token::Eof) && P > ItemStart) {
    // Something is missing at the end of a line (a ')', say): point there,
    // not at the next line's first token.
    llvm::StringRef Prev = Toks[P - 1].Text;
    Diags.error(llvm::SMLoc::getFromPointer(Prev.end()),
                "expected " + What + ", got the end of the line");
  } else {
    Diags.error(T.loc(), "expected " + What + ", got " + describeToken(T));
  }
  return false;
}

bool SyntaxParser::expect(Token::Kind K, llvm::StringRef What) {
  if (!tok().is(K))
    return fail(What);
  consume();
  return true;
}

bool SyntaxParser::expectIdent(llvm::StringRef What, NameRef &Out) {
  if (!tok().is(Token::Ident))
    return fail(What);
  Out.Name = tok().Text.str();
  Out.Loc = tok().loc();
  consume();
  return true;
}

// Skips to the next `func` or `shared` that starts a line (which may be
// the token that failed, when the broken item ended early), or past a '}'
// that starts a line: the end of a function whose header did not parse.
void SyntaxParser::recoverTopLevel() {
  if (P == ItemStart && !tok().is(Token::Eof))
    consume();
  while (!tok().is(Token::Eof) && !atTopLevelKeyword()) {
    bool End = tok().StartsLine && tok().is(Token::RBrace);
    consume();
    if (End)
      return;
  }
}

// Skips to the next line that can start a statement: one outside the
// brackets the broken statement opened, or one that looks like `NAME =`,
// `NAME,` or `update NAME`, so that a missing ')' does not swallow the
// rest of the function. Stops at a '}' that starts a line and at a
// top-level keyword.
void SyntaxParser::recoverStatement() {
  int Depth = 0;
  // The statement's first token is skipped (it is what failed to start a
  // statement); a later one that starts a line may start the next.
  bool First = P == ItemStart;
  while (!tok().is(Token::Eof)) {
    const Token &T = tok();
    if (!First && T.StartsLine) {
      bool LooksLikeStmt =
          T.is(Token::Ident) &&
          (ahead(1).is(Token::Equal) || ahead(1).is(Token::Comma) ||
           (T.Text == "update" && ahead(1).is(Token::Ident)));
      if (Depth <= 0 || LooksLikeStmt || T.is(Token::RBrace) ||
          atTopLevelKeyword())
        return;
    }
    First = false;
    if (T.is(Token::LParen) || T.is(Token::LBracket) || T.is(Token::LBrace))
      ++Depth;
    else if (T.is(Token::RParen) || T.is(Token::RBracket))
      --Depth;
    else if (T.is(Token::RBrace) && --Depth < 0)
      return; // the function's own closing brace
    consume();
  }
}

bool SyntaxParser::parseInt(const Token &T, int64_t &Out) {
  if (T.Text.getAsInteger(10, Out)) {
    Diags.error(T.loc(), "integer literal " + describeToken(T) +
                             " is out of range for i64");
    return false;
  }
  return true;
}

bool SyntaxParser::parseNumber(const Token &T, NumberLit &Out) {
  Out.Spelling = T.Text.str();
  Out.IsFloat = T.is(Token::Float);
  if (!Out.IsFloat)
    return parseInt(T, Out.I);
  Out.F = std::strtod(Out.Spelling.c_str(), nullptr);
  if (std::isinf(Out.F)) {
    Diags.error(T.loc(), "number literal " + describeToken(T) +
                             " is out of range for f64");
    return false;
  }
  return true;
}

static std::string unknownDTypeMessage(llvm::StringRef Name) {
  std::string Msg = "unknown dtype '" + Name.str() + "'";
  for (DType T : AllDTypes)
    if (dtypeNumpyName(T) == Name)
      return Msg + "; did you mean '" + dtypeName(T).str() + "'?";
  return Msg + " (the dtypes are f32 f64 i8 i16 i32 i64 u8 bool)";
}

// DTYPE[DIMS]. A bad dtype or dim is reported but is not a syntax error:
// TypeOK is cleared and parsing goes on.
bool SyntaxParser::parseType(TensorType &Out, bool &TypeOK,
                             std::vector<DimSyntax> &Dims) {
  if (!tok().is(Token::Ident))
    return fail("a type such as f64[n]");
  std::optional<DType> T = parseDType(tok().Text);
  if (!T && tok().StartsLine)
    return fail("a type such as f64[n]");
  if (!T) {
    Diags.error(tok().loc(), unknownDTypeMessage(tok().Text));
    TypeOK = false;
  }
  Out.Dtype = T.value_or(DType::F64);
  consume();
  if (!expect(Token::LBracket, "'[' after the dtype"))
    return false;
  if (tok().is(Token::RBracket)) {
    consume();
    return true;
  }
  for (;;) {
    const Token &D = tok();
    if (D.is(Token::Ident)) {
      Out.Dims.push_back(Dim::symbolic(D.Text.str()));
    } else if (D.is(Token::Int)) {
      int64_t N = 0;
      if (!parseInt(D, N)) {
        TypeOK = false;
      } else if (N < 0) {
        Diags.error(D.loc(), "dimension " + describeToken(D) + " is negative");
        TypeOK = false;
      }
      Out.Dims.push_back(Dim::known(N < 0 ? 0 : N));
    } else {
      return fail("a dimension (an integer or a name)");
    }
    Dims.push_back({Out.Dims.back(), D.loc()});
    consume();
    if (tok().is(Token::RBracket)) {
      consume();
      return true;
    }
    if (!expect(Token::Comma, "',' or ']' in the dims"))
      return false;
  }
}

ModuleAST SyntaxParser::run() {
  while (!tok().is(Token::Eof)) {
    ItemStart = P;
    bool OK;
    if (tok().isIdent("func"))
      OK = parseFunction();
    else if (tok().isIdent("shared"))
      OK = parseShared();
    else
      OK = fail("'func' or 'shared'");
    if (!OK)
      recoverTopLevel();
  }
  return std::move(Mod);
}

bool SyntaxParser::parseFunction() {
  Mod.SawFunc = true;
  consume(); // func
  FuncDecl F;
  if (!expectIdent("a function name", F.Name) ||
      !expect(Token::LParen, "'(' after the function name") ||
      !parseInputs(F) || !parseOutputs(F))
    return false;
  SMLoc OpenLoc = tok().loc();
  if (!expect(Token::LBrace, "'{' to start the function body"))
    return false;
  parseBody(F, OpenLoc);
  Mod.Functions.push_back(std::move(F));
  return true;
}

bool SyntaxParser::parseInputs(FuncDecl &F) {
  if (tok().is(Token::RParen)) {
    consume();
    return true;
  }
  for (;;) {
    InputDecl In;
    std::vector<DimSyntax> Dims;
    if (!expectIdent("an input name", In.Name) ||
        !expect(Token::Colon,
                "':' and the type of input '" + In.Name.Name + "'") ||
        !parseType(In.Type, In.TypeOK, Dims))
      return false;
    F.Inputs.push_back(std::move(In));
    if (tok().is(Token::RParen)) {
      consume();
      return true;
    }
    if (!expect(Token::Comma, "',' or ')' after an input"))
      return false;
  }
}

bool SyntaxParser::parseOutputs(FuncDecl &F) {
  if (!expect(Token::Arrow, "'->' and the outputs") ||
      !expect(Token::LParen, "'(' to start the outputs"))
    return false;
  if (tok().is(Token::RParen)) {
    consume();
    return true;
  }
  for (;;) {
    NameRef Out;
    if (!expectIdent("an output name", Out))
      return false;
    F.Outputs.push_back(std::move(Out));
    if (tok().is(Token::RParen)) {
      consume();
      return true;
    }
    if (!expect(Token::Comma, "',' or ')' after an output"))
      return false;
  }
}

void SyntaxParser::parseBody(FuncDecl &F, SMLoc OpenLoc) {
  for (;;) {
    if (tok().is(Token::RBrace)) {
      F.CloseLoc = tok().loc();
      consume();
      return;
    }
    if (tok().is(Token::Eof) || atTopLevelKeyword()) {
      // A missing '}': the function ends here and the next item is parsed.
      F.CloseLoc = tok().loc();
      Diags.error(tok().loc(), "expected '}' to end function '" + F.Name.Name +
                                   "', got " + describeToken(tok()));
      Diags.note(OpenLoc, "the function body starts here");
      return;
    }
    bool HadErrors = F.HadErrors;
    if (!parseStatement(F))
      recoverStatement();
    F.HadErrors |= HadErrors;
  }
}

bool SyntaxParser::parseStatement(FuncDecl &F) {
  ItemStart = P;
  F.HadErrors = true; // until the statement is complete
  Stmt S;
  auto Poison = [&] {
    for (const NameRef &N : S.Names)
      F.Poisoned.insert(N.Name);
    return false;
  };
  if (tok().isIdent("update") && ahead(1).is(Token::Ident)) {
    S.IsUpdate = true;
    consume();
    S.Names.push_back({tok().Text.str(), tok().loc()});
    consume();
  } else {
    for (;;) {
      NameRef N;
      if (!expectIdent(S.Names.empty() ? "a statement (NAME = EXPR or "
                                         "update NAME = EXPR)"
                                       : "a name after ','",
                       N))
        return Poison();
      S.Names.push_back(std::move(N));
      if (!tok().is(Token::Comma))
        break;
      consume();
    }
  }
  S.EqualLoc = tok().loc();
  if (!expect(Token::Equal, "'='"))
    return S.IsUpdate ? false : Poison();
  S.Value = parseExpr(1);
  if (!S.Value)
    return S.IsUpdate ? false : Poison();
  F.Body.push_back(std::move(S));
  if (!atStmtEnd())
    return fail("the end of the line after the statement");
  F.HadErrors = false;
  return true;
}

bool SyntaxParser::checkDepth(unsigned Depth) {
  if (Depth <= MaxNesting)
    return true;
  Diags.error(tok().loc(), "expression nested too deeply (more than " +
                               llvm::Twine(MaxNesting) +
                               " levels of calls and lists)");
  return false;
}

std::unique_ptr<Expr> SyntaxParser::parseExpr(unsigned Depth) {
  if (!checkDepth(Depth))
    return nullptr;
  auto E = std::make_unique<Expr>();
  const Token &T = tok();
  E->Loc = T.loc();
  if (T.is(Token::Int) || T.is(Token::Float)) {
    E->K = Expr::Number;
    if (!parseNumber(T, E->Num))
      return nullptr;
    consume();
    return E;
  }
  if (!T.is(Token::Ident)) {
    fail("an expression (a name, a number or a call)");
    return nullptr;
  }
  E->Name = T.Text.str();
  consume();
  if (!tok().is(Token::LParen)) {
    E->K = Expr::NameRef;
    return E;
  }
  E->K = Expr::Call;
  consume();
  if (!parseCallArgs(*E, Depth))
    return nullptr;
  return E;
}

bool SyntaxParser::parseCallArgs(Expr &Call, unsigned Depth) {
  if (tok().is(Token::RParen)) {
    consume();
    return true;
  }
  for (;;) {
    if (tok().is(Token::Ident) && ahead(1).is(Token::Equal)) {
      AttrArg A;
      A.Key = tok().Text.str();
      A.KeyLoc = tok().loc();
      for (const AttrArg &Prev : Call.Attrs)
        if (Prev.Key == A.Key) {
          Diags.error(A.KeyLoc, "attribute '" + A.Key + "' is given twice");
          Diags.note(Prev.KeyLoc, "first given here");
          return false;
        }
      consume();
      consume();
      if (!parseAttrValue(A.Value, Depth + 1))
        return false;
      Call.Attrs.push_back(std::move(A));
    } else {
      if (!Call.Attrs.empty()) {
        Diags.error(tok().loc(), "positional argument after an attribute; "
                                 "write the inputs of '" +
                                     Call.Name + "' before key=value");
        return false;
      }
      std::unique_ptr<Expr> Arg = parseExpr(Depth + 1);
      if (!Arg)
        return false;
      Call.Args.push_back(std::move(Arg));
    }
    if (tok().is(Token::RParen)) {
      consume();
      return true;
    }
    if (!expect(Token::Comma, "',' or ')' in the call to '" + Call.Name + "'"))
      return false;
  }
}

bool SyntaxParser::parseAttrValue(AttrValue &Out, unsigned Depth) {
  if (!checkDepth(Depth))
    return false;
  const Token &T = tok();
  switch (T.K) {
  case Token::Int: {
    int64_t I;
    if (!parseInt(T, I))
      return false;
    Out = AttrValue::integer(I);
    break;
  }
  case Token::Float: {
    NumberLit N;
    if (!parseNumber(T, N))
      return false;
    Out = AttrValue::floating(N.F, N.Spelling);
    break;
  }
  case Token::Ident:
    if (ahead(1).is(Token::LParen)) {
      Diags.error(T.loc(), "an attribute value is a number, true, false, a "
                           "name or a list, not a call");
      return false;
    }
    if (T.Text == "true" || T.Text == "false")
      Out = AttrValue::boolean(T.Text == "true");
    else
      Out = AttrValue::ident(T.Text.str());
    break;
  case Token::String:
    // Text for an op to read (composite's expr); kept as an Ident, which
    // prints quoted when it is not a name.
    Out = AttrValue::ident(T.Value);
    break;
  case Token::LBracket: {
    consume();
    std::vector<AttrValue> Elts;
    if (!tok().is(Token::RBracket)) {
      for (;;) {
        AttrValue E;
        if (!parseAttrValue(E, Depth + 1))
          return false;
        Elts.push_back(std::move(E));
        if (tok().is(Token::RBracket))
          break;
        if (!expect(Token::Comma, "',' or ']' in the list"))
          return false;
      }
    }
    Out = AttrValue::list(std::move(Elts));
    break;
  }
  default:
    return fail("an attribute value (a number, true, false, a name or a "
                "list)");
  }
  consume();
  return true;
}

bool SyntaxParser::parseShared() {
  consume(); // shared
  SharedDecl S;
  bool TypeOK = true;
  std::vector<DimSyntax> Dims;
  // A declaration that does not parse still declares its name, so that its
  // uses are not reported as undefined too.
  auto Poison = [&] {
    Mod.PoisonedShared.insert(S.Name.Name);
    return false;
  };
  if (!expectIdent("a shared variable name", S.Name))
    return false;
  if (!expect(Token::Colon,
              "':' and the type of shared variable '" + S.Name.Name + "'") ||
      !parseType(S.Type, TypeOK, Dims) ||
      !expect(Token::Equal,
              "'=' and the initial value of '" + S.Name.Name + "'"))
    return Poison();
  SMLoc InitLoc = tok().loc();
  if (!parseInit(S))
    return Poison();
  if (!atStmtEnd()) {
    Poison();
    return fail("the end of the line after the shared declaration");
  }
  if (!TypeOK || !checkShared(S, Dims, InitLoc)) {
    Poison();
    return true; // reported; the syntax was fine, so no recovery needed
  }
  Mod.Shared.push_back(std::move(S));
  return true;
}

bool SyntaxParser::parseInit(SharedDecl &S) {
  const Token &T = tok();
  if (T.is(Token::Int) || T.is(Token::Float)) {
    NumberLit N;
    if (!parseNumber(T, N))
      return false;
    S.Init.K = SharedInit::Number;
    S.Init.A = N.IsFloat ? N.F : double(N.I);
    S.Init.Spelling = N.Spelling;
    consume();
    return true;
  }
  if (!T.is(Token::Ident))
    return fail("an initial value (zeros, ones, a number, uniform(...), "
                "normal(...) or npy(\"FILE.npy\"))");
  if (T.Text == "zeros" || T.Text == "ones") {
    S.Init.K = T.Text == "zeros" ? SharedInit::Zeros : SharedInit::Ones;
    consume();
    return true;
  }
  if (T.Text == "uniform" || T.Text == "normal")
    return parseRandomInit(S, T.Text);
  if (T.Text == "npy") {
    consume();
    if (!expect(Token::LParen, "'(' after npy"))
      return false;
    if (!tok().is(Token::String))
      return fail("a file name in quotes, as in npy(\"w.npy\")");
    SMLoc PathLoc = tok().loc();
    S.Init.K = SharedInit::Npy;
    S.Init.Path = tok().Value;
    consume();
    if (!expect(Token::RParen, "')' after the file name"))
      return false;
    if (S.Init.Path.empty()) {
      Diags.error(PathLoc, "npy() needs a file name");
      return false;
    }
    return true;
  }
  if (T.StartsLine)
    return fail("an initial value");
  Diags.error(T.loc(), "unknown initialiser '" + T.Text +
                           "'; expected zeros, ones, a number, "
                           "uniform(LOW, HIGH, seed=S), "
                           "normal(MEAN, STD, seed=S) or npy(\"FILE.npy\")");
  return false;
}

// uniform(LOW, HIGH, seed=S) and normal(MEAN, STD, seed=S); the seed may be
// left out (0).
bool SyntaxParser::parseRandomInit(SharedDecl &S, llvm::StringRef Kind) {
  bool IsUniform = Kind == "uniform";
  S.Init.K = IsUniform ? SharedInit::Uniform : SharedInit::Normal;
  std::string Name = Kind.str();
  consume();
  if (!expect(Token::LParen, "'(' after " + Name))
    return false;
  double *Params[] = {&S.Init.A, &S.Init.B};
  const char *ParamNames[] = {IsUniform ? "LOW" : "MEAN",
                              IsUniform ? "HIGH" : "STD"};
  for (unsigned I = 0; I < 2; ++I) {
    if (I && !expect(Token::Comma, "',' and " + std::string(ParamNames[I])))
      return false;
    if (!tok().is(Token::Int) && !tok().is(Token::Float))
      return fail(std::string(ParamNames[I]) + " (a number) in " + Name + "(" +
                  ParamNames[0] + ", " + ParamNames[1] + ", seed=S)");
    NumberLit N;
    if (!parseNumber(tok(), N))
      return false;
    *Params[I] = N.IsFloat ? N.F : double(N.I);
    consume();
  }
  if (tok().is(Token::Comma)) {
    consume();
    if (!tok().is(Token::Ident) || !ahead(1).is(Token::Equal))
      return fail("seed=S");
    if (tok().Text != "seed") {
      Diags.error(tok().loc(), Name + "() has no argument '" + tok().Text +
                                   "'; it takes " + ParamNames[0] + ", " +
                                   ParamNames[1] + " and seed=S");
      return false;
    }
    consume();
    consume();
    if (!tok().is(Token::Int) || tok().Text.getAsInteger(10, S.Init.Seed)) {
      if (tok().is(Token::Error) || tok().is(Token::Eof))
        return fail("a seed");
      Diags.error(tok().loc(), "seed must be an integer from 0 to "
                               "18446744073709551615, got " +
                                   describeToken(tok()));
      return false;
    }
    consume();
  }
  return expect(Token::RParen, "')' to end " + Name + "(...)");
}

// What the declaration alone can tell: dims must be known, and the
// initial value must make sense for the dtype.
bool SyntaxParser::checkShared(const SharedDecl &S,
                               const std::vector<DimSyntax> &Dims,
                               SMLoc InitLoc) {
  for (const DimSyntax &D : Dims)
    if (!D.D.isKnown()) {
      Diags.error(D.Loc, "shared variable '" + S.Name.Name +
                             "' needs known dims, but '" + D.D.Symbol +
                             "' is symbolic");
      return false;
    }
  const SharedInit &I = S.Init;
  DType T = S.Type.Dtype;
  std::string TypeName = dtypeName(T).str();
  if (I.K == SharedInit::Number) {
    double V = I.A;
    bool Fits = true;
    if (isBool(T))
      Fits = V == 0 || V == 1;
    else if (isInteger(T)) {
      // [Lo, End) of each integer dtype; both are exact doubles.
      double Lo = T == DType::U8    ? 0
                  : T == DType::I8  ? -128
                  : T == DType::I16 ? -32768
                  : T == DType::I32 ? -2147483648.0
                                    : -9223372036854775808.0;
      double End = T == DType::U8    ? 256
                   : T == DType::I8  ? 128
                   : T == DType::I16 ? 32768
                   : T == DType::I32 ? 2147483648.0
                                     : 9223372036854775808.0;
      Fits = std::trunc(V) == V && V >= Lo && V < End;
    } else if (T == DType::F32) {
      Fits = std::fabs(V) <= 3.4028234663852886e38;
    }
    if (!Fits) {
      Diags.error(InitLoc, "initial value " + I.Spelling + " does not fit " +
                               TypeName + ", the dtype of '" + S.Name.Name +
                               "'");
      return false;
    }
  }
  if (I.K == SharedInit::Uniform && I.A > I.B) {
    Diags.error(InitLoc, "uniform(LOW, HIGH): LOW is above HIGH");
    return false;
  }
  if (I.K == SharedInit::Normal && I.B < 0) {
    Diags.error(InitLoc, "normal(MEAN, STD): STD is negative");
    return false;
  }
  return true;
}

ModuleAST format::parseSyntax(const std::vector<Token> &Tokens,
                              Diagnostics &Diags) {
  return SyntaxParser(Tokens, Diags).run();
}
