//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "graphjit/Npy.h"
#include "gtest/gtest.h"

using namespace graphjit;

static std::string errorOf(llvm::Expected<NDArray> A) {
  if (A)
    return "";
  return llvm::toString(A.takeError());
}

TEST(Npy, RoundTripsEveryDType) {
  for (DType T : AllDTypes) {
    NDArray A = NDArray::zeros(T, {2, 3});
    for (int64_t I = 0; I < 6; ++I)
      dispatchDType(T, [&](auto Tag) {
        using E = typename decltype(Tag)::type;
        A.dataAs<E>()[I] = static_cast<E>(I % 2 ? I : 0);
      });
    std::string Bytes = formatNpy(A);
    EXPECT_EQ(0u, (Bytes.size() - A.numBytes()) % 64) << "data not aligned";
    llvm::Expected<NDArray> B = parseNpy(Bytes, "t.npy");
    ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
    EXPECT_TRUE(A.identical(*B)) << dtypeName(T).str();
  }
}

TEST(Npy, WritesNonContiguousViewsInCOrder) {
  NDArray A = NDArray::zeros(DType::I32, {2, 3});
  for (int I = 0; I < 6; ++I)
    A.dataAs<int32_t>()[I] = I;
  // The transpose, as a view with swapped strides.
  NDArray T = A.view({3, 2}, {A.strides()[1], A.strides()[0]});
  llvm::Expected<NDArray> B = parseNpy(formatNpy(T), "t.npy");
  ASSERT_TRUE(bool(B));
  EXPECT_EQ(Shape({3, 2}), B->shape());
  EXPECT_EQ(3, B->getInt(1)); // T[0][1] == A[1][0]
  EXPECT_EQ(1, B->getInt(2)); // T[1][0] == A[0][1]
}

static std::string npyWithHeader(const std::string &Dict, size_t DataBytes) {
  std::string H = Dict + "\n";
  std::string Out = "\x93NUMPY";
  Out += char(1);
  Out += char(0);
  Out += char(H.size() & 0xff);
  Out += char(H.size() >> 8);
  return Out + H + std::string(DataBytes, '\0');
}

TEST(Npy, RejectsWhatItCannotRead) {
  EXPECT_NE(std::string::npos, errorOf(parseNpy("hello", "x.npy"))
                                   .find("magic string"));
  EXPECT_NE(std::string::npos,
            errorOf(parseNpy(npyWithHeader("{'descr': '<f8', "
                                           "'fortran_order': True, "
                                           "'shape': (2,), }",
                                           16),
                             "x.npy"))
                .find("Fortran order"));
  EXPECT_NE(std::string::npos,
            errorOf(parseNpy(npyWithHeader("{'descr': '>f8', "
                                           "'fortran_order': False, "
                                           "'shape': (2,), }",
                                           16),
                             "x.npy"))
                .find("big-endian"));
  EXPECT_NE(std::string::npos,
            errorOf(parseNpy(npyWithHeader("{'descr': '<c16', "
                                           "'fortran_order': False, "
                                           "'shape': (2,), }",
                                           32),
                             "x.npy"))
                .find("not supported"));
  EXPECT_NE(std::string::npos,
            errorOf(parseNpy(npyWithHeader("{'descr': '<f8', "
                                           "'fortran_order': False, "
                                           "'shape': (3,), }",
                                           16),
                             "x.npy"))
                .find("needs 24 bytes of data, the file has 16"));
  EXPECT_NE(std::string::npos,
            errorOf(parseNpy(npyWithHeader("{'descr': '<f8', "
                                           "'fortran_order': False, "
                                           "'shape': (4294967296, "
                                           "4294967296), }",
                                           0),
                             "x.npy"))
                .find("64 bits"));
  EXPECT_NE(std::string::npos,
            errorOf(parseNpy(npyWithHeader("{'descr': '<f8', 'shape': (1,",
                                           8),
                             "x.npy"))
                .find("'shape' is not a tuple"));
}

TEST(Npy, BoolBytesAreNormalized) {
  std::string Bytes = npyWithHeader(
      "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", 0);
  Bytes += char(0);
  Bytes += char(7);
  llvm::Expected<NDArray> B = parseNpy(Bytes, "b.npy");
  ASSERT_TRUE(bool(B));
  EXPECT_EQ(0, B->getInt(0));
  EXPECT_EQ(1, B->getInt(1));
}
