//===- profile/ProfileTables.cpp - Rows of the report's tables ------------===//
//
// Grouping, sorting and the derived numbers of the Class, Ops and Apply
// tables (ProfileTables.h).
//
//===----------------------------------------------------------------------===//
#include "profile/ProfileTables.h"
#include "graphjit/Type.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace graphjit {
namespace profile {

double safeRatio(double Num, double Den) {
  if (!(Den > 0) || !std::isfinite(Num) || !std::isfinite(Den))
    return 0;
  double R = Num / Den;
  return std::isfinite(R) ? R : 0;
}

std::vector<GroupRow> groupApplies(ArrayRef<ApplyProfile> Applies, bool ByOp) {
  std::vector<GroupRow> Rows;
  StringMap<size_t> Index;
  for (const ApplyProfile &A : Applies) {
    StringRef Key = ByOp ? A.Op : A.OpClass;
    auto [It, New] = Index.try_emplace(Key, Rows.size());
    if (New) {
      Rows.push_back({Key.str(), A.type().str(), 0, 0, 0});
    }
    GroupRow &R = Rows[It->second];
    if (R.Type != A.type())
      R.Type = "C+Py";
    R.Seconds += A.Seconds;
    R.Calls += A.Calls;
    ++R.Applies;
  }
  std::stable_sort(Rows.begin(), Rows.end(),
                   [](const GroupRow &L, const GroupRow &R) {
                     if (L.Seconds != R.Seconds)
                       return L.Seconds > R.Seconds;
                     if (L.Calls != R.Calls)
                       return L.Calls > R.Calls;
                     if (L.Applies != R.Applies)
                       return L.Applies > R.Applies;
                     return L.Name < R.Name;
                   });
  return Rows;
}

std::vector<size_t> sortedApplies(ArrayRef<ApplyProfile> Applies) {
  std::vector<size_t> Order;
  for (size_t I = 0; I < Applies.size(); ++I)
    if (Applies[I].Calls > 0)
      Order.push_back(I);
  std::stable_sort(Order.begin(), Order.end(), [&](size_t L, size_t R) {
    if (Applies[L].Seconds != Applies[R].Seconds)
      return Applies[L].Seconds > Applies[R].Seconds;
    return Applies[L].Id < Applies[R].Id;
  });
  return Order;
}

Remaining remainingAfter(ArrayRef<double> Seconds, size_t Shown, double Total) {
  Remaining R;
  for (size_t I = Shown; I < Seconds.size(); ++I) {
    ++R.Count;
    R.Seconds += Seconds[I];
  }
  R.Percent = percent(R.Seconds, Total);
  return R;
}

double gflopsPerSecond(const ApplyProfile &A) {
  return safeRatio(A.FlopsPerCall * double(A.Calls), A.Seconds) / 1e9;
}

double gbytesPerSecond(const ApplyProfile &A) {
  return safeRatio(A.BytesPerCall * double(A.Calls), A.Seconds) / 1e9;
}

static int64_t itemSize(StringRef DType) {
  return StringSwitch<int64_t>(DType)
      .Cases("bool", "int8", "uint8", 1)
      .Cases("int16", "uint16", "float16", 2)
      .Cases("int32", "uint32", "float32", 4)
      .Cases("int64", "uint64", "float64", 8)
      .Default(0);
}

std::string stridesString(const TensorInfo &T) {
  int64_t Size = itemSize(T.DType);
  if (Size > 0 && T.Strides.size() == T.Shape.size()) {
    // NumPy's rule: strides of dims of size 1 do not matter, and an empty
    // array is contiguous.
    bool Contiguous = true, Empty = false;
    int64_t Expected = Size;
    for (size_t I = T.Shape.size(); I-- > 0;) {
      if (T.Shape[I] == 0)
        Empty = true;
      if (T.Shape[I] != 1 && T.Strides[I] != Expected)
        Contiguous = false;
      Expected *= T.Shape[I];
    }
    if (Contiguous || Empty)
      return "c";
  }
  return shapeStr(T.Strides); // Python's tuple spelling.
}

} // namespace profile
} // namespace graphjit
