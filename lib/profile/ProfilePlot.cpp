//===- profile/ProfilePlot.cpp - The profile as pictures ------------------===//
//
// writeProfileHTML(): one self-contained HTML page (inline SVG, no script,
// nothing fetched) per profile, for people who would rather look than read.
// Per function: the time by Op and by Apply as bars of their share of the
// time in thunks; with distributions, each Apply's time per call (min to
// max, the middle half as a box, the median marked) on a log scale; with
// memory, the bytes live at each Apply of one call (the gc simulation in
// the schedule's order) with the peak marked. Sections are drawn in the
// report's order and with its row counts (SummaryOptions).
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "profile/ProfileTables.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace graphjit {
using namespace profile;

namespace {

constexpr int Width = 960;       ///< Of every chart, in px.
constexpr int LabelWidth = 420;  ///< Bar charts: the names' column.
constexpr int RowHeight = 18;

/// Text for HTML and SVG: the five characters that markup reserves.
std::string escaped(StringRef S) {
  std::string Out;
  raw_string_ostream OS(Out);
  printHTMLEscaped(S, OS);
  return Out;
}

/// A label that fits its column: long Apply names are cut, with the whole
/// name in the row's tooltip.
std::string shortened(StringRef S, size_t Max = 56) {
  return S.size() <= Max ? S.str() : (S.take_front(Max - 3) + "...").str();
}

std::string seconds(double S) { return formatv("{0:e2}s", S).str(); }

std::string bytesText(uint64_t B) {
  if (B >= (1u << 20))
    return formatv("{0:f1} MB", double(B) / (1 << 20)).str();
  if (B >= 1024)
    return formatv("{0:f1} KB", double(B) / 1024).str();
  return std::to_string(B) + " B";
}

struct Bar {
  std::string Label, Title;
  double Value = 0;
  std::string Text; ///< Shown after the bar.
};

/// Horizontal bars, longest first as given, scaled to the largest.
void barChart(raw_ostream &OS, StringRef Title, ArrayRef<Bar> Bars) {
  OS << "<h3>" << escaped(Title) << "</h3>\n";
  int Height = int(Bars.size()) * RowHeight + 10;
  OS << "<svg class=\"bars\" width=\"" << Width << "\" height=\"" << Height
     << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  double Max = 0;
  for (const Bar &B : Bars)
    Max = std::max(Max, B.Value);
  int Room = Width - LabelWidth - 240; // and the figures after the bar
  for (size_t I = 0; I < Bars.size(); ++I) {
    const Bar &B = Bars[I];
    int Y = int(I) * RowHeight + 5;
    int W = Max > 0 ? int(std::lround(B.Value / Max * Room)) : 0;
    OS << "<g><title>" << escaped(B.Title) << "</title>"
       << "<text x=\"" << LabelWidth - 6 << "\" y=\"" << Y + 13
       << "\" text-anchor=\"end\">" << escaped(shortened(B.Label))
       << "</text><rect x=\"" << LabelWidth << "\" y=\"" << Y + 2
       << "\" width=\"" << std::max(W, 1) << "\" height=\"" << RowHeight - 4
       << "\"/><text x=\"" << LabelWidth + W + 6 << "\" y=\"" << Y + 13
       << "\">" << escaped(B.Text) << "</text></g>\n";
  }
  OS << "</svg>\n";
}

void timeCharts(raw_ostream &OS, const FunctionProfile &F,
                const SummaryOptions &Opts) {
  double Thunks = F.thunkSeconds();
  std::vector<Bar> Ops;
  for (const GroupRow &G : groupApplies(F.Applies, /*ByOp=*/true)) {
    if (Ops.size() == Opts.NOps)
      break;
    Ops.push_back({G.Name, G.Name + " (" + G.Type + ", " +
                               std::to_string(G.Applies) + " Applies)",
                   G.Seconds,
                   formatv("{0:f1}%  {1}", percent(G.Seconds, Thunks),
                           seconds(G.Seconds))
                       .str()});
  }
  barChart(OS, "Time by Op (share of the time in thunks)", Ops);
  std::vector<Bar> Applies;
  for (size_t I : sortedApplies(F.Applies)) {
    if (Applies.size() == Opts.NApply)
      break;
    const ApplyProfile &A = F.Applies[I];
    Applies.push_back(
        {"#" + std::to_string(A.Id) + " " + A.Name,
         A.Name + (A.Loc.empty() ? "" : " at " + A.Loc), A.Seconds,
         formatv("{0:f1}%  {1}  ({2} calls)", percent(A.Seconds, Thunks),
                 seconds(A.Seconds), A.Calls)
             .str()});
  }
  barChart(OS, "Time by Apply", Applies);
}

/// Each Apply's time per call on a log scale: min to max as a line, the
/// middle half as a box, the median as a tick.
void distributionChart(raw_ostream &OS, const FunctionProfile &F,
                       const SummaryOptions &Opts) {
  std::vector<const ApplyProfile *> Rows;
  for (size_t I : sortedApplies(F.Applies))
    if (F.Applies[I].Distribution && Rows.size() < Opts.NApply)
      Rows.push_back(&F.Applies[I]);
  if (Rows.empty())
    return;
  double Lo = INFINITY, Hi = 0;
  for (const ApplyProfile *A : Rows) {
    const TimeDistribution &D = *A->Distribution;
    Lo = std::min(Lo, std::max(D.Min, 1e-10));
    Hi = std::max(Hi, std::max(D.Max, 1e-10));
  }
  double LogLo = std::floor(std::log10(Lo)), LogHi = std::ceil(std::log10(Hi));
  if (LogHi <= LogLo)
    LogHi = LogLo + 1;
  int Room = Width - LabelWidth - 20;
  auto X = [&](double S) {
    double L = std::log10(std::max(S, 1e-10));
    return LabelWidth + int(std::lround((L - LogLo) / (LogHi - LogLo) * Room));
  };
  OS << "<h3>Time per call (the first call apart; log scale)</h3>\n";
  int Height = int(Rows.size()) * RowHeight + 30;
  OS << "<svg class=\"distributions\" width=\"" << Width << "\" height=\""
     << Height << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  for (double L = LogLo; L <= LogHi; L += 1) {
    int At = X(std::pow(10.0, L));
    OS << "<line class=\"grid\" x1=\"" << At << "\" y1=\"0\" x2=\"" << At
       << "\" y2=\"" << Height - 20 << "\"/><text x=\"" << At << "\" y=\""
       << Height - 5 << "\" text-anchor=\"middle\">1e" << int(L)
       << "s</text>\n";
  }
  for (size_t I = 0; I < Rows.size(); ++I) {
    const ApplyProfile &A = *Rows[I];
    const TimeDistribution &D = *A.Distribution;
    int Y = int(I) * RowHeight + 5, Mid = Y + RowHeight / 2;
    OS << "<g><title>"
       << escaped(formatv("{0}: min {1}, median {2}, p90 {3}, max {4}, {5} "
                          "calls",
                          A.Name, seconds(D.Min), seconds(D.Median),
                          seconds(D.P90), seconds(D.Max), D.Calls)
                      .str())
       << "</title><text x=\"" << LabelWidth - 6 << "\" y=\"" << Y + 13
       << "\" text-anchor=\"end\">"
       << escaped(shortened("#" + std::to_string(A.Id) + " " + A.Name))
       << "</text><line class=\"whisker\" x1=\"" << X(D.Min) << "\" y1=\""
       << Mid << "\" x2=\"" << X(D.Max) << "\" y2=\"" << Mid
       << "\"/><rect x=\"" << X(D.P25) << "\" y=\"" << Y + 3 << "\" width=\""
       << std::max(X(D.P75) - X(D.P25), 1) << "\" height=\""
       << RowHeight - 6 << "\"/><line class=\"median\" x1=\"" << X(D.Median)
       << "\" y1=\"" << Y + 1 << "\" x2=\"" << X(D.Median) << "\" y2=\""
       << Y + RowHeight - 1 << "\"/></g>\n";
  }
  OS << "</svg>\n";
}

/// The bytes live while each Apply of one call runs (with gc, in the
/// schedule's order), as steps; the peak marked, and without gc's total
/// for scale.
void memoryChart(raw_ostream &OS, const FunctionProfile &F) {
  if (!F.Memory.Recorded)
    return;
  MemorySimulation Sim = simulateMemory(F, 0);
  if (Sim.GCSteps.empty())
    return;
  constexpr int Height = 240, Left = 70, Bottom = 30;
  int Room = Width - Left - 20, Tall = Height - Bottom - 20;
  double Top = double(std::max<uint64_t>({Sim.NoGC, Sim.GC, 1}));
  size_t N = Sim.GCSteps.size();
  auto X = [&](size_t Step) { return Left + int(Step * Room / N); };
  auto Y = [&](uint64_t B) {
    return 20 + Tall - int(std::lround(double(B) / Top * Tall));
  };
  OS << "<h3>Memory over one call (bytes live at each Apply, with gc; peak "
     << escaped(bytesText(Sim.GC)) << ", without gc "
     << escaped(bytesText(Sim.NoGC)) << ")</h3>\n";
  OS << "<svg class=\"memory\" width=\"" << Width << "\" height=\"" << Height
     << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  OS << "<line class=\"grid\" x1=\"" << Left << "\" y1=\"" << Y(Sim.NoGC)
     << "\" x2=\"" << Left + Room << "\" y2=\"" << Y(Sim.NoGC)
     << "\"/><text x=\"" << Left - 4 << "\" y=\"" << Y(Sim.NoGC) + 4
     << "\" text-anchor=\"end\">" << escaped(bytesText(Sim.NoGC))
     << "</text>\n";
  size_t PeakStep = 0;
  for (size_t I = 0; I < N; ++I) {
    auto [Id, Bytes] = Sim.GCSteps[I];
    if (Bytes > Sim.GCSteps[PeakStep].second)
      PeakStep = I;
    const ApplyProfile *A = nullptr;
    for (const ApplyProfile &Candidate : F.Applies)
      if (Candidate.Id == Id)
        A = &Candidate;
    OS << "<rect class=\"live\" x=\"" << X(I) << "\" y=\"" << Y(Bytes)
       << "\" width=\"" << std::max(X(I + 1) - X(I), 1) << "\" height=\""
       << Y(0) - Y(Bytes) << "\"><title>"
       << escaped(formatv("#{0} {1}: {2} live", Id, A ? A->Name : "",
                          bytesText(Bytes))
                      .str())
       << "</title></rect>\n";
  }
  auto [PeakId, PeakBytes] = Sim.GCSteps[PeakStep];
  int PX = (X(PeakStep) + X(PeakStep + 1)) / 2;
  OS << "<line class=\"peak\" x1=\"" << PX << "\" y1=\"" << Y(PeakBytes)
     << "\" x2=\"" << PX << "\" y2=\"" << Y(0) << "\"/><text class=\"peak\" x=\""
     << PX + 4 << "\" y=\"" << Y(PeakBytes) - 4 << "\">peak "
     << escaped(bytesText(PeakBytes)) << " at Apply #" << PeakId
     << "</text>\n";
  OS << "<text x=\"" << Left << "\" y=\"" << Height - 8
     << "\">Applies in the schedule's order (" << N << ")</text>\n";
  OS << "</svg>\n";
}

} // namespace

void writeProfileHTML(raw_ostream &OS, const Profile &P,
                      const SummaryOptions &Opts) {
  OS << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
        "<title>graphjit profile</title>\n<style>\n"
        "body { font-family: sans-serif; margin: 2em; }\n"
        "svg text { font-size: 12px; font-family: monospace; }\n"
        ".bars rect { fill: #4a7fb5; }\n"
        ".distributions rect { fill: #9cc3e6; stroke: #4a7fb5; }\n"
        ".whisker, .grid { stroke: #999; }\n"
        ".grid { stroke-dasharray: 3 3; }\n"
        ".median { stroke: #c0392b; stroke-width: 2; }\n"
        ".live { fill: #7fb069; }\n"
        ".peak { stroke: #c0392b; fill: #c0392b; }\n"
        "</style></head><body>\n";
  OS << "<h1>graphjit profile</h1>\n";
  if (!P.Machine.empty())
    OS << "<p>Machine: " << escaped(P.Machine) << "</p>\n";
  for (const FunctionProfile &F : P.Functions) {
    OS << "<h2>" << escaped(F.Name) << "</h2>\n<p>"
       << F.Calls << " calls, " << escaped(seconds(F.CallSeconds))
       << " in calls, " << escaped(seconds(F.thunkSeconds()))
       << " in thunks";
    if (F.FirstCallSeconds)
      OS << "; the first call " << escaped(seconds(*F.FirstCallSeconds));
    if (!F.File.empty())
      OS << "; " << escaped(F.File);
    OS << "</p>\n";
    timeCharts(OS, F, Opts);
    distributionChart(OS, F, Opts);
    memoryChart(OS, F);
  }
  OS << "</body></html>\n";
}

} // namespace graphjit
