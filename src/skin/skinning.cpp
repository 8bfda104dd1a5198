// Skinning: layout preparation, job validation and dispatch, thread pool, Blender's dual
// quaternions, and the scalar paths (double-precision reference; float over the raw Skin).
// The SIMD kernels are in skinning_kernels.cpp.
#include "rigfit/skinning.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include <Eigen/Geometry>
#include <Eigen/LU>

namespace rigfit {

namespace {

constexpr std::size_t kChunk = detail::kSkinningChunk;

// ------------------------------------------------------------------------------------------------
// Blender's math (BLI_math_rotation / BLI_math_matrix), in double.

bool isOrthonormal3(const Eigen::Matrix3d& m) {  // is_orthonormal_m3: columns, 1e-5
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < i; ++j) {
      if (std::abs(m.col(i).dot(m.col(j))) > 1e-5) return false;
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (std::abs(m.col(i).squaredNorm() - 1.0) > 1e-5) return false;
  }
  return true;
}

// orthogonalize_m4(R, 1): keep the Y axis, rebuild X and Z, keep the column lengths.
void orthogonalizeY(Eigen::Matrix4d& r) {
  const Eigen::Vector3d size(r.col(0).head<3>().norm(), r.col(1).head<3>().norm(), r.col(2).head<3>().norm());
  Eigen::Vector3d c0 = r.col(0).head<3>(), c1 = r.col(1).head<3>(), c2 = r.col(2).head<3>();
  if (c1.norm() != 0.0) c1.normalize();
  auto normalized = [](Eigen::Vector3d v) {
    const double n = v.norm();
    return n != 0.0 ? Eigen::Vector3d(v / n) : v;
  };
  if (c1.dot(c0) < 1) {
    c2 = normalized(c0.cross(c1));
    c0 = c1.cross(c2);
  } else if (c0.dot(c2) < 1) {
    c0 = normalized(c1.cross(c2));
    c2 = c0.cross(c1);
  } else {
    const Eigen::Vector3d vec(c1.y(), c1.z(), c1.x());
    c0 = normalized(c1.cross(vec));
    c2 = c0.cross(c1);
  }
  r.col(0).head<3>() = c0 * size.x();
  r.col(1).head<3>() = c1 * size.y();
  r.col(2).head<3>() = c2 * size.z();
}

// mat3_normalized_to_quat_fast (Blender 3.4): (w, x, y, z) with w >= 0. m(c, r) is Blender's
// mat[c][r] (column c, row r).
Eigen::Vector4d normalizedMat3ToQuat(const Eigen::Matrix3d& mm) {
  auto m = [&](int c, int r) { return mm(r, c); };
  Eigen::Vector4d q;
  if (m(2, 2) < 0.0) {
    if (m(0, 0) > m(1, 1)) {
      const double trace = 1.0 + m(0, 0) - m(1, 1) - m(2, 2);
      double s = 2.0 * std::sqrt(trace);
      if (m(1, 2) < m(2, 1)) s = -s;
      q[1] = 0.25 * s;
      s = 1.0 / s;
      q[0] = (m(1, 2) - m(2, 1)) * s;
      q[2] = (m(0, 1) + m(1, 0)) * s;
      q[3] = (m(2, 0) + m(0, 2)) * s;
    } else {
      const double trace = 1.0 - m(0, 0) + m(1, 1) - m(2, 2);
      double s = 2.0 * std::sqrt(trace);
      if (m(2, 0) < m(0, 2)) s = -s;
      q[2] = 0.25 * s;
      s = 1.0 / s;
      q[0] = (m(2, 0) - m(0, 2)) * s;
      q[1] = (m(0, 1) + m(1, 0)) * s;
      q[3] = (m(1, 2) + m(2, 1)) * s;
    }
  } else {
    if (m(0, 0) < -m(1, 1)) {
      const double trace = 1.0 - m(0, 0) - m(1, 1) + m(2, 2);
      double s = 2.0 * std::sqrt(trace);
      if (m(0, 1) < m(1, 0)) s = -s;
      q[3] = 0.25 * s;
      s = 1.0 / s;
      q[0] = (m(0, 1) - m(1, 0)) * s;
      q[1] = (m(2, 0) + m(0, 2)) * s;
      q[2] = (m(1, 2) + m(2, 1)) * s;
    } else {
      const double trace = 1.0 + m(0, 0) + m(1, 1) + m(2, 2);
      double s = 2.0 * std::sqrt(trace);
      q[0] = 0.25 * s;
      s = 1.0 / s;
      q[1] = (m(1, 2) - m(2, 1)) * s;
      q[2] = (m(2, 0) - m(0, 2)) * s;
      q[3] = (m(0, 1) - m(1, 0)) * s;
    }
  }
  const double len = q.norm();
  if (len != 0.0 && std::isfinite(len)) q /= len;
  return q;
}

// mat4_to_quat: normalise the columns of the 3x3, flip a negative matrix, convert.
Eigen::Vector4d mat4ToQuat(const Eigen::Matrix4d& m4) {
  Eigen::Matrix3d m = m4.topLeftCorner<3, 3>();
  for (int c = 0; c < 3; ++c) {
    const double n = m.col(c).norm();
    if (n != 0.0) m.col(c) /= n;
  }
  const double det = m.determinant();
  if (!std::isfinite(det)) {
    m.setIdentity();
  } else if (det < 0.0) {
    m = -m;
  }
  return normalizedMat3ToQuat(m);
}

Eigen::Matrix4d quatToMat4(const Eigen::Vector4d& q) {
  const double q0 = M_SQRT2 * q[0], q1 = M_SQRT2 * q[1], q2 = M_SQRT2 * q[2], q3 = M_SQRT2 * q[3];
  const double qda = q0 * q1, qdb = q0 * q2, qdc = q0 * q3, qaa = q1 * q1, qab = q1 * q2, qac = q1 * q3,
               qbb = q2 * q2, qbc = q2 * q3, qcc = q3 * q3;
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();  // m(row, col); Blender's m[col][row]
  m(0, 0) = 1.0 - qbb - qcc;
  m(1, 0) = qdc + qab;
  m(2, 0) = -qdb + qac;
  m(0, 1) = -qdc + qab;
  m(1, 1) = 1.0 - qaa - qcc;
  m(2, 1) = qda + qbc;
  m(0, 2) = qdb + qac;
  m(1, 2) = -qda + qbc;
  m(2, 2) = 1.0 - qaa - qbb;
  return m;
}

Eigen::Matrix4d affineInverse(const Eigen::Matrix4d& m) {
  const Eigen::FullPivLU<Eigen::Matrix4d> lu(m);
  return lu.isInvertible() ? Eigen::Matrix4d(lu.inverse()) : Eigen::Matrix4d(Eigen::Matrix4d::Zero());
}

Eigen::Matrix4d unpack(const float* p) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) m(r, c) = p[r * 4 + c];
  }
  return m;
}

// ------------------------------------------------------------------------------------------------
// Scalar paths over the raw Skin: Real = double (reference) or float.

template <typename Real>
struct Mat34 {
  Real a[3][4];
};

template <typename Real>
void transformVertex(const Mat34<Real>& m, const float* ip, const float* in, float* op, float* on) {
  const Real x = ip[0], y = ip[1], z = ip[2];
  for (int r = 0; r < 3; ++r) op[r] = static_cast<float>(m.a[r][0] * x + m.a[r][1] * y + m.a[r][2] * z + m.a[r][3]);
  if (in == nullptr) return;
  const auto& a = m.a;
  const Real nx = in[0], ny = in[1], nz = in[2];
  const Real c[3][3] = {{a[1][1] * a[2][2] - a[1][2] * a[2][1], a[1][2] * a[2][0] - a[1][0] * a[2][2],
                         a[1][0] * a[2][1] - a[1][1] * a[2][0]},
                        {a[0][2] * a[2][1] - a[0][1] * a[2][2], a[0][0] * a[2][2] - a[0][2] * a[2][0],
                         a[0][1] * a[2][0] - a[0][0] * a[2][1]},
                        {a[0][1] * a[1][2] - a[0][2] * a[1][1], a[0][2] * a[1][0] - a[0][0] * a[1][2],
                         a[0][0] * a[1][1] - a[0][1] * a[1][0]}};
  Real t[3];
  for (int r = 0; r < 3; ++r) t[r] = c[r][0] * nx + c[r][1] * ny + c[r][2] * nz;
  const Real len2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
  if (len2 > Real(1e-30)) {
    const Real s = Real(1) / std::sqrt(len2);
    for (int r = 0; r < 3; ++r) on[r] = static_cast<float>(t[r] * s);
  } else {
    for (int r = 0; r < 3; ++r) on[r] = in[r];
  }
}

// Blender's DualQuat in Real.
template <typename Real>
struct DualQuatR {
  Real quat[4];
  Real trans[4];
  Real scale[3][4];  // rows of the 3x4 part
  bool has_scale;
};

template <typename Real>
DualQuatR<Real> toReal(const SkinningDualQuat& d) {
  DualQuatR<Real> r{};
  for (int i = 0; i < 4; ++i) {
    r.quat[i] = static_cast<Real>(d.quat[i]);
    r.trans[i] = static_cast<Real>(d.trans[i]);
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) r.scale[i][j] = static_cast<Real>(d.scale(i, j));
  }
  r.has_scale = d.has_scale;
  return r;
}

// add_weighted_dq_dq over the vertex's influences (raw weights, zero weights skipped), then
// normalize_dq(total) and mul_v3m3_dq expressed as a 3x4 matrix.
template <typename Real>
Mat34<Real> blendDualQuats(const DualQuatR<Real>* dqs, const std::uint16_t* bones, const float* weights,
                           std::size_t count, Real total) {
  Real sq[4] = {0, 0, 0, 0}, st[4] = {0, 0, 0, 0}, ss[3][4] = {};
  Real sw = 0;
  for (std::size_t i = 0; i < count; ++i) {
    Real w = weights[i];
    if (w == 0) continue;
    const DualQuatR<Real>& q = dqs[bones[i]];
    bool flipped = false;
    if (q.quat[0] * sq[0] + q.quat[1] * sq[1] + q.quat[2] * sq[2] + q.quat[3] * sq[3] < 0) {
      flipped = true;
      w = -w;
    }
    for (int c = 0; c < 4; ++c) {
      sq[c] += w * q.quat[c];
      st[c] += w * q.trans[c];
    }
    if (q.has_scale) {
      if (flipped) w = -w;
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) ss[r][c] += w * q.scale[r][c];
      }
      sw += w;
    }
  }
  const Real inv = Real(1) / total;
  for (int c = 0; c < 4; ++c) {
    sq[c] *= inv;
    st[c] *= inv;
  }
  if (sw != 0) {
    const Real add = total - sw;
    if (add != 0) {
      ss[0][0] += add;
      ss[1][1] += add;
      ss[2][2] += add;
    }
    for (auto& row : ss) {
      for (Real& v : row) v *= inv;
    }
  }
  const Real w = sq[0], x = sq[1], y = sq[2], z = sq[3];
  const Real t0 = st[0], t1 = st[1], t2 = st[2], t3 = st[3];
  const Real m[3][3] = {{w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)},
                        {2 * (x * y + w * z), w * w + y * y - x * x - z * z, 2 * (y * z - w * x)},
                        {2 * (x * z - w * y), 2 * (y * z + w * x), w * w + z * z - x * x - y * y}};
  Real len2 = w * w + x * x + y * y + z * z;
  if (len2 > 0) len2 = Real(1) / len2;
  const Real t[3] = {2 * (-t0 * x + w * t1 - t2 * z + y * t3), 2 * (-t0 * y + t1 * z - x * t3 + w * t2),
                     2 * (-t0 * z + x * t2 + w * t3 - t1 * y)};
  Mat34<Real> out;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) {
      Real a;
      if (sw != 0) {
        a = m[r][0] * ss[0][c] + m[r][1] * ss[1][c] + m[r][2] * ss[2][c];
      } else {
        a = c < 3 ? m[r][c] : Real(0);
      }
      if (c == 3) a += t[r];
      out.a[r][c] = a * len2;
    }
  }
  return out;
}

template <typename Real>
void skinScalarRange(const SkinningJob& job, const DualQuatR<Real>* dqs, std::size_t v_begin, std::size_t v_end) {
  const Skin& skin = *job.skin;
  const bool normals = !job.in_normals.empty();
  const float* mats = job.matrices.data();
  for (std::size_t v = v_begin; v < v_end; ++v) {
    const std::uint32_t o0 = skin.offsets[v], o1 = skin.offsets[v + 1];
    const std::span<const float> w(skin.weights.data() + o0, o1 - o0);
    const float* ip = job.in_positions.data() + 3 * v;
    const float* in = normals ? job.in_normals.data() + 3 * v : nullptr;
    float* op = job.out_positions.data() + 3 * v;
    float* on = normals ? job.out_normals.data() + 3 * v : nullptr;
    if (!skinningDeforms(w)) {
      for (int c = 0; c < 3; ++c) {
        op[c] = ip[c];
        if (normals) on[c] = in[c];
      }
      continue;
    }
    Real total = 0;
    for (float x : w) total += x;
    Mat34<Real> m{};
    if (dqs != nullptr) {
      m = blendDualQuats<Real>(dqs, skin.bones.data() + o0, w.data(), w.size(), total);
    } else {
      for (std::size_t i = 0; i < w.size(); ++i) {
        const Real f = Real(w[i]) / total;
        const float* s = mats + 12 * std::size_t(skin.bones[o0 + i]);
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 4; ++c) m.a[r][c] += f * Real(s[r * 4 + c]);
        }
      }
    }
    // in and out may alias: read everything first (transformVertex reads the inputs before writing).
    float p[3] = {ip[0], ip[1], ip[2]}, n[3] = {0, 0, 0};
    if (normals) std::memcpy(n, in, sizeof n);
    transformVertex<Real>(m, p, normals ? n : nullptr, op, on);
  }
}

bool overlaps(std::span<const float> a, std::span<float> b) {
  if (a.empty() || b.empty()) return false;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data()), a1 = a0 + a.size_bytes();
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data()), b1 = b0 + b.size_bytes();
  return a0 < b1 && b0 < a1;
}

bool badAlias(std::span<const float> in, std::span<float> out) {
  return overlaps(in, out) && !(in.data() == out.data() && in.size() == out.size());
}

// Runs fn(part) for part in [0, parts) with the job's pool or with std::threads.
template <typename Fn>
void runParts(const SkinningJob& job, int parts, Fn&& fn) {
  if (parts <= 1) {
    fn(0);
    return;
  }
  if (job.pool != nullptr) {
    const std::function<void(int)> f = [&](int i) { fn(i); };
    job.pool->parallelFor(parts, f);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(parts - 1));
  for (int i = 1; i < parts; ++i) threads.emplace_back([&fn, i] { fn(i); });
  fn(0);
  for (auto& t : threads) t.join();
}

// Vertices per part below which splitting costs more than it saves.
constexpr std::size_t kMinVerticesPerPart = 4096;

int partsFor(const SkinningJob& job, std::size_t vertices) {
  int parts = job.threads;
  if (job.pool != nullptr) parts = std::min(parts, job.pool->threads());
  const std::size_t by_size = std::max<std::size_t>(1, vertices / kMinVerticesPerPart);
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(parts, 1)), by_size));
}

// Pieces the layout path splits into: with a pool, a few per thread, taken from a shared counter,
// so that a worker that starts late (its core busy) takes fewer and the job still ends when the
// work does; with std::threads (or a pool larger than the job's threads, all of whose threads
// would join in), one per thread.
int piecesFor(const SkinningJob& job, std::size_t vertices, int parts) {
  if (job.pool == nullptr || job.pool->threads() > parts) return parts;
  constexpr int kPiecesPerThread = 4;
  constexpr std::size_t kMinVerticesPerPiece = 2048;
  const std::size_t by_size = std::max<std::size_t>(1, vertices / kMinVerticesPerPiece);
  return static_cast<int>(std::clamp<std::size_t>(by_size, static_cast<std::size_t>(parts),
                                                  static_cast<std::size_t>(parts) * kPiecesPerThread));
}

// A 64-byte aligned float buffer on the stack for small sizes, on the heap otherwise.
class Scratch {
 public:
  explicit Scratch(std::size_t floats) {
    if (floats <= kInline) {
      data_ = inline_;
    } else {
      heap_.reset(new (std::align_val_t(64)) float[floats]);
      data_ = heap_.get();
    }
  }
  float* data() { return data_; }

 private:
  struct AlignedDelete {
    void operator()(float* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  static constexpr std::size_t kInline = 512 * 24;  // 512 bones of dual quaternions
  alignas(64) float inline_[kInline];
  std::unique_ptr<float[], AlignedDelete> heap_;
  float* data_ = nullptr;
};

}  // namespace

// ------------------------------------------------------------------------------------------------

bool skinningDeforms(std::span<const float> weights) {
  float total = 0.0f;
  for (float w : weights) total += w;
  return total > kSkinningRestWeight;
}

SkinningDualQuat skinningDualQuat(const Eigen::Matrix4d& basemat, const Eigen::Matrix4d& mat) {
  SkinningDualQuat dq;
  const Eigen::Matrix4d base_rs = mat * basemat;
  const Eigen::Vector3d scale(base_rs.col(0).head<3>().norm(), base_rs.col(1).head<3>().norm(),
                              base_rs.col(2).head<3>().norm());
  const Eigen::Vector3d dscale = scale - Eigen::Vector3d::Ones();
  Eigen::Matrix4d r;
  if (!isOrthonormal3(mat.topLeftCorner<3, 3>()) || mat.determinant() < 0.0 || dscale.squaredNorm() > 1e-8) {
    // Split the pose matrix into a rotation (Y axis kept) and a scale, in the bone's rest frame.
    Eigen::Matrix4d tmp = base_rs;
    orthogonalizeY(tmp);
    const Eigen::Vector4d basequat = mat4ToQuat(tmp);
    Eigen::Matrix4d base_r = quatToMat4(basequat);
    base_r.col(3).head<3>() = base_rs.col(3).head<3>();
    const Eigen::Matrix4d baseinv = affineInverse(basemat);
    r = base_r * baseinv;
    const Eigen::Matrix4d s = affineInverse(base_r) * base_rs;
    dq.scale = basemat * s * baseinv;
    dq.has_scale = true;
  } else {
    r = mat;
    dq.scale.setIdentity();
    dq.has_scale = false;
  }
  dq.quat = mat4ToQuat(r);
  const Eigen::Vector3d t = r.col(3).head<3>();
  const Eigen::Vector4d& q = dq.quat;
  dq.trans[0] = -0.5 * (t[0] * q[1] + t[1] * q[2] + t[2] * q[3]);
  dq.trans[1] = 0.5 * (t[0] * q[0] + t[1] * q[3] - t[2] * q[2]);
  dq.trans[2] = 0.5 * (-t[0] * q[3] + t[1] * q[0] + t[2] * q[1]);
  dq.trans[3] = 0.5 * (t[0] * q[2] - t[1] * q[1] + t[2] * q[0]);
  return dq;
}

void packSkinningMatrices(std::span<const Eigen::Matrix4d> matrices, std::span<float> out) {
  const std::size_t n = std::min(matrices.size(), out.size() / 12);
  for (std::size_t b = 0; b < n; ++b) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) out[12 * b + 4 * r + c] = static_cast<float>(matrices[b](r, c));
    }
  }
}

// ------------------------------------------------------------------------------------------------
// SkinningLayout

Expected<SkinningLayout> SkinningLayout::build(const Skin& skin) {
  const std::size_t n = skin.vertex_count;
  if (skin.offsets.size() != n + 1) {
    return makeError(ErrorCode::kSchema, "skin: offsets has " + std::to_string(skin.offsets.size()) +
                                             " entries, expected vertex_count + 1 = " + std::to_string(n + 1));
  }
  if (skin.offsets[0] != 0) return makeError(ErrorCode::kSchema, "skin: offsets[0] is not 0");
  for (std::size_t v = 0; v < n; ++v) {
    if (skin.offsets[v + 1] < skin.offsets[v]) {
      return makeError(ErrorCode::kSchema, "skin: offsets[" + std::to_string(v + 1) + "] decreases");
    }
  }
  if (skin.bones.size() != skin.offsets[n] || skin.weights.size() != skin.offsets[n]) {
    return makeError(ErrorCode::kSchema, "skin: bones/weights sizes (" + std::to_string(skin.bones.size()) + ", " +
                                             std::to_string(skin.weights.size()) + ") differ from offsets[" +
                                             std::to_string(n) + "] = " + std::to_string(skin.offsets[n]));
  }
  if (skin.bone_count > 65536) return makeError(ErrorCode::kRange, "skin: more than 65536 bones");
  for (std::size_t i = 0; i < skin.bones.size(); ++i) {
    if (skin.bones[i] >= skin.bone_count) {
      return makeError(ErrorCode::kRange, "skin: influence " + std::to_string(i) + " names bone " +
                                              std::to_string(skin.bones[i]) + " of " +
                                              std::to_string(skin.bone_count));
    }
    if (!(skin.weights[i] >= 0.0f) || !std::isfinite(skin.weights[i])) {
      return makeError(ErrorCode::kRange,
                       "skin: influence " + std::to_string(i) + " has weight " + std::to_string(skin.weights[i]));
    }
  }

  SkinningLayout L;
  L.vertex_count_ = n;
  L.bone_count_ = skin.bone_count;
  L.rest_bits_.assign((n + 7) / 8 + 8, 0);
  L.histogram_.assign(1, 0);
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  L.chunk_k_.reserve(chunks);
  L.chunk_u_.reserve(chunks);
  L.chunk_bone_.reserve(chunks);
  L.chunk_weight_.reserve(chunks);
  L.chunk_cost_.reserve(chunks);
  std::vector<std::uint32_t> count(kChunk), begin(kChunk + 1);
  std::vector<std::uint16_t> kb;  // this chunk's kept influences, vertex by vertex
  std::vector<float> kw;
  std::vector<std::uint16_t> distinct;
  std::vector<double> distinct_weight;
  double cost = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * kChunk;
    const std::size_t m = std::min(kChunk, n - first);
    std::uint32_t k_chunk = 0;
    kb.clear();
    kw.clear();
    distinct.clear();
    distinct_weight.clear();
    for (std::size_t v = 0; v < kChunk; ++v) {
      begin[v] = static_cast<std::uint32_t>(kb.size());
      std::uint32_t k = 0;
      if (v < m) {
        const std::size_t vi = first + v;
        const std::uint32_t o0 = skin.offsets[vi], o1 = skin.offsets[vi + 1];
        const std::span<const float> w(skin.weights.data() + o0, o1 - o0);
        if (skinningDeforms(w)) {
          float total = 0.0f;
          for (float x : w) total += x;
          for (std::uint32_t i = o0; i < o1; ++i) {
            if (skin.weights[i] == 0.0f) continue;
            const float nw = static_cast<float>(double(skin.weights[i]) / double(total));
            kb.push_back(skin.bones[i]);
            kw.push_back(nw);
            ++k;
            const auto it = std::find(distinct.begin(), distinct.end(), skin.bones[i]);
            if (it == distinct.end()) {
              distinct.push_back(skin.bones[i]);
              distinct_weight.push_back(nw);
            } else {
              distinct_weight[static_cast<std::size_t>(it - distinct.begin())] += nw;
            }
          }
        } else {
          L.rest_bits_[vi / 8] |= static_cast<std::uint8_t>(1u << (vi % 8));
          ++L.rest_count_;
        }
        if (k >= L.histogram_.size()) L.histogram_.resize(k + 1, 0);
        ++L.histogram_[k];
        L.max_influences_ = std::max(L.max_influences_, static_cast<int>(k));
      }
      count[v] = k;
      k_chunk = std::max(k_chunk, k);
    }
    begin[kChunk] = static_cast<std::uint32_t>(kb.size());
    const std::size_t u = distinct.size();
    if (L.bones_.size() + std::max<std::size_t>(k_chunk * kChunk, u) > 0xffffffffu ||
        L.weights_.size() + std::max<std::size_t>(k_chunk, u) * kChunk > 0xffffffffu) {
      return makeError(ErrorCode::kRange, "skin: more than 2^32 - 1 influence slots");
    }
    L.chunk_bone_.push_back(static_cast<std::uint32_t>(L.bones_.size()));
    L.chunk_weight_.push_back(static_cast<std::uint32_t>(L.weights_.size()));
    // Kernel work, in FMA-sized units: per bone, 12 broadcast FMAs; per vertex slot, one FMA
    // per vertex plus a 52-shuffle transpose.
    const double per_bone = 12.0 * static_cast<double>(u);
    const double per_vertex = 16.0 * k_chunk + 52.0;
    if (k_chunk == 0) {  // every vertex at rest
      L.chunk_k_.push_back(0);
      L.chunk_u_.push_back(0);
    } else if (u <= 255 && per_bone <= per_vertex) {
      // Per bone: heaviest bones first; a vertex's influences on one bone are summed.
      std::vector<std::size_t> order(u);
      for (std::size_t j = 0; j < u; ++j) order[j] = j;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t x, std::size_t y) { return distinct_weight[x] > distinct_weight[y]; });
      L.chunk_k_.push_back(0);
      L.chunk_u_.push_back(static_cast<std::uint8_t>(u));
      for (std::size_t j : order) L.bones_.push_back(distinct[j]);
      if (u > 1) {
        const std::size_t w0 = L.weights_.size();
        L.weights_.resize(w0 + u * kChunk, 0.0f);
        for (std::size_t v = 0; v < kChunk; ++v) {
          for (std::uint32_t i = begin[v]; i < begin[v] + count[v]; ++i) {
            const std::size_t j = static_cast<std::size_t>(
                std::find_if(order.begin(), order.end(), [&](std::size_t x) { return distinct[x] == kb[i]; }) -
                order.begin());
            L.weights_[w0 + j * kChunk + v] += kw[i];
          }
        }
      }
    } else {
      if (k_chunk > 255) return makeError(ErrorCode::kRange, "skin: a vertex has more than 255 non-zero influences");
      // Per vertex, influence-major: slot i of vertex v at i * kChunk + v; missing slots: bone 0, weight 0.
      L.chunk_k_.push_back(static_cast<std::uint8_t>(k_chunk));
      L.chunk_u_.push_back(0);
      const std::size_t b0 = L.bones_.size(), w0 = L.weights_.size();
      L.bones_.resize(b0 + std::size_t(k_chunk) * kChunk, 0);
      L.weights_.resize(w0 + std::size_t(k_chunk) * kChunk, 0.0f);
      for (std::size_t v = 0; v < kChunk; ++v) {
        for (std::uint32_t i = 0; i < count[v]; ++i) {
          L.bones_[b0 + i * kChunk + v] = kb[begin[v] + i];
          L.weights_[w0 + i * kChunk + v] = kw[begin[v] + i];
        }
      }
    }
    cost += std::min(per_bone, per_vertex) + 80.0;  // + the transform
    L.chunk_cost_.push_back(cost);
  }
  return L;
}

std::size_t SkinningLayout::memoryBytes() const {
  return histogram_.capacity() * sizeof(std::size_t) + chunk_k_.capacity() + chunk_u_.capacity() +
         chunk_bone_.capacity() * 4 + chunk_weight_.capacity() * 4 +
         bones_.capacity() * 2 + weights_.capacity() * 4 + rest_bits_.capacity() + chunk_cost_.capacity() * sizeof(double);
}

detail::SkinningView SkinningLayout::view() const {
  detail::SkinningView v;
  v.vertex_count = vertex_count_;
  v.chunk_count = chunk_k_.size();
  v.chunk_k = chunk_k_.data();
  v.chunk_u = chunk_u_.data();
  v.chunk_bone = chunk_bone_.data();
  v.chunk_weight = chunk_weight_.data();
  v.bones = bones_.data();
  v.weights = weights_.data();
  v.rest_bits = rest_bits_.data();
  return v;
}

std::vector<std::size_t> SkinningLayout::split(int parts) const {
  const std::size_t nb = chunk_k_.size();
  parts = std::max(1, std::min<int>(parts, static_cast<int>(std::max<std::size_t>(nb, 1))));
  std::vector<std::size_t> cut(static_cast<std::size_t>(parts) + 1, nb);
  cut[0] = 0;
  const double total = nb ? chunk_cost_.back() : 0.0;
  for (int i = 1; i < parts; ++i) {
    const double target = total * i / parts;
    // First block whose cumulative cost reaches the target ends part i - 1.
    const auto it = std::lower_bound(chunk_cost_.begin(), chunk_cost_.end(), target);
    std::size_t b = static_cast<std::size_t>(it - chunk_cost_.begin()) + 1;
    cut[static_cast<std::size_t>(i)] = std::clamp(b, cut[static_cast<std::size_t>(i) - 1], nb);
  }
  return cut;
}

// ------------------------------------------------------------------------------------------------
// SkinningPool

SkinningPool::SkinningPool(int threads) {
  const int workers = std::max(0, std::min(threads, 1024) - 1);
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { workerLoop(); });
}

SkinningPool::~SkinningPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (auto& t : workers_) t.join();
}

void SkinningPool::workerLoop() {
  std::uint32_t seen = generation_.load(std::memory_order_acquire);
  for (;;) {
    // Spin for a while (back-to-back jobs start at once), then sleep until the next job.
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    std::uint32_t g = generation_.load(std::memory_order_acquire);
    for (int i = 0; g == seen; ++i) {
      if ((i & 63) == 63 && std::chrono::steady_clock::now() > spin_until) {
        generation_.wait(seen, std::memory_order_acquire);
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      g = generation_.load(std::memory_order_acquire);
    }
    seen = g;
    if (stop_.load()) return;
    const std::function<void(int)>* fn = fn_;
    const int count = count_;
    for (int i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) {
      (*fn)(i);
      done_.fetch_add(1, std::memory_order_release);
    }
  }
}

void SkinningPool::parallelFor(int count, const std::function<void(int)>& fn) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1) {
    for (int i = 0; i < count; ++i) fn(i);
    return;
  }
  std::lock_guard<std::mutex> lock(run_mutex_);
  fn_ = &fn;
  count_ = count;
  done_.store(0, std::memory_order_relaxed);
  next_.store(0, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (int i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) {
    fn(i);
    done_.fetch_add(1, std::memory_order_release);
  }
  while (done_.load(std::memory_order_acquire) < count) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

// ------------------------------------------------------------------------------------------------
// SkinningJob

namespace {
bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }
}  // namespace

bool SkinningJob::streams() const {
  if (layout == nullptr || reference || stores == Stores::kCache) return false;
  if (!aligned64(out_positions.data()) || (!out_normals.empty() && !aligned64(out_normals.data()))) return false;
  if (stores == Stores::kStream) return true;
  const std::size_t bytes = (in_positions.size() + out_positions.size() + in_normals.size() + out_normals.size()) * sizeof(float);
  return bytes >= kSkinningStreamBytes;
}

bool SkinningJob::validate() const {
  if (layout == nullptr && skin == nullptr) return false;
  if (reference && skin == nullptr) return false;
  if (layout != nullptr && skin != nullptr &&
      (layout->vertexCount() != skin->vertex_count || layout->boneCount() != skin->bone_count)) {
    return false;
  }
  if (skin != nullptr && skin->offsets.size() != skin->vertex_count + 1) return false;
  const std::size_t n = layout != nullptr ? layout->vertexCount() : skin->vertex_count;
  const std::size_t bones = layout != nullptr ? layout->boneCount() : skin->bone_count;
  if (matrices.size() < 12 * bones) return false;
  if (dual_quaternion && rest_matrices.size() < 12 * bones) return false;
  if (in_positions.size() != 3 * n || out_positions.size() != 3 * n) return false;
  if (in_normals.empty() != out_normals.empty()) return false;
  if (!in_normals.empty() && (in_normals.size() != 3 * n || out_normals.size() != 3 * n)) return false;
  if (threads < 1 || threads > 1024) return false;
  if (badAlias(in_positions, out_positions) || badAlias(in_normals, out_normals)) return false;
  if (overlaps(in_positions, out_normals) || overlaps(in_normals, out_positions) ||
      overlaps(std::span<const float>(out_positions), out_normals)) {
    return false;
  }
  if (overlaps(matrices, out_positions) || overlaps(matrices, out_normals)) return false;
  return true;
}

bool SkinningJob::run() const {
  if (!validate()) return false;
  const bool use_layout = layout != nullptr && !reference;
  const std::size_t bones = use_layout ? layout->boneCount() : skin->bone_count;
  const std::size_t n = use_layout ? layout->vertexCount() : skin->vertex_count;
  if (n == 0) return true;

  if (!use_layout) {
    const bool dbl = reference;
    std::vector<DualQuatR<double>> dq_d;
    std::vector<DualQuatR<float>> dq_f;
    if (dual_quaternion) {
      for (std::size_t b = 0; b < bones; ++b) {
        const SkinningDualQuat q =
            skinningDualQuat(unpack(rest_matrices.data() + 12 * b), unpack(matrices.data() + 12 * b));
        if (dbl) {
          dq_d.push_back(toReal<double>(q));
        } else {
          dq_f.push_back(toReal<float>(q));
        }
      }
    }
    const int parts = partsFor(*this, n);
    runParts(*this, parts, [&](int part) {
      const std::size_t v0 = n * static_cast<std::size_t>(part) / static_cast<std::size_t>(parts);
      const std::size_t v1 = n * static_cast<std::size_t>(part + 1) / static_cast<std::size_t>(parts);
      if (dbl) {
        skinScalarRange<double>(*this, dual_quaternion ? dq_d.data() : nullptr, v0, v1);
      } else {
        skinScalarRange<float>(*this, dual_quaternion ? dq_f.data() : nullptr, v0, v1);
      }
    });
    return true;
  }

  // Per-bone tables for the kernels: padded 3x4 rows (64 bytes), or Blender's dual quaternions.
  Scratch table(bones * (dual_quaternion ? detail::kSkinningDualQuatFloats : 16));
  float* t = table.data();
  if (dual_quaternion) {
    for (std::size_t b = 0; b < bones; ++b) {
      const SkinningDualQuat q = skinningDualQuat(unpack(rest_matrices.data() + 12 * b), unpack(matrices.data() + 12 * b));
      float* d = t + detail::kSkinningDualQuatFloats * b;
      for (int i = 0; i < 4; ++i) {
        d[i] = static_cast<float>(q.quat[i]);
        d[4 + i] = static_cast<float>(q.trans[i]);
      }
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) d[8 + 4 * r + c] = static_cast<float>(q.scale(r, c));
      }
      d[20] = q.has_scale ? 1.0f : 0.0f;
      d[21] = d[22] = d[23] = 0.0f;
    }
  } else {
    for (std::size_t b = 0; b < bones; ++b) {
      std::memcpy(t + 16 * b, matrices.data() + 12 * b, 12 * sizeof(float));
      std::memset(t + 16 * b + 12, 0, 4 * sizeof(float));
    }
  }
  detail::SkinningKernelArgs args;
  args.layout = layout->view();
  args.matrices = dual_quaternion ? nullptr : t;
  args.dual_quats = dual_quaternion ? t : nullptr;
  args.in_positions = in_positions.data();
  args.out_positions = out_positions.data();
  if (!in_normals.empty()) {
    args.in_normals = in_normals.data();
    args.out_normals = out_normals.data();
  }
  args.stream = streams();
  const int parts = partsFor(*this, n);
  if (parts <= 1) {
    detail::skinChunks(args, 0, args.layout.chunk_count);
    return true;
  }
  const std::vector<std::size_t> cut = layout->split(piecesFor(*this, n, parts));
  runParts(*this, static_cast<int>(cut.size()) - 1, [&](int part) {
    detail::skinChunks(args, cut[static_cast<std::size_t>(part)], cut[static_cast<std::size_t>(part) + 1]);
  });
  return true;
}

}  // namespace rigfit
