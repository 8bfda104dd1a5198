// ExportModel: the frame change, helper removal, vertex splitting, names and skin remap shared
// by the G4MF and glTF writers.
#include "rigfit/export_model.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include <Eigen/Geometry>
#include <Eigen/LU>

namespace rigfit {

Eigen::Matrix4d rigToExportFrame() {
  Eigen::Matrix4d c = Eigen::Matrix4d::Zero();
  c(0, 0) = 1.0;   // x' = x
  c(1, 2) = 1.0;   // y' = z
  c(2, 1) = -1.0;  // z' = -y
  c(3, 3) = 1.0;
  return c;
}

std::string exportName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    const bool bad = c < 0x20 || c == 0x7F || std::string_view("\"#*.:|?@<>{}[]/\\%").find(ch) != std::string_view::npos;
    out.push_back(bad ? '_' : ch);
  }
  // U+0080..U+009F (C1 controls) arrive as C2 80..C2 9F in UTF-8.
  for (std::size_t k = 0; k + 1 < out.size(); ++k)
    if (static_cast<unsigned char>(out[k]) == 0xC2 && static_cast<unsigned char>(out[k + 1]) >= 0x80 &&
        static_cast<unsigned char>(out[k + 1]) <= 0x9F) {
      out.replace(k, 2, "_");
    }
  return out.empty() ? "_" : out;
}

std::string uniqueName(std::vector<std::string>& taken, const std::string& name) {
  std::string candidate = name;
  for (int n = 2; std::find(taken.begin(), taken.end(), candidate) != taken.end(); ++n) candidate = name + "_" + std::to_string(n);
  taken.push_back(candidate);
  return candidate;
}

namespace {

// Angle-weighted normals: per face a Newell normal and corner angles (acos being the cost), then
// the terms added per vertex in face order, so the sums are the same bits however the terms were
// computed. Faces whose vertices are all `skip`ped are left out (the normals of the other
// vertices do not depend on them).
//
// With helper threads the faces are cut into chunks. The helpers take chunks from the last one
// back and store their terms; the calling thread, once it has run `other`, takes chunks from the
// first one on, adding the terms of its own as it computes them and a helper's when it reaches
// that chunk (waiting only for a chunk a helper is still computing). A helper that starts late
// finds the work taken, and only the chunks the helpers computed are stored.
class NormalTerms {
 public:
  NormalTerms(const Mesh& mesh, std::span<const float> positions, const std::uint8_t* skip)
      : mesh_(mesh), positions_(positions), skip_(skip) {}

  // Adds every face's terms to `acc` (3 doubles per vertex, zero on entry) on `threads` threads:
  // threads - 1 of this call beside the calling thread, which first runs `other`.
  template <class F>
  void compute(int threads, const F& other, std::span<double> acc) {
    const std::size_t faces = mesh_.faceCount(), chunks = (faces + kChunk - 1) / kChunk;
    if (threads <= 1 || chunks < 2) {
      other();
      addRange(acc, 0, faces);
      return;
    }
    // Not initialised: a page is touched only when a helper stores a chunk's terms there.
    face_normal_.reset(new double[3 * faces]);
    angle_.reset(new double[mesh_.corner_vertices.size()]);
    state_.reset(new std::atomic<int>[chunks]());
    back_.store(static_cast<std::ptrdiff_t>(chunks), std::memory_order_relaxed);
    {
      std::vector<std::jthread> helpers;
      for (int t = 1; t < threads; ++t) helpers.emplace_back([this] { helperWork(); });
      other();
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t f0 = c * kChunk, f1 = std::min(faces, f0 + kChunk);
        int state = kFree;
        if (state_[c].compare_exchange_strong(state, kCaller, std::memory_order_acq_rel)) {
          addRange(acc, f0, f1);
          continue;
        }
        while ((state = state_[c].load(std::memory_order_acquire)) != kDone) state_[c].wait(state, std::memory_order_acquire);
        for (std::size_t f = f0; f < f1; ++f) add(acc, f, &face_normal_[3 * f], &angle_[mesh_.face_offsets[f]]);
      }
    }  // (joined: a helper stops at the first chunk the calling thread has taken)
  }

  // The normal from a vertex's sums (3 doubles): unit length in float, +Z where they are zero.
  static void normalise(const double* a, float* out) {
    const double len = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int c = 0; c < 3; ++c) out[c] = len > 0.0 ? static_cast<float>(a[c] / len) : c == 2 ? 1.0f : 0.0f;
  }

 private:
  static constexpr std::size_t kChunk = 512;
  static constexpr std::uint32_t kSmall = 8;  // corners whose points and edges fit on the stack
  enum : int { kFree, kCaller, kHelper, kDone };  // a chunk's state

  // The arithmetic, in this order, is the normal's definition (the exported bytes depend on it):
  // double coordinates, Newell's sum from zero, norms as sqrt((x*x + y*y) + z*z).
  struct P {
    double x, y, z;
  };
  static double norm(const P& a) { return std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

  // A helper: chunks from the last one back, their terms stored, until it meets the calling thread.
  void helperWork() {
    std::vector<P> large;  // the points and edges of polygons of more than kSmall corners
    for (;;) {
      const std::ptrdiff_t c = back_.fetch_sub(1, std::memory_order_relaxed) - 1;
      if (c < 0) return;
      int state = kFree;
      if (!state_[c].compare_exchange_strong(state, kHelper, std::memory_order_acq_rel)) return;
      for (std::size_t f = std::size_t(c) * kChunk, e = std::min(mesh_.faceCount(), f + kChunk); f < e; ++f)
        face(f, &face_normal_[3 * f], &angle_[mesh_.face_offsets[f]], large);
      state_[c].store(kDone, std::memory_order_release);
      state_[c].notify_one();
    }
  }

  // Faces [f0, f1): each face's terms, added as they are computed.
  void addRange(std::span<double> acc, std::size_t f0, std::size_t f1) const {
    std::vector<P> large;
    std::vector<double> angles;
    for (std::size_t f = f0; f < f1; ++f) {
      double fn[3] = {}, small[kSmall];
      const std::uint32_t n = mesh_.face_offsets[f + 1] - mesh_.face_offsets[f];
      if (n > kSmall) angles.resize(n);
      double* angle = n > kSmall ? angles.data() : small;
      face(f, fn, angle, large);
      add(acc, f, fn, angle);
    }
  }

  // Adds face f's terms (its normal `fn`, its corners' angles) to the per-vertex sums.
  void add(std::span<double> acc, std::size_t f, const double* fn, const double* angle) const {
    const std::uint32_t a = mesh_.face_offsets[f], b = mesh_.face_offsets[f + 1];
    for (std::uint32_t k = a; k < b; ++k) {
      if (angle[k - a] == 0.0) continue;  // skipped face, degenerate face or edge: no term
      double* s = &acc[3 * std::size_t(mesh_.corner_vertices[k])];
      for (int c = 0; c < 3; ++c) s[c] += fn[c] * angle[k - a];
    }
  }

  // Face f's normal into `fn` (3; unset when every angle is 0) and its corners' angles into
  // `angle` (one per corner; 0 where the corner adds nothing).
  void face(std::size_t f, double* fn, double* angle, std::vector<P>& large) const {
    const std::uint32_t a = mesh_.face_offsets[f], b = mesh_.face_offsets[f + 1], n = b - a;
    const std::uint32_t* corner = &mesh_.corner_vertices[a];
    if (skip_) {
      bool all = true;
      for (std::uint32_t k = 0; k < n && all; ++k) all = skip_[corner[k]] != 0;
      if (all) return clear(angle, n);
    }
    if (n == 4) return polygon<4>(corner, fn, angle, 4, large);
    if (n == 3) return polygon<3>(corner, fn, angle, 3, large);
    return polygon<0>(corner, fn, angle, n, large);
  }

  // The corners' points and the edges from each to the next, each once (an edge reversed is the
  // same vector negated, exactly). kN: the corner count when fixed (quads and triangles), else 0.
  template <std::uint32_t kN>
  void polygon(const std::uint32_t* corner, double* out, double* angle, std::uint32_t n, std::vector<P>& large) const {
    if constexpr (kN != 0) n = kN;
    P small[2 * kSmall];
    P* pt = small;
    if (kN == 0 && n > kSmall) {
      large.resize(2 * n);
      pt = large.data();
    }
    P* edge = pt + n;
    const float* pos = positions_.data();
    for (std::uint32_t k = 0; k < n; ++k) {
      const float* q = pos + 3 * std::size_t(corner[k]);
      pt[k] = P{q[0], q[1], q[2]};
    }
    // Newell's method: robust for non-planar quads.
    P fn{0.0, 0.0, 0.0};
    for (std::uint32_t k = 0; k < n; ++k) {
      const P& p = pt[k];
      const P& q = pt[k + 1 == n ? 0 : k + 1];
      fn.x += (p.y - q.y) * (p.z + q.z);
      fn.y += (p.z - q.z) * (p.x + q.x);
      fn.z += (p.x - q.x) * (p.y + q.y);
      edge[k] = P{q.x - p.x, q.y - p.y, q.z - p.z};
    }
    const double len = norm(fn);
    if (len == 0.0) return clear(angle, n);
    out[0] = fn.x / len;
    out[1] = fn.y / len;
    out[2] = fn.z / len;
    double prev_len = norm(edge[n - 1]);
    for (std::uint32_t k = 0; k < n; ++k) {
      const P& e0 = edge[k == 0 ? n - 1 : k - 1];  // from the previous corner (negated below)
      const P& e2 = edge[k];                        // to the next corner
      const double l1 = prev_len, l2 = norm(e2);
      prev_len = l2;
      const double dot = -e0.x * e2.x + -e0.y * e2.y + -e0.z * e2.z;
      angle[k] = l1 == 0.0 || l2 == 0.0 ? 0.0 : std::acos(std::clamp(dot / (l1 * l2), -1.0, 1.0));
    }
  }

  static void clear(double* angle, std::uint32_t n) {
    for (std::uint32_t k = 0; k < n; ++k) angle[k] = 0.0;
  }

  const Mesh& mesh_;
  std::span<const float> positions_;
  const std::uint8_t* skip_;
  // With helpers: the terms of their chunks, each chunk's state, and the next chunk from the back.
  std::unique_ptr<double[]> face_normal_;  // 3 per face, written for faces with corner terms
  std::unique_ptr<double[]> angle_;        // per corner; 0 where the corner adds nothing
  std::unique_ptr<std::atomic<int>[]> state_;
  std::atomic<std::ptrdiff_t> back_{0};
};

}  // namespace

void vertexNormals(const Mesh& mesh, std::span<const float> positions, std::span<float> out, int threads) {
  std::vector<double> acc(positions.size(), 0.0);
  NormalTerms(mesh, positions, nullptr).compute(threads, [] {}, acc);
  for (std::size_t v = 0; v + 2 < acc.size(); v += 3) NormalTerms::normalise(&acc[v], &out[v]);
}

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// A rig-frame vector in the export frame, through rigToExportFrame() in double (as the bones).
void toExportFrame(const Eigen::Matrix3d& c3, const float* in, float* out) {
  const Eigen::Vector3d p = c3 * Eigen::Vector3d(in[0], in[1], in[2]);
  for (int k = 0; k < 3; ++k) out[k] = static_cast<float>(p[k]);
}

std::vector<std::uint8_t> helperMask(const VertexGroups* groups, std::size_t n) {
  std::vector<std::uint8_t> helper(n, 0);
  if (!groups) return helper;
  for (std::size_t g = 0; g < groups->names.size(); ++g) {
    const std::string& name = groups->names[g];
    const bool is_helper = name == "HelperGeometry" || name == "JointCubes" || name.rfind("helper-", 0) == 0 ||
                           name.rfind("joint-", 0) == 0;
    if (!is_helper) continue;
    for (const auto& r : groups->ranges[g])
      for (std::uint32_t v = r.first; v <= r.last && v < n; ++v) helper[v] = 1;
  }
  return helper;
}

// The skeleton part of an empty `m`: the bones of `selection` posed by `bind`, in the export frame
// (globals kept, locals relative to the selection's parents).
void setSkeleton(ExportModel& m, const Skeleton& skeleton, std::span<const Eigen::Matrix4d> bind, const BoneSelection& selection) {
  const Eigen::Matrix4d c = rigToExportFrame();
  const Eigen::Matrix3d c3 = c.topLeftCorner<3, 3>();
  const std::size_t nb = selection.bones.size();
  std::vector<std::string> taken;
  for (std::size_t k = 0; k < nb; ++k) {
    const auto i = static_cast<std::size_t>(selection.bones[k]);
    m.source_bones.push_back(static_cast<int>(i));
    m.source_names.push_back(skeleton.names[i]);
    m.names.push_back(uniqueName(taken, exportName(skeleton.names[i])));
    const int p = selection.parents[k];
    m.parents.push_back(p);
    m.bind_global.push_back(c * bind[i]);
    m.bind_local.push_back(p < 0 ? m.bind_global.back() : Eigen::Matrix4d(m.bind_global[static_cast<std::size_t>(p)].inverse() * m.bind_global.back()));
    m.lengths.push_back(skeleton.lengths[i]);
    m.rolls.push_back(skeleton.rolls[i]);
    m.heads.push_back(c3 * skeleton.heads[i]);
    m.tails.push_back(c3 * skeleton.tails[i]);
  }
}

// The model index of every skeleton bone (-1: not in the model).
std::vector<int> modelIndex(std::span<const int> bones, std::size_t skeleton_size) {
  std::vector<int> new_index(skeleton_size, -1);
  for (std::size_t k = 0; k < bones.size(); ++k) new_index[static_cast<std::size_t>(bones[k])] = static_cast<int>(k);
  return new_index;
}

// One mesh in the export frame: vertices split per (vertex, UV, normal) corner, helpers removed,
// the skin's bones mapped through `new_index` (bones not in the model carry no weight). `nb`: the
// deform-only skeleton's bone count (the skin's bone_count then; else the input skin's is kept).
Expected<ExportMesh> buildExportMesh(const Mesh& mesh, const Skin* skin, const VertexGroups* groups, const ExportOptions& options,
                                     std::span<const float> positions, std::span<const float> normals,
                                     const std::vector<int>& new_index, std::size_t nb, const std::string& name) {
  const std::size_t nv = mesh.vertexCount();
  const std::string where = "export: mesh \"" + name + "\": ";
  if (positions.empty()) positions = mesh.positions;
  if (positions.size() != 3 * nv) return makeError(ErrorCode::kUsage, where + "positions do not match the mesh");
  if (!normals.empty() && normals.size() != 3 * nv) return makeError(ErrorCode::kUsage, where + "normals do not match the mesh");
  if (skin && skin->vertex_count != nv) return makeError(ErrorCode::kMismatch, where + "the skin is for " + std::to_string(skin->vertex_count) +
                                                                                   " vertices, the mesh has " + std::to_string(nv));
  ExportMesh m;
  m.name = name;
  const Eigen::Matrix3d c3 = rigToExportFrame().topLeftCorner<3, 3>();

  // Normals in the rig frame: given, else per-corner OBJ normals, else computed (with threads,
  // their face terms on the others while this one splits the vertices and remaps the skin).
  const std::vector<std::uint8_t> helper = options.keep_helpers ? std::vector<std::uint8_t>(nv, 0) : helperMask(groups, nv);
  const bool corner_normals = normals.empty() && !mesh.normals.empty();
  const bool compute_normals = normals.empty() && !corner_normals;
  const bool has_uv = !mesh.uvs.empty();
  NormalTerms terms(mesh, positions, helper.data());  // helpers' own normals are not exported

  // Export vertices per (vertex, UV, normal) corner key, found through a chain per source vertex
  // (first_of[v], then next_of[e]): chains are one to four long on MakeHuman meshes. There are at
  // most as many export vertices as corners: the per-vertex arrays are that long, not initialised.
  const std::size_t corners = mesh.corner_vertices.size();
  std::unique_ptr<std::int32_t[]> key_uv(new std::int32_t[corners]);
  // The corners' OBJ normals (none: every corner's key is -1).
  const std::int32_t* corner_ns = corner_normals && !mesh.corner_normals.empty() ? mesh.corner_normals.data() : nullptr;
  std::unique_ptr<std::int32_t[]> key_n(corner_ns ? new std::int32_t[corners] : nullptr);
  auto splitVertices = [&] {
    const std::uint32_t* corner_vertices = mesh.corner_vertices.data();
    const auto kept = [&](std::size_t f) {  // no helper corner
      bool keep = true;
      for (std::uint32_t k = mesh.face_offsets[f]; k < mesh.face_offsets[f + 1]; ++k) keep = keep && !helper[corner_vertices[k]];
      return keep;
    };
    // The polygon arrays at the size of the kept faces (the helpers' would be a third more).
    std::size_t kept_faces = 0, kept_corners = 0;
    for (std::size_t f = 0; f < mesh.faceCount(); ++f)
      if (kept(f)) {
        ++kept_faces;
        kept_corners += mesh.face_offsets[f + 1] - mesh.face_offsets[f];
      }
    std::vector<std::uint32_t> first_of(nv, kNone);
    std::unique_ptr<std::uint32_t[]> next_of(new std::uint32_t[kept_corners]);
    std::uint32_t ne = 0;
    if (options.polygons) {
      m.polygon_corners.resize(kept_corners);
      m.polygon_offsets.resize(kept_faces + 1);
    }
    std::vector<std::uint32_t> one_polygon;  // a face's export vertices when the polygons are not kept
    m.triangles.resize(3 * (kept_corners - 2 * kept_faces));
    m.source_vertex.reserve(kept_corners);  // (only the pages of the vertices found are touched)
    std::uint32_t* out_corner = m.polygon_corners.data();
    std::uint32_t* out_offset = options.polygons ? m.polygon_offsets.data() : nullptr;
    std::uint32_t* out_triangle = m.triangles.data();
    const std::int32_t* corner_uvs = has_uv ? mesh.corner_uvs.data() : nullptr;
    if (out_offset) *out_offset++ = 0;
    for (std::size_t f = 0; f < mesh.faceCount(); ++f) {
      const std::uint32_t a = mesh.face_offsets[f], b = mesh.face_offsets[f + 1];
      if (!kept(f)) continue;
      if (!options.polygons) {
        one_polygon.resize(b - a);
        out_corner = one_polygon.data();
      }
      std::uint32_t* first = out_corner;
      for (std::uint32_t k = a; k < b; ++k) {
        const std::uint32_t v = corner_vertices[k];
        const std::int32_t kuv = corner_uvs ? corner_uvs[k] : -1, kn = corner_ns ? corner_ns[k] : -1;
        std::uint32_t* link = &first_of[v];
        while (*link != kNone && (key_uv[*link] != kuv || (corner_ns && key_n[*link] != kn))) link = &next_of[*link];
        if (*link == kNone) {
          *link = ne;
          next_of[ne] = kNone;
          key_uv[ne] = kuv;
          if (corner_ns) key_n[ne] = kn;
          m.source_vertex.push_back(v);
          ++ne;
        }
        *out_corner++ = *link;
      }
      if (out_offset) *out_offset++ = static_cast<std::uint32_t>(out_corner - m.polygon_corners.data());
      for (std::uint32_t* k = first + 1; k + 1 < out_corner; ++k) {  // fan from the first corner
        *out_triangle++ = *first;
        *out_triangle++ = k[0];
        *out_triangle++ = k[1];
      }
    }
    const std::uint32_t* source = m.source_vertex.data();

    // Positions and UVs per export vertex.
    m.positions.resize(3 * std::size_t(ne));
    if (has_uv) m.uvs.resize(2 * std::size_t(ne));
    for (std::size_t e = 0; e < ne; ++e) {
      const std::size_t v = source[e];
      toExportFrame(c3, &positions[3 * v], &m.positions[3 * e]);
      if (has_uv) {
        const std::int32_t t = key_uv[e];
        m.uvs[2 * e] = t >= 0 ? mesh.uvs[2 * std::size_t(t)] : 0.0f;
        m.uvs[2 * e + 1] = t >= 0 ? mesh.uvs[2 * std::size_t(t) + 1] : 0.0f;
      }
    }

    if (skin) {
      Skin& s = m.skin;
      s.vertex_count = ne;
      s.bone_count = options.deform_only ? nb : skin->bone_count;
      s.offsets.resize(std::size_t(ne) + 1);
      std::size_t most = 0;  // influences before removed bones are left out
      for (std::size_t e = 0; e < ne; ++e) most += skin->offsets[source[e] + 1] - skin->offsets[source[e]];
      s.bones.resize(most);
      s.weights.resize(most);
      std::uint16_t* out_b = s.bones.data();
      float* out_w = s.weights.data();
      const std::uint32_t* offsets = skin->offsets.data();
      const std::uint16_t* in_b = skin->bones.data();
      const float* in_w = skin->weights.data();
      std::uint32_t* out_offsets = s.offsets.data();
      out_offsets[0] = 0;
      std::uint32_t count = 0;
      for (std::size_t e = 0; e < ne; ++e) {
        const std::uint32_t v = source[e];
        for (std::uint32_t k = offsets[v]; k < offsets[v + 1]; ++k) {
          const int b = in_b[k] < new_index.size() ? new_index[in_b[k]] : -1;
          if (b < 0) continue;  // a removed bone: it carries no weight
          out_b[count] = static_cast<std::uint16_t>(b);
          out_w[count] = in_w[k];
          ++count;
        }
        out_offsets[e + 1] = count;
      }
      s.bones.resize(count);
      s.weights.resize(count);
      s.mask_names = skin->mask_names;
      for (const auto& mask : skin->masks) {
        std::vector<float> remapped(ne);
        for (std::size_t e = 0; e < ne; ++e) remapped[e] = mask[source[e]];
        s.masks.push_back(std::move(remapped));
      }
    }
  };
  // Computed normals: their sums per source vertex, normalised per export vertex below. calloc's
  // memory fresh from the system is zero already: the pages of vertices no kept face uses (the
  // helpers') are never touched.
  std::unique_ptr<double[], FreeDeleter> sums;
  if (compute_normals) {
    sums.reset(static_cast<double*>(std::calloc(3 * nv, sizeof(double))));
    if (!sums && nv) return makeError(ErrorCode::kUnsupported, where + "cannot hold the normals of " + std::to_string(nv) + " vertices in memory");
    terms.compute(options.threads, splitVertices, std::span<double>(sums.get(), 3 * nv));
  } else {
    splitVertices();
  }

  // Normals per export vertex, in the export frame.
  const std::size_t ne = m.source_vertex.size();
  m.normals.resize(3 * ne);
  const float up[3] = {0.0f, 0.0f, 1.0f};
  float computed[3];
  for (std::size_t e = 0; e < ne; ++e) {
    const std::size_t v = m.source_vertex[e];
    const float* n = up;
    if (compute_normals) {
      NormalTerms::normalise(&sums[3 * v], computed);
      n = computed;
    } else if (!corner_normals) n = &normals[3 * v];
    else if (key_n && key_n[e] >= 0) n = &mesh.normals[3 * std::size_t(key_n[e])];
    toExportFrame(c3, n, &m.normals[3 * e]);
  }
  return m;
}

// Appends a mesh to `model` (see addExportMesh); buildExportModel's body goes the same way, into
// an empty model. The skeleton is every bone, or selectDeformBones' over every mesh's weights;
// when this mesh changes it, the meshes already in the model are remapped.
Status appendMesh(ExportModel& model, const Skeleton& skeleton, const Mesh& mesh, const Skin* skin, std::string name,
                  ExportMaterial material, const ExportOptions& options, const VertexGroups* groups, std::span<const float> positions,
                  std::span<const Eigen::Matrix4d> bind, std::span<const float> normals) {
  if (bind.empty()) bind = skeleton.rest;
  if (bind.size() != skeleton.size()) return makeError(ErrorCode::kUsage, "export: bind matrices do not match the skeleton");
  if (skeleton.size() > 65535) return makeError(ErrorCode::kUnsupported, "export: more than 65535 bones");
  const std::string where = "export: mesh \"" + name + "\": ";
  if (!model.meshes.empty() && options.deform_only == model.weighted_bones.empty())
    return makeError(ErrorCode::kUsage, where + "the model was built " + (options.deform_only ? "with every bone" : "deform-only") +
                                            "; add the mesh the same way");
  const Eigen::Matrix4d c = rigToExportFrame();
  for (std::size_t k = 0; k < model.source_bones.size(); ++k) {
    const auto i = static_cast<std::size_t>(model.source_bones[k]);
    if (i >= skeleton.size() || model.source_names[k] != skeleton.names[i] || model.bind_global[k] != Eigen::Matrix4d(c * bind[i]))
      return makeError(ErrorCode::kUsage, where + "the skeleton or its bind pose is not the model's (bone " + model.names[k] + ")");
  }

  // Skeleton: every bone, or the deforming ones re-parented (globals kept, locals recomputed).
  BoneSelection selection;
  std::vector<std::uint8_t> weighted;
  if (options.deform_only) {
    if (!skin) return makeError(ErrorCode::kUsage, "export: deform-only needs weights to tell deforming bones");
    weighted = model.weighted_bones;
    weighted.resize(skeleton.size(), 0);
    for (std::size_t k = 0; k < skin->bones.size(); ++k)
      if (skin->weights[k] > 0.0f && skin->bones[k] < weighted.size()) weighted[skin->bones[k]] = 1;
    auto s = selectDeformBones(skeleton.parents, weighted);
    if (!s) return s.error();
    selection = std::move(*s);
  } else {
    for (std::size_t i = 0; i < skeleton.size(); ++i) selection.bones.push_back(static_cast<int>(i));
    selection.parents = skeleton.parents;
  }
  const bool grows = selection.bones != model.source_bones || selection.parents != model.parents;
  ExportModel grown;  // the new skeleton part when this mesh changes it
  if (grows) setSkeleton(grown, skeleton, bind, selection);
  const std::size_t nb = selection.bones.size();
  const std::vector<int> new_index = modelIndex(selection.bones, skeleton.size());
  auto built = buildExportMesh(mesh, skin, groups, options, positions, normals, new_index, nb, name);
  if (!built) return built.error();
  built->material = std::move(material);

  if (grows) {
    // The meshes already in the model: their bones through the skeleton to the new indices. A
    // bone that only held others together may leave; its influences carry no weight (a bone
    // with weight is kept) and go with it.
    for (ExportMesh& other : model.meshes) {
      Skin& s = other.skin;
      if (s.offsets.empty()) continue;
      std::uint32_t count = 0;
      for (std::size_t v = 0; v + 1 < s.offsets.size(); ++v) {
        const std::uint32_t begin = s.offsets[v], end = s.offsets[v + 1];
        s.offsets[v] = count;
        for (std::uint32_t k = begin; k < end; ++k) {
          const int b = new_index[static_cast<std::size_t>(model.source_bones[s.bones[k]])];
          if (b < 0) continue;
          s.bones[count] = static_cast<std::uint16_t>(b);
          s.weights[count++] = s.weights[k];
        }
      }
      s.offsets.back() = count;
      s.bones.resize(count);
      s.weights.resize(count);
      s.bone_count = nb;
    }
    grown.meshes = std::move(model.meshes);
    model = std::move(grown);
  }
  model.weighted_bones = std::move(weighted);
  model.meshes.push_back(std::move(*built));
  return {};
}

}  // namespace

Expected<ExportModel> buildExportModel(const Mesh& mesh, const Skeleton& skeleton, const Skin* skin, const VertexGroups* groups,
                                       const ExportOptions& options, std::span<const float> positions,
                                       std::span<const Eigen::Matrix4d> bind, std::span<const float> normals) {
  ExportModel m;
  RIGFIT_TRY(appendMesh(m, skeleton, mesh, skin, "Body", ExportMaterial{}, options, groups, positions, bind, normals));
  return m;
}

Status addExportMesh(ExportModel& model, const Skeleton& skeleton, const Mesh& mesh, const Skin& skin, std::string name,
                     ExportMaterial material, const ExportOptions& options, const VertexGroups* groups,
                     std::span<const float> positions, std::span<const Eigen::Matrix4d> bind, std::span<const float> normals) {
  return appendMesh(model, skeleton, mesh, &skin, std::move(name), std::move(material), options, groups, positions, bind, normals);
}

}  // namespace rigfit
