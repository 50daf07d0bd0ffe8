//===- BlasInfoTest.cpp - Which BLAS the products run on -----------------===//
//
// The kernel sets OpenBLAS falls back to for a CPU it does not know, and
// the Machine line every profile now carries. The line with a fallback
// kernel, and its tip, are in test/lit/profile/blas.test.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/BlasInfo.h"
#include "graphjit/ProfileStats.h"
#include "gtest/gtest.h"

using namespace graphjit;

TEST(BlasInfo, KernelSetsWithoutAvx) {
  for (const char *K : {"Prescott", "PRESCOTT", "Core2", "Nehalem", "Atom",
                        "Barcelona"})
    EXPECT_TRUE(blasKernelLacksAvx(K)) << K;
  for (const char *K : {"Haswell", "SkylakeX", "Cooperlake", "Zen",
                        "SandyBridge", ""})
    EXPECT_FALSE(blasKernelLacksAvx(K)) << K;
}

TEST(BlasInfo, MachineLineNamesTheBlas) {
  const BlasInfo &B = blasInfo();
  const std::string M = ProfileStats().profile().Machine;
  EXPECT_NE(M.find(" CPU, "), std::string::npos) << M;
  EXPECT_NE(M.find("; BLAS: " + B.Library), std::string::npos) << M;
  // graphjit links OpenBLAS (utils/setup.sh): its version and kernel.
  EXPECT_EQ(B.Library.rfind("OpenBLAS ", 0), 0u) << B.Library;
  EXPECT_FALSE(B.Kernel.empty());
  EXPECT_NE(M.find(", kernel " + B.Kernel), std::string::npos) << M;
  EXPECT_EQ(M.find(FallbackKernelMark) != std::string::npos,
            B.FallbackKernel)
      << M;
}
