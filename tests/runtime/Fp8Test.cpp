//===- Fp8Test.cpp - fp8 loads decode every bit pattern exactly -----------===//
#include "tile/Tile.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tile;

namespace {

const char *kDecode = R"(
kernel decode<T: dtype = f8e4m3>(x: ptr<T>, out: ptr<f32>) {
  let c = arange(0, 256);
  store(out + c, load(x + c).to(f32));
}
)";

void checkAllPatterns(const char *dtype, const llvm::fltSemantics &semantics) {
  CompileOptions options;
  options.defines["T"] = dtype;
  auto kernel = compileForHost(kDecode, "decode.tile", options);
  ASSERT_TRUE(bool(kernel)) << kernel.message();
  uint8_t bits[256];
  float out[256];
  for (int i = 0; i < 256; ++i) {
    bits[i] = uint8_t(i);
    out[i] = -12345.0f;
  }
  ASSERT_EQ((*kernel)->launch({1, 1, 1}, {Arg::pointer(bits), Arg::pointer(out)}), "");
  for (int i = 0; i < 256; ++i) {
    llvm::APFloat ref(semantics, llvm::APInt(8, i));
    float want = ref.convertToFloat();
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(out[i])) << dtype << " bits 0x" << std::hex << i;
      continue;
    }
    EXPECT_EQ(out[i], want) << dtype << " bits 0x" << std::hex << i;
    EXPECT_EQ(std::signbit(out[i]), std::signbit(want)) << dtype << " bits 0x" << std::hex << i;
  }
}

TEST(Fp8, E4M3DecodesLikeAPFloat) { checkAllPatterns("f8e4m3", llvm::APFloat::Float8E4M3FN()); }
TEST(Fp8, E5M2DecodesLikeAPFloat) { checkAllPatterns("f8e5m2", llvm::APFloat::Float8E5M2()); }

TEST(Fp8, ConversionToFp8IsReportedNotMiscompiled) {
  const char *source = R"(
kernel encode(x: ptr<f32>, out: ptr<f8e4m3>) {
  let c = arange(0, 16);
  store(out + c, load(x + c).to(f8e4m3));
}
)";
  auto kernel = compileForHost(source, "encode.tile", {});
  ASSERT_FALSE(bool(kernel));
  EXPECT_NE(kernel.message().find("encode.tile:4:30: error: conversion to 'f8E4M3FN' is not "
                                  "supported yet"),
            std::string::npos)
      << kernel.message();
}

} // namespace
