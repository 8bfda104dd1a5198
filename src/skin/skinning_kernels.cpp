// SIMD skinning kernels (Highway, compiled for AVX-512 / AVX2 / SSE4 / ..., dispatched at each call).
//
// Per chunk of 16 consecutive vertices, in the form SkinningLayout chose for it:
//  1a. per bone (a chunk touching few bones, the common case on a real mesh): the 12 SoA matrix
//     vectors are sum_j W_j * M_j over the chunk's bones, W_j the 16 vertices' weights on bone j
//     (one vector load), M_j's coefficients broadcast from memory into the FMAs: 12 FMAs per
//     bone per 16 vertices, no transpose. Dual quaternions: the same over Blender's dual
//     quaternions (sign flips as per-lane selects), then converted to matrices in SoA.
//  1b. per vertex: each vertex's 3x4 matrix is blended in a register (AoS: one 64-byte padded
//     bone row per influence, 1 load + 1 FMA with the weight broadcast from memory), then the
//     16 rows are transposed into 12 SoA vectors: 128-bit block shuffles into "block-transposed"
//     vectors, then 4x4 transposes inside the blocks (52 shuffles for 16 vertices). Dual
//     quaternions: Blender's blend per vertex (scalar) into a stack buffer, then the same.
//  2. transform: positions and normals are deinterleaved (2 two-source permutes per vector),
//     transformed (the normal by the cofactor matrix, renormalised), re-interleaved and stored
//     with full-width contiguous stores in the original vertex order. Rest vertices are blended
//     back from the inputs with a lane mask.
// Nothing is stored but the outputs: on the target machines, stores (and the 4 KiB aliasing of
// later loads with them) cost more than the shuffles they would save. The mesh's last, partial
// chunk runs on padded copies, so a chunk's 12 matrix vectors never leave the registers.
// The kernels are bound by latency more than by port throughput (a chunk's blend, cofactor and
// 1/sqrt chain is ~80 cycles): measured slower on AVX-512 were blending the next chunk ahead
// through a stack buffer, two chunks in one block, M_0 + sum_i w_i (M_i - M_0) (one bone's
// products fewer, through a store), the normal as triple products (6 operations fewer, longer
// chains), and software prefetching (the hardware streams these arrays).
//
// Highway is used from its headers only: the kernels are compiled once per target (foreach_target.h)
// and dispatched here (the end of this file), from the CPU's features at each call. Highway's own
// dispatch (HWY_EXPORT / HWY_DYNAMIC_DISPATCH) would link libhwy, whose load-time constructor costs
// every process that links rigfit milliseconds (bench/README.md).
#include <hwy/detect_compiler_arch.h>
// Off x86 (no dispatch below): the one target the compiler's flags allow.
#if !HWY_ARCH_X86 && !defined(HWY_COMPILE_ONLY_STATIC) && !defined(HWY_COMPILE_ONLY_SCALAR) && \
    !defined(HWY_COMPILE_ONLY_EMU128)
#define HWY_COMPILE_ONLY_STATIC 1
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "skin/skinning_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "skin/skinning_kernels.hpp"

#if HWY_ONCE && HWY_ARCH_X86 && defined(__clang__)
// glibc's CPU_FEATURE_ACTIVE (the dispatch, below). Its header uses C's _Bool, which clang accepts
// in C++ only with GNU extensions (off here).
#define _Bool bool
#include <sys/platform/x86.h>
#undef _Bool
#endif

HWY_BEFORE_NAMESPACE();
namespace rigfit {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
constexpr std::size_t kN = hn::MaxLanes(D());
constexpr std::size_t kC = detail::kSkinningChunk;
constexpr std::size_t kRow = 16;  // floats per padded bone matrix
// Vectors per matrix row that hold the 12 used floats.
constexpr std::size_t kParts = kN >= 12 ? 1 : (12 + kN - 1) / kN;

#undef RIGFIT_SKIN_AVX512
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define RIGFIT_SKIN_AVX512 1
#else
#define RIGFIT_SKIN_AVX512 0
#endif

// ----------------------------------------------------------------------------------------------
// Blends.

// Matrix of influence slots [0, K) of the chunk's vertex v (slot i at i * kC + v).
// A bone row in a register. The empty asm keeps the compiler from folding the load into the FMA:
// an FMA with an indexed memory operand is two fused uops, while the weight's broadcast folds
// into it with a simple address, and the front end is what limits this loop.
HWY_INLINE V LoadRow(const float* HWY_RESTRICT p) {
  V v = hn::Load(D(), p);
#if RIGFIT_SKIN_AVX512 || HWY_TARGET == HWY_AVX2
  asm("" : "+v"(v.raw));
#endif
  return v;
}

template <std::size_t K>
HWY_INLINE void BlendVertex(const float* HWY_RESTRICT mats, const std::uint16_t* HWY_RESTRICT b,
                            const float* HWY_RESTRICT w, std::size_t v, V (&acc)[kParts]) {
  const D d;
  const float* m0 = mats + std::size_t(b[v]) * kRow;
  if constexpr (K == 1) {
    // One influence: its normalised weight is 1 (or the vertex is at rest and masked later).
    for (std::size_t p = 0; p < kParts; ++p) acc[p] = hn::Load(d, m0 + p * kN);
  } else {
    const V w0 = hn::Set(d, w[v]);
    for (std::size_t p = 0; p < kParts; ++p) acc[p] = hn::Mul(LoadRow(m0 + p * kN), w0);
    for (std::size_t i = 1; i < K; ++i) {
      const float* m = mats + std::size_t(b[i * kC + v]) * kRow;
      const V wi = hn::Set(d, w[i * kC + v]);
      for (std::size_t p = 0; p < kParts; ++p) acc[p] = hn::MulAdd(LoadRow(m + p * kN), wi, acc[p]);
    }
  }
}

HWY_INLINE void BlendVertexAny(std::size_t k, const float* HWY_RESTRICT mats, const std::uint16_t* HWY_RESTRICT b,
                               const float* HWY_RESTRICT w, std::size_t v, V (&acc)[kParts]) {
  const D d;
  for (std::size_t p = 0; p < kParts; ++p) acc[p] = hn::Zero(d);
  for (std::size_t i = 0; i < k; ++i) {
    const float* m = mats + std::size_t(b[i * kC + v]) * kRow;
    const V wi = hn::Set(d, w[i * kC + v]);
    for (std::size_t p = 0; p < kParts; ++p) acc[p] = hn::MulAdd(LoadRow(m + p * kN), wi, acc[p]);
  }
}

// Calls f(bone, weight) for each influence of vertex v of chunk c (either chunk form).
template <class F>
HWY_INLINE void ForInfluences(const detail::SkinningView& L, std::size_t c, std::size_t v, const F& f) {
  const std::uint16_t* b = L.bones + L.chunk_bone[c];
  const float* w = L.weights + L.chunk_weight[c];
  if (const std::size_t k = L.chunk_k[c]) {
    for (std::size_t i = 0; i < k; ++i) f(b[i * kC + v], w[i * kC + v]);
  } else if (const std::size_t u = L.chunk_u[c]) {
    if (u == 1) {
      f(b[0], 1.0f);
    } else {
      for (std::size_t j = 0; j < u; ++j) f(b[j], w[j * kC + v]);
    }
  }
}

// Blender's dual quaternion blend of one vertex (skinning_math.hpp) as the equivalent 3x4 matrix
// (row-major, 4 zeros of padding) at dst. The layout's weights sum to 1.
HWY_INLINE void BlendDualQuatVertex(const detail::SkinningView& L, const float* HWY_RESTRICT dqs, std::size_t c,
                                    std::size_t v, float* HWY_RESTRICT dst) {
  detail::DualQuatBlend<float> blend;
  ForInfluences(L, c, v, [&](std::uint16_t bone, float w) {
    blend.add(dqs + std::size_t(bone) * detail::kSkinningDualQuatFloats, w);
  });
  blend.toMatrix(1.0f, dst);
  for (int e = 12; e < 16; ++e) dst[e] = 0.0f;
}

HWY_INLINE std::uint64_t RestLanes(const std::uint8_t* rest_bits, std::size_t v0) {
  std::uint32_t word;
  std::memcpy(&word, rest_bits + v0 / 8, 4);
  const std::uint64_t bits = std::uint64_t(word) >> (v0 % 8);
  return bits & ((kN >= 64 ? ~0ull : (1ull << kN) - 1));
}

#if HWY_TARGET == HWY_SCALAR
// ----------------------------------------------------------------------------------------------
// No SIMD: one vertex at a time.

void SkinChunks(const detail::SkinningKernelArgs& a, std::size_t chunk_begin, std::size_t chunk_end) {
  const detail::SkinningView& L = a.layout;
  const bool normals = a.in_normals != nullptr;
  for (std::size_t c = chunk_begin; c < chunk_end; ++c) {
    for (std::size_t v = 0; v < kC; ++v) {
      const std::size_t vi = c * kC + v;
      if (vi >= L.vertex_count) break;
      const float* ip = a.in_positions + 3 * vi;
      const float* in = normals ? a.in_normals + 3 * vi : nullptr;
      float* op = a.out_positions + 3 * vi;
      float* on = normals ? a.out_normals + 3 * vi : nullptr;
      if (RestLanes(L.rest_bits, vi) != 0 || (L.chunk_k[c] == 0 && L.chunk_u[c] == 0)) {
        for (int i = 0; i < 3; ++i) {
          op[i] = ip[i];
          if (normals) on[i] = in[i];
        }
        continue;
      }
      float m[16];
      if (a.dual_quats != nullptr) {
        BlendDualQuatVertex(L, a.dual_quats, c, v, m);
      } else {
        for (float& e : m) e = 0.0f;
        ForInfluences(L, c, v, [&](std::uint16_t bone, float w) {
          const float* s = a.matrices + std::size_t(bone) * kRow;
          for (int e = 0; e < 12; ++e) m[e] += w * s[e];
        });
      }
      detail::transformVertex<float>(m, ip, in, op, on);
    }
  }
}

#else
// ----------------------------------------------------------------------------------------------
// SIMD: kN lanes = kN consecutive vertices (a chunk of 16 is 16 / kN sub-chunks).

// 4x4 transposes inside every 128-bit block.
HWY_INLINE void Transpose4(V x0, V x1, V x2, V x3, V& y0, V& y1, V& y2, V& y3) {
  const D d;
  const hn::Repartition<double, D> dd;
  const V t0 = hn::InterleaveLower(d, x0, x1);
  const V t1 = hn::InterleaveUpper(d, x0, x1);
  const V t2 = hn::InterleaveLower(d, x2, x3);
  const V t3 = hn::InterleaveUpper(d, x2, x3);
  y0 = hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t2)));
  y1 = hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t2)));
  y2 = hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, t1), hn::BitCast(dd, t3)));
  y3 = hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, t1), hn::BitCast(dd, t3)));
}

// From the matrices r[L] of the sub-chunk's vertices 4L + t (L < kN / 4), the block-transposed
// vectors x[j]: 128-bit block L of x[j] = row j of vertex 4L + t.
template <std::size_t N = kN>  // a template so that only the branch for N is instantiated
HWY_INLINE void BlockTranspose(const V (&r)[N / 4][kParts], V (&x)[3]) {
#if RIGFIT_SKIN_AVX512
  const __m512 w0 = _mm512_shuffle_f32x4(r[0][0].raw, r[1][0].raw, _MM_SHUFFLE(1, 0, 1, 0));  // A0 A1 B0 B1
  const __m512 w1 = _mm512_shuffle_f32x4(r[2][0].raw, r[3][0].raw, _MM_SHUFFLE(1, 0, 1, 0));  // C0 C1 D0 D1
  const __m512 w2 = _mm512_shuffle_f32x4(r[0][0].raw, r[1][0].raw, _MM_SHUFFLE(3, 2, 3, 2));  // A2 A3 B2 B3
  const __m512 w3 = _mm512_shuffle_f32x4(r[2][0].raw, r[3][0].raw, _MM_SHUFFLE(3, 2, 3, 2));  // C2 C3 D2 D3
  x[0] = V{_mm512_shuffle_f32x4(w0, w1, _MM_SHUFFLE(2, 0, 2, 0))};                             // A0 B0 C0 D0
  x[1] = V{_mm512_shuffle_f32x4(w0, w1, _MM_SHUFFLE(3, 1, 3, 1))};                             // A1 B1 C1 D1
  x[2] = V{_mm512_shuffle_f32x4(w2, w3, _MM_SHUFFLE(2, 0, 2, 0))};                             // A2 B2 C2 D2
#else
  const D d;
  if constexpr (N == 8) {  // r[L] = {[row0 | row1], [row2 | pad]}
    x[0] = hn::ConcatLowerLower(d, r[1][0], r[0][0]);
    x[1] = hn::ConcatUpperUpper(d, r[1][0], r[0][0]);
    x[2] = hn::ConcatLowerLower(d, r[1][1], r[0][1]);
  } else {  // kN == 4: r[0] = {row0, row1, row2}
    static_assert(N == 4, "unsupported vector size");
    (void)d;
    x[0] = r[0][0];
    x[1] = r[0][1];
    x[2] = r[0][2];
  }
#endif
}

#if RIGFIT_SKIN_AVX512
HWY_INLINE void LoadXYZ(const float* HWY_RESTRICT p, V& x, V& y, V& z) {
  const __m512 a = _mm512_loadu_ps(p), b = _mm512_loadu_ps(p + 16), c = _mm512_loadu_ps(p + 32);
  // Lane i of x is element 3i: lanes 0..10 from a:b, 11..15 from c.
  const __m512i ix1 = _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0);
  const __m512i ix2 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29);
  const __m512i iy1 = _mm512_setr_epi32(1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0);
  const __m512i iy2 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30);
  const __m512i iz1 = _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0);
  const __m512i iz2 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31);
  x = V{_mm512_permutex2var_ps(_mm512_permutex2var_ps(a, ix1, b), ix2, c)};
  y = V{_mm512_permutex2var_ps(_mm512_permutex2var_ps(a, iy1, b), iy2, c)};
  z = V{_mm512_permutex2var_ps(_mm512_permutex2var_ps(a, iz1, b), iz2, c)};
}

// Interleaves x, y, z into the 3 vectors of 16 consecutive xyz triples.
HWY_INLINE void InterleaveXYZ(V x, V y, V z, V (&o)[3]) {
  // Output element f (0..47) = component f % 3 of vertex f / 3.
  const __m512i ia1 = _mm512_setr_epi32(0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5);
  const __m512i ia2 = _mm512_setr_epi32(0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15);
  const __m512i ib1 = _mm512_setr_epi32(21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26);
  const __m512i ib2 = _mm512_setr_epi32(0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15);
  const __m512i ic1 = _mm512_setr_epi32(0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0);
  const __m512i ic2 = _mm512_setr_epi32(26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31);
  o[0] = V{_mm512_permutex2var_ps(_mm512_permutex2var_ps(x.raw, ia1, y.raw), ia2, z.raw)};
  o[1] = V{_mm512_permutex2var_ps(_mm512_permutex2var_ps(x.raw, ib1, y.raw), ib2, z.raw)};
  o[2] = V{_mm512_permutex2var_ps(_mm512_permutex2var_ps(x.raw, ic1, y.raw), ic2, z.raw)};
}

HWY_INLINE void StoreXYZ(V x, V y, V z, float* HWY_RESTRICT p) {
  V o[3];
  InterleaveXYZ(x, y, z, o);
  for (std::size_t i = 0; i < 3; ++i) hn::StoreU(o[i], D(), p + i * kN);
}

// p is 64-byte aligned.
HWY_INLINE void StreamXYZ(V x, V y, V z, float* HWY_RESTRICT p) {
  V o[3];
  InterleaveXYZ(x, y, z, o);
  for (std::size_t i = 0; i < 3; ++i) hn::Stream(o[i], D(), p + i * kN);
}
#else
HWY_INLINE void LoadXYZ(const float* HWY_RESTRICT p, V& x, V& y, V& z) { hn::LoadInterleaved3(D(), p, x, y, z); }
HWY_INLINE void StoreXYZ(V x, V y, V z, float* HWY_RESTRICT p) { hn::StoreInterleaved3(x, y, z, D(), p); }
// p is aligned to the vector size.
HWY_INLINE void StreamXYZ(V x, V y, V z, float* HWY_RESTRICT p) {
  const D d;
  alignas(64) float buf[3 * kN];
  hn::StoreInterleaved3(x, y, z, d, buf);
  for (std::size_t i = 0; i < 3; ++i) hn::Stream(hn::Load(d, buf + i * kN), d, p + i * kN);
}
#endif

// The outputs: ordinary stores, or non-temporal ones for meshes far bigger than the caches
// (the lines then go to memory without first being read into the cache).
template <bool kStream>
HWY_INLINE void PutXYZ(V x, V y, V z, float* HWY_RESTRICT p) {
  if constexpr (kStream) {
    StreamXYZ(x, y, z, p);
  } else {
    StoreXYZ(x, y, z, p);
  }
}

// Transforms kN consecutive vertices whose matrices are the SoA vectors m[row][col].
template <bool kNormals, bool kStream>
HWY_INLINE void Transform(const V (&m)[3][4], const float* in_p, const float* in_n, float* out_p, float* out_n,
                          std::uint64_t rest_lanes) {
  const D d;
  // All loads before any store: an output often sits at the same offset within a 4 KiB page as
  // an input (large arrays are page-aligned), and a load issued after such a store waits for it.
  V px, py, pz, nx, ny, nz;
  LoadXYZ(in_p, px, py, pz);
  if constexpr (kNormals) LoadXYZ(in_n, nx, ny, nz);
  V ox = hn::MulAdd(m[0][0], px, hn::MulAdd(m[0][1], py, hn::MulAdd(m[0][2], pz, m[0][3])));
  V oy = hn::MulAdd(m[1][0], px, hn::MulAdd(m[1][1], py, hn::MulAdd(m[1][2], pz, m[1][3])));
  V oz = hn::MulAdd(m[2][0], px, hn::MulAdd(m[2][1], py, hn::MulAdd(m[2][2], pz, m[2][3])));
  V tx, ty, tz;
  if constexpr (kNormals) {
    // Cofactor matrix rows: c_i = a_{i+1} x a_{i+2} (of the 3x3 part).
    const V(&a)[3][4] = m;
    const V c00 = hn::MulSub(a[1][1], a[2][2], hn::Mul(a[1][2], a[2][1]));
    const V c01 = hn::MulSub(a[1][2], a[2][0], hn::Mul(a[1][0], a[2][2]));
    const V c02 = hn::MulSub(a[1][0], a[2][1], hn::Mul(a[1][1], a[2][0]));
    tx = hn::MulAdd(c00, nx, hn::MulAdd(c01, ny, hn::Mul(c02, nz)));
    const V c10 = hn::MulSub(a[0][2], a[2][1], hn::Mul(a[0][1], a[2][2]));
    const V c11 = hn::MulSub(a[0][0], a[2][2], hn::Mul(a[0][2], a[2][0]));
    const V c12 = hn::MulSub(a[0][1], a[2][0], hn::Mul(a[0][0], a[2][1]));
    ty = hn::MulAdd(c10, nx, hn::MulAdd(c11, ny, hn::Mul(c12, nz)));
    const V c20 = hn::MulSub(a[0][1], a[1][2], hn::Mul(a[0][2], a[1][1]));
    const V c21 = hn::MulSub(a[0][2], a[1][0], hn::Mul(a[0][0], a[1][2]));
    const V c22 = hn::MulSub(a[0][0], a[1][1], hn::Mul(a[0][1], a[1][0]));
    tz = hn::MulAdd(c20, nx, hn::MulAdd(c21, ny, hn::Mul(c22, nz)));
    const V len2 = hn::MulAdd(tx, tx, hn::MulAdd(ty, ty, hn::Mul(tz, tz)));
#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
    // No hardware estimate: Highway emulates it (a bit trick and one Newton step, ~2e-3), so divide.
    const V r = hn::Div(hn::Set(d, 1.0f), hn::Sqrt(len2));
#else
    // 1/sqrt: the hardware estimate and one Newton step (relative error < 1e-6).
    V r = hn::ApproximateReciprocalSqrt(len2);
    const V h = hn::Mul(len2, hn::Set(d, 0.5f));
    r = hn::Mul(r, hn::NegMulAdd(h, hn::Mul(r, r), hn::Set(d, 1.5f)));
#endif
    const auto ok = hn::Gt(len2, hn::Set(d, 1e-30f));
    tx = hn::IfThenElse(ok, hn::Mul(tx, r), nx);
    ty = hn::IfThenElse(ok, hn::Mul(ty, r), ny);
    tz = hn::IfThenElse(ok, hn::Mul(tz, r), nz);
  }
  if (HWY_UNLIKELY(rest_lanes != 0)) {
    std::uint8_t bits[8];
    std::memcpy(bits, &rest_lanes, 8);
    const auto rest = hn::LoadMaskBits(d, bits);
    ox = hn::IfThenElse(rest, px, ox);
    oy = hn::IfThenElse(rest, py, oy);
    oz = hn::IfThenElse(rest, pz, oz);
    if constexpr (kNormals) {
      tx = hn::IfThenElse(rest, nx, tx);
      ty = hn::IfThenElse(rest, ny, ty);
      tz = hn::IfThenElse(rest, nz, tz);
    }
  }
  PutXYZ<kStream>(ox, oy, oz, out_p);
  if constexpr (kNormals) PutXYZ<kStream>(tx, ty, tz, out_n);
}

// Rows of the sub-chunk starting at chunk vertex s0 (vertices s0 .. s0 + kN - 1) in SoA form.
// row(v, acc) produces the matrix of chunk vertex v.
template <class RowFn>
HWY_INLINE void GatherMatrices(std::size_t s0, const RowFn& row, V (&m)[3][4]) {
  V x[3][4];
  for (std::size_t t = 0; t < 4; ++t) {
    V r[kN / 4][kParts];
    for (std::size_t l = 0; l < kN / 4; ++l) row(s0 + 4 * l + t, r[l]);
    V xt[3];
    BlockTranspose(r, xt);
    for (std::size_t j = 0; j < 3; ++j) x[j][t] = xt[j];
  }
  for (std::size_t j = 0; j < 3; ++j) Transpose4(x[j][0], x[j][1], x[j][2], x[j][3], m[j][0], m[j][1], m[j][2], m[j][3]);
}

// The pointer in a register of its own, so that the loads folded into FMAs use base + offset
// addressing: with base + index, each such FMA is two fused uops instead of one.
HWY_INLINE const float* PlainAddress(const float* p) {
  asm("" : "+r"(p));
  return p;
}

// Per-bone chunk: m = sum_j W_j * M_j with the 16 vertices' weights W_j as a vector and the
// matrix coefficients broadcast (folded into the FMAs): SoA directly, no transpose.
HWY_INLINE void GatherPerBone(std::size_t u, const float* HWY_RESTRICT mats, const std::uint16_t* HWY_RESTRICT b,
                              const float* HWY_RESTRICT w, std::size_t s0, V (&m)[3][4]) {
  const D d;
  const float* m0 = PlainAddress(mats + std::size_t(b[0]) * kRow);
  if (u == 1) {
    for (std::size_t j = 0; j < 3; ++j) {
      for (std::size_t e = 0; e < 4; ++e) m[j][e] = hn::Set(d, m0[4 * j + e]);
    }
    return;
  }
  const V w0 = hn::Load(d, w + s0);
  for (std::size_t j = 0; j < 3; ++j) {
    for (std::size_t e = 0; e < 4; ++e) m[j][e] = hn::Mul(w0, hn::Set(d, m0[4 * j + e]));
  }
  for (std::size_t i = 1; i < u; ++i) {
    const float* mi = PlainAddress(mats + std::size_t(b[i]) * kRow);
    const V wi = hn::Load(d, w + i * kC + s0);
    for (std::size_t j = 0; j < 3; ++j) {
      for (std::size_t e = 0; e < 4; ++e) m[j][e] = hn::MulAdd(wi, hn::Set(d, mi[4 * j + e]), m[j][e]);
    }
  }
}

// Per-bone chunk with dual quaternions: Blender's add_weighted_dq_dq / normalize_dq /
// mul_v3m3_dq for the 16 vertices at once (each bone's dual quaternion is broadcast; the sign
// flip is a per-lane select), giving the equivalent matrices in SoA form. A zero weight leaves
// the sums unchanged, as Blender's skipping it does.
HWY_INLINE void GatherPerBoneDualQuat(std::size_t u, const float* HWY_RESTRICT dqs, const std::uint16_t* HWY_RESTRICT b,
                                      const float* HWY_RESTRICT w, std::size_t s0, V (&m)[3][4]) {
  const D d;
  const V zero = hn::Zero(d);
  V sq[4] = {zero, zero, zero, zero}, st[4] = {zero, zero, zero, zero};
  V ss[12] = {zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero};
  V sw = zero;
  bool any_scale = false;
  for (std::size_t i = 0; i < u; ++i) {
    const float* q = dqs + std::size_t(b[i]) * detail::kSkinningDualQuatFloats;
    const V wi = u == 1 ? hn::Set(d, 1.0f) : hn::Load(d, w + i * kC + s0);
    const V dot = hn::MulAdd(hn::Set(d, q[0]), sq[0],
                             hn::MulAdd(hn::Set(d, q[1]), sq[1], hn::MulAdd(hn::Set(d, q[2]), sq[2], hn::Mul(hn::Set(d, q[3]), sq[3]))));
    const V ws = hn::IfThenElse(hn::Lt(dot, zero), hn::Neg(wi), wi);
    for (std::size_t c = 0; c < 4; ++c) {
      sq[c] = hn::MulAdd(ws, hn::Set(d, q[c]), sq[c]);
      st[c] = hn::MulAdd(ws, hn::Set(d, q[4 + c]), st[c]);
    }
    if (q[20] != 0.0f) {
      for (std::size_t c = 0; c < 12; ++c) ss[c] = hn::MulAdd(wi, hn::Set(d, q[8 + c]), ss[c]);
      sw = hn::Add(sw, wi);
      any_scale = true;
    }
  }
  const V two = hn::Set(d, 2.0f);
  const V qw = sq[0], qx = sq[1], qy = sq[2], qz = sq[3];
  const V ww = hn::Mul(qw, qw), xx = hn::Mul(qx, qx), yy = hn::Mul(qy, qy), zz = hn::Mul(qz, qz);
  const V xy = hn::Mul(qx, qy), xz = hn::Mul(qx, qz), yz = hn::Mul(qy, qz);
  const V wx = hn::Mul(qw, qx), wy = hn::Mul(qw, qy), wz = hn::Mul(qw, qz);
  const V r[3][3] = {{hn::Sub(hn::Add(ww, xx), hn::Add(yy, zz)), hn::Mul(two, hn::Sub(xy, wz)), hn::Mul(two, hn::Add(xz, wy))},
                     {hn::Mul(two, hn::Add(xy, wz)), hn::Sub(hn::Add(ww, yy), hn::Add(xx, zz)), hn::Mul(two, hn::Sub(yz, wx))},
                     {hn::Mul(two, hn::Sub(xz, wy)), hn::Mul(two, hn::Add(yz, wx)), hn::Sub(hn::Add(ww, zz), hn::Add(xx, yy))}};
  const V len2 = hn::Add(hn::Add(ww, xx), hn::Add(yy, zz));
  const V inv = hn::IfThenElseZero(hn::Gt(len2, zero), hn::Div(hn::Set(d, 1.0f), len2));
  const V t0 = st[0], t1 = st[1], t2 = st[2], t3 = st[3];
  // t = 2 * (-t0 x + w t1 - t2 z + y t3, -t0 y + t1 z - x t3 + w t2, -t0 z + x t2 + w t3 - t1 y)
  const V t[3] = {hn::Mul(two, hn::Sub(hn::MulAdd(qw, t1, hn::Mul(qy, t3)), hn::MulAdd(t0, qx, hn::Mul(t2, qz)))),
                  hn::Mul(two, hn::Sub(hn::MulAdd(t1, qz, hn::Mul(qw, t2)), hn::MulAdd(t0, qy, hn::Mul(qx, t3)))),
                  hn::Mul(two, hn::Sub(hn::MulAdd(qx, t2, hn::Mul(qw, t3)), hn::MulAdd(t0, qz, hn::Mul(t1, qy))))};
  if (any_scale) {
    // normalize_dq (total weight 1): lanes without a scaled bone get the identity.
    const V add = hn::Sub(hn::Set(d, 1.0f), sw);
    ss[0] = hn::Add(ss[0], add);
    ss[5] = hn::Add(ss[5], add);
    ss[10] = hn::Add(ss[10], add);
    for (std::size_t j = 0; j < 3; ++j) {
      for (std::size_t e = 0; e < 4; ++e) {
        V a = hn::MulAdd(r[j][0], ss[e], hn::MulAdd(r[j][1], ss[4 + e], hn::Mul(r[j][2], ss[8 + e])));
        if (e == 3) a = hn::Add(a, t[j]);
        m[j][e] = hn::Mul(a, inv);
      }
    }
  } else {
    for (std::size_t j = 0; j < 3; ++j) {
      for (std::size_t e = 0; e < 3; ++e) m[j][e] = hn::Mul(r[j][e], inv);
      m[j][3] = hn::Mul(t[j], inv);
    }
  }
}

// Where chunks read and write their vertices: the caller's arrays, or padded copies of the
// mesh's last, partial chunk (so that every vector is whole and the matrices never leave the
// registers).
struct Io {
  const float* in_p;
  const float* in_n;
  float* out_p;
  float* out_n;
  std::size_t first;  ///< the vertex at in_p[0]
};

template <bool kNormals, bool kStream, class Gather>
HWY_INLINE void SkinChunk(const detail::SkinningKernelArgs& a, const Io& io, std::size_t c, const Gather& gather) {
  for (std::size_t s0 = 0; s0 < kC; s0 += kN) {
    V m[3][4];
    gather(s0, m);
    const std::size_t v = c * kC + s0, o = 3 * (v - io.first);
    Transform<kNormals, kStream>(m, io.in_p + o, kNormals ? io.in_n + o : nullptr, io.out_p + o, kNormals ? io.out_n + o : nullptr,
                        RestLanes(a.layout.rest_bits, v));
  }
}

template <bool kNormals, bool kStream, std::size_t K>
HWY_NOINLINE void SkinChunkK(const detail::SkinningKernelArgs& a, const Io& io, std::size_t c) {
  const std::uint16_t* b = a.layout.bones + a.layout.chunk_bone[c];
  const float* w = a.layout.weights + a.layout.chunk_weight[c];
  const float* mats = a.matrices;
  SkinChunk<kNormals, kStream>(a, io, c, [&](std::size_t s0, V(&m)[3][4]) {
    GatherMatrices(s0, [&](std::size_t v, V(&acc)[kParts]) { BlendVertex<K>(mats, b, w, v, acc); }, m);
  });
}

// Whole chunks [chunk_begin, chunk_end).
template <bool kNormals, bool kStream>
void SkinRange(const detail::SkinningKernelArgs& a, const Io& io, std::size_t chunk_begin, std::size_t chunk_end) {
  const detail::SkinningView& L = a.layout;
  const D d;
  const float* mats = a.matrices;
  for (std::size_t c = chunk_begin; c < chunk_end; ++c) {
    const std::size_t k = L.chunk_k[c], u = L.chunk_u[c];
    const std::uint16_t* b = L.bones + L.chunk_bone[c];
    const float* w = L.weights + L.chunk_weight[c];
    if (HWY_UNLIKELY(k == 0 && u == 0)) {  // every vertex at rest
      const std::size_t o = 3 * (c * kC - io.first);
      if (io.out_p != io.in_p) std::memcpy(io.out_p + o, io.in_p + o, kC * 12);
      if (kNormals && io.out_n != io.in_n) std::memcpy(io.out_n + o, io.in_n + o, kC * 12);
      continue;
    }
    if (a.dual_quats != nullptr && u != 0) {
      const float* dqs = a.dual_quats;
      SkinChunk<kNormals, kStream>(a, io, c, [&](std::size_t s0, V(&m)[3][4]) { GatherPerBoneDualQuat(u, dqs, b, w, s0, m); });
      continue;
    }
    if (a.dual_quats != nullptr) {
      alignas(64) float rows[kC * kRow];
      for (std::size_t v = 0; v < kC; ++v) BlendDualQuatVertex(L, a.dual_quats, c, v, rows + v * kRow);
      SkinChunk<kNormals, kStream>(a, io, c, [&](std::size_t s0, V(&m)[3][4]) {
        GatherMatrices(s0, [&](std::size_t v, V(&acc)[kParts]) {
          for (std::size_t p = 0; p < kParts; ++p) acc[p] = hn::Load(d, rows + v * kRow + p * kN);
        }, m);
      });
      continue;
    }
    if (u != 0) {
      SkinChunk<kNormals, kStream>(a, io, c, [&](std::size_t s0, V(&m)[3][4]) { GatherPerBone(u, mats, b, w, s0, m); });
      continue;
    }
    switch (k) {
      case 1: SkinChunkK<kNormals, kStream, 1>(a, io, c); break;
      case 2: SkinChunkK<kNormals, kStream, 2>(a, io, c); break;
      case 3: SkinChunkK<kNormals, kStream, 3>(a, io, c); break;
      case 4: SkinChunkK<kNormals, kStream, 4>(a, io, c); break;
      case 5: SkinChunkK<kNormals, kStream, 5>(a, io, c); break;
      case 6: SkinChunkK<kNormals, kStream, 6>(a, io, c); break;
      default:
        SkinChunk<kNormals, kStream>(a, io, c, [&](std::size_t s0, V(&m)[3][4]) {
          GatherMatrices(s0, [&](std::size_t v, V(&acc)[kParts]) { BlendVertexAny(k, mats, b, w, v, acc); }, m);
        });
    }
  }
}

template <bool kNormals, bool kStream>
void SkinChunksImpl(const detail::SkinningKernelArgs& a, std::size_t chunk_begin, std::size_t chunk_end) {
  const detail::SkinningView& L = a.layout;
  const std::size_t tail = L.vertex_count % kC;  // vertices in a partial last chunk
  const bool partial = tail != 0 && chunk_begin < chunk_end && chunk_end == L.chunk_count;
  const std::size_t whole_end = partial ? chunk_end - 1 : chunk_end;
  SkinRange<kNormals, kStream>(a, Io{a.in_positions, a.in_normals, a.out_positions, a.out_normals, 0}, chunk_begin,
                               whole_end);
#if HWY_ARCH_X86
  if constexpr (kStream) _mm_sfence();  // the streamed lines are visible before the call returns
#endif
  if (!partial) return;
  const std::size_t v0 = whole_end * kC;
  alignas(64) float in_p[3 * kC] = {}, in_n[3 * kC] = {}, out_p[3 * kC], out_n[3 * kC];
  std::memcpy(in_p, a.in_positions + 3 * v0, tail * 12);
  if (kNormals) std::memcpy(in_n, a.in_normals + 3 * v0, tail * 12);
  SkinRange<kNormals, false>(a, Io{in_p, in_n, out_p, out_n, v0}, whole_end, chunk_end);
  std::memcpy(a.out_positions + 3 * v0, out_p, tail * 12);
  if (kNormals) std::memcpy(a.out_normals + 3 * v0, out_n, tail * 12);
}

void SkinChunks(const detail::SkinningKernelArgs& a, std::size_t chunk_begin, std::size_t chunk_end) {
  if (a.in_normals != nullptr) {
    a.stream ? SkinChunksImpl<true, true>(a, chunk_begin, chunk_end) : SkinChunksImpl<true, false>(a, chunk_begin, chunk_end);
  } else {
    a.stream ? SkinChunksImpl<false, true>(a, chunk_begin, chunk_end)
             : SkinChunksImpl<false, false>(a, chunk_begin, chunk_end);
  }
}
#endif  // HWY_TARGET == HWY_SCALAR

std::int64_t CompiledTarget() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace rigfit
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace rigfit::detail {
namespace {

struct Kernels {
  SkinningTarget target;
  std::int64_t hwy_target;  ///< HWY_AVX3, ...
  void (*skin)(const SkinningKernelArgs&, std::size_t, std::size_t);
  std::int64_t (*compiled_for)();  ///< HWY_TARGET of the code skin runs
};

#define RIGFIT_KERNELS(target, hwy_target, ns) {SkinningTarget::target, hwy_target, &ns::SkinChunks, &ns::CompiledTarget}
// The compiled targets, best first (lower Highway bits are better); the last one is
// HWY_STATIC_TARGET, which the compiler's flags already require of the CPU.
constexpr Kernels kCompiled[] = {
#if HWY_ARCH_X86
#if HWY_TARGETS & HWY_AVX3_DL
    RIGFIT_KERNELS(kAvx3Dl, HWY_AVX3_DL, N_AVX3_DL),
#endif
#if HWY_TARGETS & HWY_AVX3
    RIGFIT_KERNELS(kAvx3, HWY_AVX3, N_AVX3),
#endif
#if HWY_TARGETS & HWY_AVX2
    RIGFIT_KERNELS(kAvx2, HWY_AVX2, N_AVX2),
#endif
#if HWY_TARGETS & HWY_SSE4
    RIGFIT_KERNELS(kSse4, HWY_SSE4, N_SSE4),
#endif
#if HWY_TARGETS & HWY_SSSE3
    RIGFIT_KERNELS(kSsse3, HWY_SSSE3, N_SSSE3),
#endif
#if HWY_TARGETS & HWY_EMU128
    RIGFIT_KERNELS(kEmu128, HWY_EMU128, N_EMU128),
#endif
#if HWY_TARGETS & HWY_SCALAR
    RIGFIT_KERNELS(kScalar, HWY_SCALAR, N_SCALAR),
#endif
#else
    {SkinningTarget::kBaseline, HWY_STATIC_TARGET, &HWY_STATIC_DISPATCH(SkinChunks), &HWY_STATIC_DISPATCH(CompiledTarget)},
#endif
};
#undef RIGFIT_KERNELS

#if HWY_ARCH_X86
// GCC's __builtin_cpu_supports: libgcc's CPUID table, filled once per process; AVX and its
// extensions count only if the OS saves the YMM state (XCR0), AVX-512 only if also the opmask and
// ZMM state. Clang 14 does not know "f16c", "lzcnt" and "vaes": glibc's CPU_FEATURE_ACTIVE (the
// same OS checks) answers for those.
#if defined(__clang__)
#define RIGFIT_CPU_F16C CPU_FEATURE_ACTIVE(F16C)
#define RIGFIT_CPU_LZCNT CPU_FEATURE_ACTIVE(LZCNT)
#define RIGFIT_CPU_VAES CPU_FEATURE_ACTIVE(VAES)
#else
#define RIGFIT_CPU_F16C __builtin_cpu_supports("f16c")
#define RIGFIT_CPU_LZCNT __builtin_cpu_supports("lzcnt")
#define RIGFIT_CPU_VAES __builtin_cpu_supports("vaes")
#endif

// Highway 1.0.3's feature groups (hwy/targets.cc, DetectTargets), each including the previous one.
// (Highway also drops SSSE3 and SSE4 if the OS does not save the XMM registers; every x86-64 OS
// does, its ABI passes floats in them.)
bool cpuRunsSsse3() {
  __builtin_cpu_init();  // no-op once libgcc's constructor has run
  return __builtin_cpu_supports("sse") && __builtin_cpu_supports("sse2") && __builtin_cpu_supports("sse3") &&
         __builtin_cpu_supports("ssse3");
}
bool cpuRunsSse4() {
  return cpuRunsSsse3() && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2") &&
         __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("aes");
}
bool cpuRunsAvx2() {
  return cpuRunsSse4() && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") && RIGFIT_CPU_LZCNT &&
#ifndef HWY_DISABLE_BMI2_FMA
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma") &&
#endif
#ifndef HWY_DISABLE_F16C
         RIGFIT_CPU_F16C &&
#endif
         true;
}
bool cpuRunsAvx3() {
  return cpuRunsAvx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
}
bool cpuRunsAvx3Dl() {
  return cpuRunsAvx3() && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("vpclmulqdq") &&
         __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") && RIGFIT_CPU_VAES &&
         __builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512bitalg");
}
#endif  // HWY_ARCH_X86

bool cpuRuns(const Kernels& k) {
  if (k.hwy_target == HWY_STATIC_TARGET) return true;
#if HWY_ARCH_X86
  switch (k.target) {
    case SkinningTarget::kAvx3Dl: return cpuRunsAvx3Dl();
    case SkinningTarget::kAvx3: return cpuRunsAvx3();
    case SkinningTarget::kAvx2: return cpuRunsAvx2();
    case SkinningTarget::kSse4: return cpuRunsSse4();
    case SkinningTarget::kSsse3: return cpuRunsSsse3();
    case SkinningTarget::kEmu128:
    case SkinningTarget::kScalar: return true;
    case SkinningTarget::kBaseline: break;
  }
#endif
  return false;
}

const Kernels* find(SkinningTarget target) {
  for (const Kernels& k : kCompiled) {
    if (k.target == target) return &k;
  }
  return nullptr;
}

const Kernels& best() {
  for (const Kernels& k : kCompiled) {
    if (cpuRuns(k)) return k;
  }
  return kCompiled[std::size(kCompiled) - 1];
}

}  // namespace

const char* skinningTargetName(SkinningTarget target) {
  switch (target) {
    case SkinningTarget::kAvx3Dl: return "AVX3_DL";
    case SkinningTarget::kAvx3: return "AVX3";
    case SkinningTarget::kAvx2: return "AVX2";
    case SkinningTarget::kSse4: return "SSE4";
    case SkinningTarget::kSsse3: return "SSSE3";
    case SkinningTarget::kEmu128: return "EMU128";
    case SkinningTarget::kScalar: return "SCALAR";
    case SkinningTarget::kBaseline: break;
  }
  return "baseline";
}

std::vector<SkinningTarget> skinningCompiledTargets() {
  std::vector<SkinningTarget> out;
  for (const Kernels& k : kCompiled) out.push_back(k.target);
  return out;
}

bool skinningTargetSupported(SkinningTarget target) {
  const Kernels* k = find(target);
  return k != nullptr && cpuRuns(*k);
}

SkinningTarget skinningBestTarget() { return best().target; }

const char* skinningKernelTargetName(SkinningTarget target) {
  const Kernels* k = find(target);
  return k != nullptr ? hwy::TargetName(k->compiled_for()) : nullptr;
}

void skinChunks(const SkinningKernelArgs& args, std::size_t chunk_begin, std::size_t chunk_end, SkinningTarget target) {
  const Kernels* k = find(target);
  (k != nullptr ? *k : best()).skin(args, chunk_begin, chunk_end);
}

}  // namespace rigfit::detail
#endif  // HWY_ONCE
