//===- NVPTXConvert.h - fp8 conversions on NVIDIA's instructions -*- C++ -*-===//
#ifndef TILE_TARGETS_NVPTX_NVPTXCONVERT_H
#define TILE_TARGETS_NVPTX_NVPTXCONVERT_H

#include "NVPTXTarget.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::tileir {

/// Whether `chip` converts fp8 pairs to f16 pairs in one instruction
/// (cvt.rn.f16x2.e4m3x2 / cvt.rn.f16x2.e5m2x2: sm_89 and newer, PTX ISA 7.8).
bool hasFP8PairConversion(const NVPTXChip &chip);

/// tile-nvptx-extend-fp8: rewrites arith.extf from f8E4M3FN / f8E5M2 (OCP
/// e4m3fn and e5m2; scalars and 1-D vectors, as tile-to-gpu leaves them)
/// into nvvm.convert.f8x2.to.f16x2 on consecutive pairs of elements, then
/// an exact extension (or, for bf16, extension and exact rounding) of the
/// f16 values. Runs before tile-expand-fp8, which decodes what this pass
/// leaves (conversions to fp8, other shapes) with integer arithmetic. Only
/// for a chip with hasFP8PairConversion.
std::unique_ptr<Pass> createNVPTXExtendFP8Pass();

} // namespace mlir::tileir

#endif // TILE_TARGETS_NVPTX_NVPTXCONVERT_H
