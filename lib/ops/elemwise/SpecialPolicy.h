//===- SpecialPolicy.h - How the special functions call Boost.Math -*- C++ -*-===//
//
// The Boost.Math error policy and the few constants that every file of the
// special functions (SpecialFunctions.cpp, SpecialBessel.cpp) shares. Used
// only by those files: nothing outside lib/ops includes Boost.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_SPECIALPOLICY_H
#define GRAPHJIT_OPS_SPECIALPOLICY_H

#include <boost/math/policies/policy.hpp>

#include <cmath>
#include <limits>

namespace graphjit {
namespace special {
namespace detail {

namespace bp = boost::math::policies;

/// No exceptions, no errno; results as SciPy gives them. promote_double is
/// off: SciPy evaluates Boost in double too, and long double is slow.
using Policy =
    bp::policy<bp::domain_error<bp::ignore_error>,
               bp::pole_error<bp::ignore_error>,
               bp::overflow_error<bp::ignore_error>,
               bp::underflow_error<bp::ignore_error>,
               bp::denorm_error<bp::ignore_error>,
               bp::evaluation_error<bp::ignore_error>,
               bp::rounding_error<bp::ignore_error>,
               bp::indeterminate_result_error<bp::ignore_error>,
               bp::promote_float<false>, bp::promote_double<false>>;

constexpr double Inf = std::numeric_limits<double>::infinity();
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double InvSqrtTwoPi = 0.39894228040143267794;

inline bool isInteger(double X) {
  return std::isfinite(X) && X == std::floor(X);
}

} // namespace detail
} // namespace special
} // namespace graphjit

#endif // GRAPHJIT_OPS_SPECIALPOLICY_H
