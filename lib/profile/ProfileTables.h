//===- profile/ProfileTables.h - Rows of the report's tables ---*- C++ -*-===//
//
// The numbers behind the Class, Ops and Apply tables: Applies grouped by
// class or by op, rows sorted as Theano sorts them, the "remaining" line's
// count, share and time, and the derived rates (Gflops/s, GB/s). The report
// printer, the tips and the diff share them, so that each number is
// computed in one place.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PROFILE_PROFILETABLES_H
#define GRAPHJIT_PROFILE_PROFILETABLES_H

#include "graphjit/Profile.h"
#include <string>
#include <vector>

namespace graphjit {
namespace profile {

/// Num / Den, or 0 when Den is not positive or the result is not finite:
/// a report never prints NaN or inf.
double safeRatio(double Num, double Den);
/// 100 * Part / Whole, 0 when Whole is 0.
inline double percent(double Part, double Whole) {
  return 100.0 * safeRatio(Part, Whole);
}

/// A row of the Class or Ops table: Applies merged by class or op.
struct GroupRow {
  std::string Name;
  std::string Type; ///< "C", "Py", or "C+Py" when the Applies differ.
  double Seconds = 0;
  uint64_t Calls = 0;
  unsigned Applies = 0;
};

/// Applies merged by OpClass (ByOp false) or by Op (ByOp true), sorted by
/// time, then calls, then Applies, descending, then name.
std::vector<GroupRow> groupApplies(llvm::ArrayRef<ApplyProfile> Applies,
                                   bool ByOp);

/// Indices of the Applies that ran, sorted by time descending, then id.
std::vector<size_t> sortedApplies(llvm::ArrayRef<ApplyProfile> Applies);

/// What the "... (remaining N ...)" line says about rows beyond the first
/// Shown of Seconds (sorted rows' times).
struct Remaining {
  size_t Count = 0;
  double Percent = 0;
  double Seconds = 0;
};
Remaining remainingAfter(llvm::ArrayRef<double> Seconds, size_t Shown,
                         double Total);

/// Gflops/s of A over all its calls: flops per call * calls / total time
/// (PyTensor divides one call's flops by all calls' time). 0 when unknown.
double gflopsPerSecond(const ApplyProfile &A);
/// GB/s of A over all its calls, 0 when unknown.
double gbytesPerSecond(const ApplyProfile &A);

/// "c" for C-contiguous byte strides of Shape and DType, else the tuple.
std::string stridesString(const TensorInfo &T);

} // namespace profile
} // namespace graphjit

#endif
