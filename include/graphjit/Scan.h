//===- graphjit/Scan.h - Loops over a compiled body -------------*- C++ -*-===//
//
// A scan Apply runs a compiled Function, its body, once per step, as
// PyTensor's Scan does: the body reads rows of sequences and earlier
// values of the recurrent outputs (taps), writes the step's values, and
// the Apply's outputs are the buffers of those values. The loop is library
// code (lib/link/call/ScanOp.cpp) calling the body's JIT code; no interpreter
// runs in between. docs/ops-scan.md has the semantics.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_SCAN_H
#define GRAPHJIT_SCAN_H

#include "graphjit/Op.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {

class Function;

/// What the outer inputs and the body's inputs and outputs are, in
/// PyTensor's ScanInfo order.
///
///   outer inputs:  n_steps, sequences, mit_mot buffers, mit_sot buffers,
///                  sit_sot buffers, nit_sot lengths, untraced initial
///                  values, non-sequences
///   body inputs:   a row of each sequence, each tap of each mit_mot,
///                  mit_sot and sit_sot, the untraced values, the
///                  non-sequences
///   body outputs:  each mit_mot output tap, mit_sot, sit_sot, nit_sot,
///                  untraced, and last the stop condition of a while loop
///   outer outputs: the mit_mot, mit_sot, sit_sot and nit_sot buffers,
///                  the untraced values after the last step
struct ScanSpec {
  unsigned NumSequences = 0;
  /// Per mit_mot: the taps it reads and the taps it writes (gradients).
  std::vector<std::vector<int64_t>> MitMotInTaps, MitMotOutTaps;
  /// Per mit_sot and per sit_sot: the taps it reads (negative: steps back).
  std::vector<std::vector<int64_t>> MitSotTaps, SitSotTaps;
  unsigned NumNitSot = 0;
  /// Values carried from step to step without a buffer (PyTensor's
  /// untraced sit-sot, formerly shared outputs).
  unsigned NumUntraced = 0;
  unsigned NumNonSequences = 0;
  /// The body's last output stops the loop when nonzero.
  bool AsWhile = false;
};

/// A scan op over Body. Name is what the profile shows (PyTensor's
/// "Scan{name, while_loop=False, ...}"; empty: "Scan{<body's name>}").
/// Errors if Spec does not match the body's inputs and outputs.
llvm::Expected<OpRef> makeScanOp(ScanSpec Spec, std::shared_ptr<Function> Body,
                                 std::string Name = {});

/// The body of a scan op (null for other ops), for tools that show it.
const Function *scanBodyOf(const Op &O);

} // namespace graphjit

#endif
