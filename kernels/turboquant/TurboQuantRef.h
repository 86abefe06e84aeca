//===- TurboQuantRef.h - TurboQuant cache encoder and f64 reference -*- C++ -*-===//
//
// The host side of turboquant_decode (spec section 3): the slot layout of a
// quantized KV cache, the Lloyd-Max codebooks of N(0, 1/D), the normalised
// Hadamard rotation, the encoder that turns key and value vectors into cache
// slots (turboquant_encode), and a float64 decode attention computed from
// the codes of a paged cache.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TURBOQUANT_TURBOQUANTREF_H
#define TILE_TURBOQUANT_TURBOQUANTREF_H

#include <cstdint>
#include <vector>

namespace tile::tq {

/// Byte offsets of one cache slot: [key bytes | key norm f16 (MSE keys only)
/// | value bytes | value scale f16 | value zero f16 | pad to even].
struct SlotLayout {
  /// D is a power of two in [8, 256]; kbits is 3 or 4 (MSE keys) or 8 (fp8
  /// e4m3 keys); vbits is 3 or 4.
  SlotLayout(int d, int kbits, int vbits);

  int d, kbits, vbits;
  bool mse;
  int kb, normOff, vOff, vb, vScaleOff, vZeroOff, slot;
};

/// The Lloyd-Max quantizer of N(0, 1/D) with 2^bits levels (Gaussian cell
/// means, iterated from levels spread uniformly over [-3.5, 3.5] sigma to
/// convergence), sorted ascending.
std::vector<double> lloydMaxCodebook(int bits, int d);

/// lloydMaxCodebook rounded to f32, as the kernel receives it; the fp8 key
/// preset passes the 4-bit codebook.
std::vector<float> kernelCodebook(const SlotLayout &layout);

/// H_D / sqrt(D) (Sylvester, symmetric and orthogonal), row-major, in f32.
std::vector<float> hadamard(int d);

/// Code `i` of `bits` bits packed LSB-first (code i starts at bit bits * i).
int unpackCode(const uint8_t *bytes, int bits, int i);

/// turboquant_encode: `n` key and value vectors (row-major [n, D], values
/// already rounded to the activation type) into n slots of layout.slot
/// bytes each, with rotation `r` (row-major D x D) and `codebook` (f32,
/// sorted; unused for fp8 keys).
std::vector<uint8_t> encode(const SlotLayout &layout, const std::vector<float> &r,
                            const std::vector<float> &codebook, const float *k, const float *v,
                            int64_t n);

/// The codes of one slot: scores are norm * (q' . key), with q' = R q for
/// MSE keys (key = C[idx], norm = n) and q' = q for fp8 keys (key = the
/// fp8 values, norm = 1); value is v^ = code * scale + zero.
struct DecodedSlot {
  double norm = 1;
  std::vector<double> key, value;
};

DecodedSlot decodeSlot(const SlotLayout &layout, const std::vector<float> &codebook,
                       const uint8_t *slot);

/// The key a slot stands for: norm * R^T C[idx] (MSE) or the fp8 values.
std::vector<double> dequantizeKey(const SlotLayout &layout, const std::vector<float> &r,
                                  const std::vector<float> &codebook, const uint8_t *slot);

/// A paged cache kv[numBlocks, blockSize, Hkv, slot] (u8) with its block
/// table [B, btStride] and sequence lengths [B].
struct PagedCache {
  const uint8_t *bytes;
  int64_t blockSize, hkv;
  const int32_t *blockTable;
  int64_t btStride;
  const int32_t *seqLens;
};

/// The float64 attention of one sequence: o[Hq, D], lse[Hq] and vmax[Hq] =
/// max |v^_j,i| over the tokens and coordinates that query head attends.
struct SeqAttention {
  std::vector<double> o, lse, vmax;
};

/// Decode attention of sequence `b` with queries q[Hq, D] (that sequence's
/// rows): scores from the codes, softmax over j < seqLens[b]; query head h
/// reads kv head h / (Hq / Hkv). seqLens[b] must be at least 1.
SeqAttention referenceAttention(const SlotLayout &layout, const std::vector<float> &r,
                                const std::vector<float> &codebook, const PagedCache &cache,
                                int64_t b, const double *q, int64_t hq, double scale);

} // namespace tile::tq

#endif // TILE_TURBOQUANT_TURBOQUANTREF_H
