/* A program graphjit knows nothing of: its step() calls two kernels,
 * which the test marks by hand as Applies (docs/instrumentation.md) after
 * clang-19 compiled it to IR. Run as `any_program CALLS [FILE]`: FILE, if
 * given, gets the profile through gj_profile_write; GRAPHJIT_PROFILE_JSON
 * gets it at exit. */
#include <stdint.h>
#include <stdlib.h>

int32_t gj_profile_write(const char *path);

__attribute__((noinline)) void scale(double *x, int n, double a) {
  for (int i = 0; i < n; ++i)
    x[i] *= a;
}

__attribute__((noinline)) double total(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i];
  return s;
}

__attribute__((noinline)) double step(double *x, int n) {
  scale(x, n, 1.0001);
  return total(x, n);
}

int main(int argc, char **argv) {
  static double x[4096];
  for (int i = 0; i < 4096; ++i)
    x[i] = 1.0 / (i + 1);
  int calls = argc > 1 ? atoi(argv[1]) : 10;
  double s = 0;
  for (int i = 0; i < calls; ++i)
    s += step(x, 4096);
  if (argc > 2 && gj_profile_write(argv[2]) != 0)
    return 1;
  return s > 0 ? 0 : 2;
}
