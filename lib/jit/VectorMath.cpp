//===- VectorMath.cpp - Vectorized transcendental functions ---------------===//

#include "VectorMath.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

bool graphjit::loadVectorMathLibrary() {
  static const bool Loaded = [] {
    std::string Error;
    return !sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1",
                                                        &Error);
  }();
  return Loaded;
}

// The functions libmvec has beyond LLVM 19's preset, by their C names.
static constexpr const char *ExtraFunctions[] = {
    "acos",  "acosh", "asin", "asinh", "atan", "atanh", "cbrt",
    "cosh",  "erf",   "erfc", "exp10", "exp2", "expm1", "log10",
    "log1p", "log2",  "sinh", "tanh"};

// The intrinsics clang emits for some of them (with -fno-math-errno).
static bool hasIntrinsic(StringRef Name) {
  return Name == "exp2" || Name == "exp10" || Name == "log2" ||
         Name == "log10" || Name == "tanh" || Name == "sinh" ||
         Name == "cosh" || Name == "asin" || Name == "acos" ||
         Name == "atan";
}

void graphjit::addVectorMathFunctions(TargetLibraryInfoImpl &TLII,
                                      const Triple &T) {
  if (!T.isX86() || !T.isArch64Bit() || !loadVectorMathLibrary())
    return;
  TLII.addVectorizableFunctionsFromVecLib(TargetLibraryInfoImpl::LIBMVEC_X86,
                                          T);
  // VecDesc keeps StringRefs: the names live as long as the process.
  static BumpPtrAllocator Memory;
  static StringSaver Names(Memory);
  static std::vector<VecDesc> Descs = [] {
    std::vector<VecDesc> D;
    // SSE ("b") and AVX2 ("d") variants: 2 and 4 doubles, 4 and 8 floats.
    struct Width {
      char Isa;
      unsigned Doubles;
    };
    for (const char *Fn : ExtraFunctions)
      for (Width W : {Width{'b', 2}, Width{'d', 4}})
        for (bool Float : {false, true}) {
          unsigned VF = Float ? 2 * W.Doubles : W.Doubles;
          std::string Scalar = std::string(Fn) + (Float ? "f" : "");
          StringRef Vector = Names.save("_ZGV" + std::string(1, W.Isa) + "N" +
                                        utostr(VF) + "v_" + Scalar);
          StringRef Abi = Names.save("_ZGV_LLVM_N" + utostr(VF) + "v");
          ElementCount Count = ElementCount::getFixed(VF);
          D.emplace_back(Names.save(Scalar), Vector, Count, false, Abi);
          if (hasIntrinsic(Fn))
            D.emplace_back(Names.save("llvm." + std::string(Fn) +
                                      (Float ? ".f32" : ".f64")),
                           Vector, Count, false, Abi);
        }
    return D;
  }();
  TLII.addVectorizableFunctions(Descs);
}
