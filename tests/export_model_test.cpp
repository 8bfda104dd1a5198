#include <cmath>

#include <Eigen/LU>
#include <gtest/gtest.h>

#include "rigfit/data.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/fit.hpp"

namespace rigfit {
namespace {

TEST(ExportModel, Names) {
  EXPECT_EQ(exportName("upperarm01.L"), "upperarm01_L");
  EXPECT_EQ(exportName("mixamorig:Hips"), "mixamorig_Hips");
  EXPECT_EQ(exportName("a/b\\c%d#e"), "a_b_c_d_e");
  EXPECT_EQ(exportName(""), "_");
  EXPECT_EQ(exportName("caf\xC3\xA9"), "caf\xC3\xA9");  // non-ASCII letters stay
  EXPECT_EQ(exportName("x\xC2\x85y"), "x_y");           // U+0085 is a control character
  std::vector<std::string> taken;
  EXPECT_EQ(uniqueName(taken, "a_L"), "a_L");
  EXPECT_EQ(uniqueName(taken, "a_L"), "a_L_2");
  EXPECT_EQ(uniqueName(taken, "a_L"), "a_L_3");
}

TEST(ExportModel, FrameChangeIsBlendersGltfBasis) {
  const Eigen::Matrix4d c = rigToExportFrame();
  // Blender's forward (-Y) becomes glTF's +Z, up (+Z) becomes +Y.
  EXPECT_EQ((c * Eigen::Vector4d(0, -1, 0, 1)).head<3>(), Eigen::Vector3d(0, 0, 1));
  EXPECT_EQ((c * Eigen::Vector4d(0, 0, 1, 1)).head<3>(), Eigen::Vector3d(0, 1, 0));
  EXPECT_EQ((c * Eigen::Vector4d(1, 0, 0, 1)).head<3>(), Eigen::Vector3d(1, 0, 0));
  EXPECT_NEAR(c.determinant(), 1.0, 0.0);
}

// A closed cube of quads: every corner angle is 90 degrees, so each corner's normal is the mean
// of its three faces' normals, (+-1, +-1, +-1) / sqrt(3).
TEST(ExportModel, VertexNormalsOfACube) {
  Mesh cube;
  for (int v = 0; v < 8; ++v)
    for (int c = 0; c < 3; ++c) cube.positions.push_back(((v >> c) & 1) ? 1.0f : -1.0f);
  const std::uint32_t faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  cube.face_offsets.push_back(0);
  for (const auto& f : faces) {
    cube.corner_vertices.insert(cube.corner_vertices.end(), f, f + 4);
    cube.face_offsets.push_back(static_cast<std::uint32_t>(cube.corner_vertices.size()));
  }
  std::vector<float> n(24);
  vertexNormals(cube, cube.positions, n);
  for (int v = 0; v < 8; ++v)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(n[3 * v + c], cube.positions[3 * v + c] / std::sqrt(3.0f), 1e-7f) << v << " " << c;
}

// Triangles, quads and polygons of any size take the same definition: a flat regular n-gon
// (counter-clockwise in XY) has every vertex normal +Z, and a square pyramid's apex, by symmetry,
// points straight up whatever the base's faces.
TEST(ExportModel, VertexNormalsOfPolygonsOfAnySize) {
  for (int n : {3, 4, 5, 8, 9, 17}) {
    Mesh poly;
    for (int k = 0; k < n; ++k) {
      const double a = 2.0 * 3.14159265358979 * k / n;
      poly.positions.insert(poly.positions.end(), {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)), 0.5f});
      poly.corner_vertices.push_back(static_cast<std::uint32_t>(k));
    }
    poly.face_offsets = {0, static_cast<std::uint32_t>(n)};
    std::vector<float> normals(3 * static_cast<std::size_t>(n));
    vertexNormals(poly, poly.positions, normals);
    for (int k = 0; k < n; ++k) {
      EXPECT_NEAR(normals[3 * k], 0.0f, 1e-7f) << n;
      EXPECT_NEAR(normals[3 * k + 1], 0.0f, 1e-7f) << n;
      EXPECT_EQ(normals[3 * k + 2], 1.0f) << n;
    }
  }
  Mesh pyramid;
  pyramid.positions = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0, 0, 0, 1};
  pyramid.corner_vertices = {0, 3, 2, 1, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4};
  pyramid.face_offsets = {0, 4, 7, 10, 13, 16};
  std::vector<float> normals(15);
  vertexNormals(pyramid, pyramid.positions, normals);
  EXPECT_NEAR(normals[12], 0.0f, 1e-7f);
  EXPECT_NEAR(normals[13], 0.0f, 1e-7f);
  EXPECT_EQ(normals[14], 1.0f);
  // A base corner: the base (-Z, at 90 degrees) and two side faces (normals (0, -1, 1) / sqrt(2)
  // and (-1, 0, 1) / sqrt(2)), each at the angle acos(1 / sqrt(3)) between edges (1, 0, 0) and (1, 1, 1).
  const double side = std::acos(1.0 / std::sqrt(3.0));
  const double r = 1.0 / std::sqrt(2.0);
  const Eigen::Vector3d sum = 0.5 * 3.14159265358979 * Eigen::Vector3d(0, 0, -1) + side * Eigen::Vector3d(0, -r, r) +
                              side * Eigen::Vector3d(-r, 0, r);
  const Eigen::Vector3d expect = sum.normalized();
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(normals[c], expect[c], 1e-6) << c;
}

// The per-face terms are computed on threads, the sums in face order on one: the same bits for
// any thread count (a grid of 64 x 64 bumpy quads spans several chunks of faces).
TEST(ExportModel, VertexNormalsDoNotDependOnThreads) {
  Mesh grid;
  const int k = 65;
  for (int y = 0; y < k; ++y)
    for (int x = 0; x < k; ++x) {
      grid.positions.push_back(static_cast<float>(x) * 0.1f);
      grid.positions.push_back(static_cast<float>(y) * 0.1f);
      grid.positions.push_back(0.05f * std::sin(0.7f * static_cast<float>(x)) * std::cos(0.3f * static_cast<float>(y)));
    }
  grid.face_offsets.push_back(0);
  for (int y = 0; y + 1 < k; ++y)
    for (int x = 0; x + 1 < k; ++x) {
      const std::uint32_t a = static_cast<std::uint32_t>(y * k + x);
      for (std::uint32_t v : {a, a + 1, a + 1 + k, a + k}) grid.corner_vertices.push_back(v);
      grid.face_offsets.push_back(static_cast<std::uint32_t>(grid.corner_vertices.size()));
    }
  // And polygons of more corners than the stack holds (12, along the first row's edge).
  for (int start : {0, 12, 24}) {
    for (int x = start; x <= start + 11; ++x) grid.corner_vertices.push_back(static_cast<std::uint32_t>(x));
    grid.face_offsets.push_back(static_cast<std::uint32_t>(grid.corner_vertices.size()));
  }
  std::vector<float> one(grid.positions.size()), two(grid.positions.size()), four(grid.positions.size()), many(grid.positions.size());
  vertexNormals(grid, grid.positions, one, 1);
  vertexNormals(grid, grid.positions, two, 2);
  vertexNormals(grid, grid.positions, four, 4);
  vertexNormals(grid, grid.positions, many, 12);  // more helpers than chunks
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, four);
  EXPECT_EQ(one, many);
  EXPECT_NEAR(one[2], 1.0f, 0.1f);  // a bumpy but upward-facing sheet
}

TEST(ExportModel, DemoCharacterBodyOnly) {
  const DataSource demo = DataSource::builtinDemo();
  auto mesh = loadBaseMesh(demo);
  ASSERT_TRUE(mesh.ok());
  auto groups = loadVertexGroups(demo, mesh->vertexCount());
  ASSERT_TRUE(groups.ok());
  auto rig = loadRig(demo, *locateRig(demo, "demo"));
  ASSERT_TRUE(rig.ok());
  auto fit = fitRig(*rig, *mesh, *groups);
  ASSERT_TRUE(fit.ok());
  const Skeleton& s = fit->skeleton;
  // A hand-made skin: every vertex follows bone (v mod bones) fully, vertex 0 two bones.
  Skin skin;
  skin.vertex_count = mesh->vertexCount();
  skin.bone_count = s.size();
  skin.offsets.push_back(0);
  for (std::size_t v = 0; v < mesh->vertexCount(); ++v) {
    skin.bones.push_back(static_cast<std::uint16_t>(v % s.size()));
    skin.weights.push_back(v == 0 ? 0.75f : 1.0f);
    if (v == 0) {
      skin.bones.push_back(1);
      skin.weights.push_back(0.25f);
    }
    skin.offsets.push_back(static_cast<std::uint32_t>(skin.bones.size()));
  }
  auto m = buildExportModel(*mesh, s, &skin, &*groups, {});
  ASSERT_TRUE(m.ok()) << m.error().message;
  // Joint cubes (vertices 497..688) are gone; body vertices split only where UVs differ.
  for (std::uint32_t v : m->meshes[0].source_vertex) EXPECT_LT(v, 497u);
  EXPECT_GE(m->meshes[0].vertexCount(), 497u);
  EXPECT_EQ(m->meshes[0].polygon_offsets.size() - 1, 467u);
  EXPECT_EQ(m->meshes[0].triangles.size(), 467u * 2 * 3);
  // Without the polygons (glTF): the same model, the polygon arrays empty.
  auto triangles_only = buildExportModel(*mesh, s, &skin, &*groups, {.polygons = false});
  ASSERT_TRUE(triangles_only.ok()) << triangles_only.error().message;
  EXPECT_TRUE(triangles_only->meshes[0].polygon_offsets.empty());
  EXPECT_TRUE(triangles_only->meshes[0].polygon_corners.empty());
  EXPECT_EQ(triangles_only->meshes[0].triangles, m->meshes[0].triangles);
  EXPECT_EQ(triangles_only->meshes[0].source_vertex, m->meshes[0].source_vertex);
  EXPECT_EQ(triangles_only->meshes[0].positions, m->meshes[0].positions);
  EXPECT_EQ(triangles_only->meshes[0].normals, m->meshes[0].normals);
  EXPECT_TRUE(validateExportModel(*triangles_only).ok());
  // Positions are the rig frame turned Y up.
  for (std::size_t e = 0; e < m->meshes[0].vertexCount(); e += 37) {
    const std::uint32_t v = m->meshes[0].source_vertex[e];
    EXPECT_EQ(m->meshes[0].positions[3 * e], mesh->positions[3 * v]);
    EXPECT_EQ(m->meshes[0].positions[3 * e + 1], mesh->positions[3 * v + 2]);
    EXPECT_EQ(m->meshes[0].positions[3 * e + 2], -mesh->positions[3 * v + 1]);
    EXPECT_NEAR(Eigen::Vector3f(m->meshes[0].normals[3 * e], m->meshes[0].normals[3 * e + 1], m->meshes[0].normals[3 * e + 2]).norm(), 1.0f, 1e-5f);
    // The skin follows its vertex.
    ASSERT_EQ(m->meshes[0].skin.influenceCount(e), skin.influenceCount(v));
    EXPECT_EQ(m->meshes[0].skin.bones[m->meshes[0].skin.offsets[e]], skin.bones[skin.offsets[v]]);
  }
  // Bind matrices: local composes to global; bones still point along local +Y to their tails.
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int p = m->parents[i];
    const Eigen::Matrix4d g = p < 0 ? m->bind_local[i] : Eigen::Matrix4d(m->bind_global[static_cast<std::size_t>(p)] * m->bind_local[i]);
    EXPECT_LT((g - m->bind_global[i]).norm(), 1e-12);
    const Eigen::Vector3d tip = (m->bind_global[i] * Eigen::Vector4d(0, m->lengths[i], 0, 1)).head<3>();
    // (Bones near -Y keep Blender's slightly non-orthonormal frame: the tip is off by < 1e-6.)
    EXPECT_LT((tip - m->tails[i]).norm(), 1e-6) << m->names[i];
  }
  EXPECT_EQ(m->names[s.find("upperarm.L")], "upperarm_L");
  // Keeping helpers keeps every vertex.
  auto all = buildExportModel(*mesh, s, &skin, &*groups, {.keep_helpers = true});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->meshes[0].polygon_offsets.size() - 1, mesh->faceCount());
}

}  // namespace
}  // namespace rigfit
