//===- Npy.cpp - NumPy .npy files ----------------------------------------===//
//
// The header is a Python dict literal; we read exactly the three keys NumPy
// writes ('descr', 'fortran_order', 'shape') with a small scanner rather
// than a Python parser, and reject anything we do not understand.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Npy.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "ir/FileReader.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace graphjit;
using llvm::Expected;
using llvm::StringRef;

static llvm::Error npyError(StringRef Name, const llvm::Twine &Why) {
  return llvm::createStringError(Name + ": not a usable .npy file: " + Why);
}

static std::optional<DType> dtypeFromDescr(StringRef Descr) {
  if (Descr.size() < 2)
    return std::nullopt;
  StringRef Code = Descr.drop_front();
  static const struct {
    const char *Code;
    DType T;
  } Table[] = {{"f8", DType::F64}, {"f4", DType::F32}, {"i8", DType::I64},
               {"i4", DType::I32}, {"i2", DType::I16}, {"i1", DType::I8},
               {"u1", DType::U8},  {"b1", DType::Bool}};
  for (const auto &E : Table)
    if (Code == E.Code)
      return E.T;
  return std::nullopt;
}

static const char *descrOf(DType T) {
  switch (T) {
  case DType::F64: return "<f8";
  case DType::F32: return "<f4";
  case DType::I64: return "<i8";
  case DType::I32: return "<i4";
  case DType::I16: return "<i2";
  case DType::I8: return "|i1";
  case DType::U8: return "|u1";
  case DType::Bool: return "|b1";
  }
  return "";
}

namespace {
/// Scans the header dict: {'descr': '<f8', 'fortran_order': False,
/// 'shape': (3, 4), }
class HeaderScanner {
public:
  explicit HeaderScanner(StringRef Text) : Rest(Text) {}

  void skipSpace() { Rest = Rest.ltrim(" \t\n\r"); }
  bool consume(char C) {
    skipSpace();
    if (!Rest.starts_with(StringRef(&C, 1)))
      return false;
    Rest = Rest.drop_front();
    return true;
  }
  std::optional<std::string> quoted() {
    skipSpace();
    if (Rest.empty() || (Rest[0] != '\'' && Rest[0] != '"'))
      return std::nullopt;
    char Q = Rest[0];
    size_t End = Rest.find(Q, 1);
    if (End == StringRef::npos)
      return std::nullopt;
    std::string S = Rest.substr(1, End - 1).str();
    Rest = Rest.drop_front(End + 1);
    return S;
  }
  std::optional<bool> boolean() {
    skipSpace();
    if (Rest.consume_front("True"))
      return true;
    if (Rest.consume_front("False"))
      return false;
    return std::nullopt;
  }
  std::optional<Shape> tuple() {
    if (!consume('('))
      return std::nullopt;
    Shape S;
    while (true) {
      skipSpace();
      if (consume(')'))
        return S;
      size_t Len = 0;
      while (Len < Rest.size() && llvm::isDigit(Rest[Len]))
        ++Len;
      int64_t V;
      if (Len == 0 || Rest.substr(0, Len).getAsInteger(10, V))
        return std::nullopt;
      Rest = Rest.drop_front(Len);
      S.push_back(V);
      if (!consume(',')) {
        if (consume(')'))
          return S;
        return std::nullopt;
      }
    }
  }
  bool atEnd() {
    skipSpace();
    return Rest.empty();
  }

private:
  StringRef Rest;
};
} // namespace

namespace {
/// What an .npy header says: the dtype, the shape, and where the data
/// starts and how many bytes it has.
struct NpyLayout {
  DType T;
  Shape Dims;
  size_t DataStart;
  uint64_t DataBytes;
};

/// The bytes of the magic string, the version and the header's length.
constexpr size_t NpyPreamble = 12;

/// Where the header dict is (its start and length), as the magic string,
/// the version and the length field at the start of Bytes say.
Expected<std::pair<size_t, size_t>> headerSpan(StringRef Bytes,
                                               StringRef Name) {
  if (!Bytes.starts_with("\x93NUMPY"))
    return npyError(Name, "it does not start with the .npy magic string");
  if (Bytes.size() < 10)
    return npyError(Name, "the header is truncated");
  unsigned Major = (unsigned char)Bytes[6];
  if (Major == 1)
    return std::pair<size_t, size_t>(
        10, (unsigned char)Bytes[8] | (unsigned char)Bytes[9] << 8);
  if (Major != 2 && Major != 3)
    return npyError(Name, "format version " + llvm::Twine(Major) +
                              " is not one of 1, 2, 3");
  if (Bytes.size() < 12)
    return npyError(Name, "the header is truncated");
  size_t HeaderLen = 0;
  for (int I = 3; I >= 0; --I)
    HeaderLen = HeaderLen << 8 | (unsigned char)Bytes[8 + I];
  return std::pair<size_t, size_t>(12, HeaderLen);
}

/// Reads the header at the start of Bytes (which need not hold the data).
Expected<NpyLayout> parseHeader(StringRef Bytes, StringRef Name) {
  Expected<std::pair<size_t, size_t>> Span = headerSpan(Bytes, Name);
  if (!Span)
    return Span.takeError();
  auto [Start, HeaderLen] = *Span;
  if (HeaderLen > Bytes.size() - Start)
    return npyError(Name, "the header is truncated");
  StringRef Header = Bytes.substr(Start, HeaderLen);

  HeaderScanner S(Header);
  std::optional<std::string> Descr;
  std::optional<bool> Fortran;
  std::optional<Shape> Dims;
  if (!S.consume('{'))
    return npyError(Name, "the header is not a dict");
  while (!S.consume('}')) {
    std::optional<std::string> Key = S.quoted();
    if (!Key || !S.consume(':'))
      return npyError(Name, "the header dict is malformed");
    if (*Key == "descr") {
      Descr = S.quoted();
      if (!Descr)
        return npyError(Name, "'descr' is not a simple dtype string "
                              "(structured dtypes are not supported)");
    } else if (*Key == "fortran_order") {
      Fortran = S.boolean();
      if (!Fortran)
        return npyError(Name, "'fortran_order' is not True or False");
    } else if (*Key == "shape") {
      Dims = S.tuple();
      if (!Dims)
        return npyError(Name, "'shape' is not a tuple of integers");
    } else {
      return npyError(Name, "unknown header key '" + *Key + "'");
    }
    if (!S.consume(',')) {
      if (S.consume('}'))
        break;
      return npyError(Name, "the header dict is malformed");
    }
  }
  if (!S.atEnd())
    return npyError(Name, "unexpected text after the header dict");
  if (!Descr || !Fortran || !Dims)
    return npyError(Name, "the header lacks 'descr', 'fortran_order' or "
                          "'shape'");
  if (*Fortran)
    return npyError(Name, "it is in Fortran order; save a C-ordered array "
                          "(np.ascontiguousarray)");
  if (!Descr->empty() && (*Descr)[0] == '>' && Descr->substr(1) != "i1" &&
      Descr->substr(1) != "u1" && Descr->substr(1) != "b1")
    return npyError(Name, "dtype '" + *Descr +
                              "' is big-endian; save it little-endian");
  std::optional<DType> T;
  if (!Descr->empty() && ((*Descr)[0] == '<' || (*Descr)[0] == '|' ||
                          (*Descr)[0] == '=' || (*Descr)[0] == '>'))
    T = dtypeFromDescr(*Descr);
  if (!T)
    return npyError(Name, "dtype '" + *Descr +
                              "' is not supported (f32 f64 i8 i16 i32 i64 "
                              "u8 bool are)");

  Expected<int64_t> N = checkedNumElements(*Dims, dtypeSize(*T));
  if (!N)
    return npyError(Name, llvm::toString(N.takeError()));
  return NpyLayout{*T, *Dims, Start + HeaderLen,
                   uint64_t(*N) * dtypeSize(*T)};
}

llvm::Error sizeError(const NpyLayout &L, uint64_t Have, StringRef Name) {
  return npyError(Name, "the shape " + shapeStr(L.Dims) + " of " +
                            dtypeName(L.T) + " needs " +
                            llvm::Twine(L.DataBytes) +
                            " bytes of data, the file has " +
                            llvm::Twine(Have));
}

/// Bools are any non-zero byte: keep them 0 or 1.
void normalizeBools(NDArray &A) {
  if (A.dtype() == DType::Bool)
    for (int64_t I = 0; I < A.numElements(); ++I)
      A.data()[I] = A.data()[I] != 0;
}
} // namespace

Expected<NDArray> graphjit::parseNpy(StringRef Bytes, StringRef Name) {
  Expected<NpyLayout> L = parseHeader(Bytes, Name);
  if (!L)
    return L.takeError();
  uint64_t Want = L->DataBytes, Have = Bytes.size() - L->DataStart;
  if (Have != Want)
    return sizeError(*L, Have, Name);
  const auto *T = &L->T;
  const auto *Dims = &L->Dims;
  size_t DataStart = L->DataStart;
  Expected<NDArray> A = NDArray::create(*T, *Dims);
  if (!A)
    return A.takeError();
  if (Want)
    std::memcpy(A->data(), Bytes.data() + DataStart, Want);
  normalizeBools(*A);
  return A;
}

Expected<NDArray> graphjit::readNpy(StringRef Path) {
  // The header first, then exactly the data it announces, read into the
  // array: a stream that is not an .npy file (/dev/zero) fails at its
  // first bytes, and nothing is read beyond what the header allows.
  Expected<FileReader> R = FileReader::open(Path, "read");
  if (!R)
    return R.takeError();
  std::string Head;
  if (llvm::Error E = R->append(Head, NpyPreamble))
    return E;
  Expected<std::pair<size_t, size_t>> Span = headerSpan(Head, Path);
  if (!Span)
    return Span.takeError();
  // A version 2 or 3 header may announce up to 4 GiB; no real one nears
  // the 1 MiB read here (a longer one is reported truncated).
  size_t HeaderEnd = Span->first + Span->second;
  if (HeaderEnd > Head.size())
    if (llvm::Error E = R->append(
            Head, std::min<size_t>(HeaderEnd - Head.size(), size_t(1) << 20)))
      return E;
  Expected<NpyLayout> L = parseHeader(Head, Path);
  if (!L)
    return L.takeError();
  // The header may have been read with some data after it.
  uint64_t Extra = Head.size() - L->DataStart;
  if (std::optional<uint64_t> Size = R->regularSize())
    if (*Size - L->DataStart != L->DataBytes)
      return sizeError(*L, *Size - L->DataStart, Path);
  Expected<NDArray> A = NDArray::create(L->T, L->Dims);
  if (!A)
    return A.takeError();
  uint64_t Copied = std::min(Extra, L->DataBytes);
  if (Copied)
    std::memcpy(A->data(), Head.data() + L->DataStart, Copied);
  Expected<uint64_t> Got = R->read(A->data() + Copied, L->DataBytes - Copied);
  if (!Got)
    return Got.takeError();
  char More;
  Expected<uint64_t> After = R->read(&More, 1);
  if (!After)
    return After.takeError();
  if (Extra > L->DataBytes || *After)
    return npyError(Path, "the shape " + shapeStr(L->Dims) + " of " +
                              dtypeName(L->T) + " needs " +
                              llvm::Twine(L->DataBytes) +
                              " bytes of data, the file has more");
  if (Copied + *Got != L->DataBytes)
    return sizeError(*L, Copied + *Got, Path);
  normalizeBools(*A);
  return A;
}

std::string graphjit::formatNpy(const NDArray &A) {
  std::string Dict = std::string("{'descr': '") + descrOf(A.dtype()) +
                     "', 'fortran_order': False, 'shape': " +
                     shapeStr(A.shape()) + ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary.
  size_t Total = 10 + Dict.size() + 1;
  Dict.append((64 - Total % 64) % 64, ' ');
  Dict += '\n';
  std::string Out = "\x93NUMPY";
  Out += char(1);
  Out += char(0);
  Out += char(Dict.size() & 0xff);
  Out += char(Dict.size() >> 8);
  Out += Dict;
  NDArray C = A.contiguous();
  Out.append(C.data(), C.numBytes());
  return Out;
}

llvm::Error graphjit::writeNpy(StringRef Path, const NDArray &A) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
  if (EC)
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + EC.message());
  OS << formatNpy(A);
  OS.close();
  if (OS.has_error())
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + OS.error().message());
  return llvm::Error::success();
}
