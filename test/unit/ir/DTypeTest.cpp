//===- DTypeTest.cpp - dtype names and NumPy promotion --------------------===//

#include "graphjit/DType.h"
#include "gtest/gtest.h"

using namespace graphjit;

TEST(DType, NamesRoundTrip) {
  for (DType T : AllDTypes)
    EXPECT_EQ(parseDType(dtypeName(T)), T);
  EXPECT_FALSE(parseDType("f16").has_value());
}

// Expected values are NumPy 1.24's np.result_type.
TEST(DType, PromotionFollowsNumPy) {
  EXPECT_EQ(promote(DType::U8, DType::I8), DType::I16);
  EXPECT_EQ(promote(DType::U8, DType::I32), DType::I32);
  EXPECT_EQ(promote(DType::I32, DType::F32), DType::F64);
  EXPECT_EQ(promote(DType::I16, DType::F32), DType::F32);
  EXPECT_EQ(promote(DType::U8, DType::F32), DType::F32);
  EXPECT_EQ(promote(DType::Bool, DType::I8), DType::I8);
  EXPECT_EQ(promote(DType::F32, DType::F64), DType::F64);
  EXPECT_EQ(promote(DType::I64, DType::I8), DType::I64);
  for (DType A : AllDTypes)
    for (DType B : AllDTypes)
      EXPECT_EQ(promote(A, B), promote(B, A));
}
