#include <bit>
#include <charconv>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "core/file_io.hpp"
#include "rigfit/data.hpp"
#include "rigfit/mesh.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

TEST(Obj, ConvertsToTheRigFrame) {
  // OBJ (x, y, z) in decimetres, Y up -> rig (0.1x, -0.1z, 0.1y), float32 as Blender stores it.
  auto m = parseObj("v 1 2 3\nv -4.5 0.25 +7\nvt 0.5 0.5\nvn 0 0 1\nf 1/1/1 2/1/1 -1/1/1\n", "t.obj");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->vertexCount(), 2u);
  EXPECT_EQ(m->positions[0], 1.0f * 0.1f);
  EXPECT_EQ(m->positions[1], -3.0f * 0.1f);
  EXPECT_EQ(m->positions[2], 2.0f * 0.1f);
  EXPECT_EQ(m->positions[3], -4.5f * 0.1f);
  EXPECT_EQ(m->positions[4], -7.0f * 0.1f);
  EXPECT_EQ(m->positions[5], 0.25f * 0.1f);
  ASSERT_EQ(m->normals.size(), 3u);
  EXPECT_EQ(m->normals[1], -1.0f);  // OBJ +Z (towards the viewer) is the rig's -Y
  ASSERT_EQ(m->faceCount(), 1u);
  EXPECT_EQ(m->corner_vertices[2], 1u);  // -1 is the last vertex defined so far
  EXPECT_EQ(m->corner_uvs[0], 0);
}

// Face errors name the line, the corner and the index as written (a long one elided).
TEST(Obj, FaceErrorsNameTheCorner) {
  const std::pair<const char*, const char*> cases[] = {
      {"f 1 2 -4\n", "c.obj: line 4: face corner 3: vertex index \"-4\" is before the first (3 defined so far)"},
      {"f 1 2/x 3\n", "c.obj: line 4: face corner 2: texture coordinate index \"x\" is not a number of at most 10 digits"},
      {"f 1 2 3/1/1/1\n", "c.obj: line 4: face corner 3: texture coordinate index \"1\" is beyond the 0 defined so far"},
      {"f 1 2x 3\n", "c.obj: line 4: face corner 2: malformed: \"2x\""},
  };
  for (const auto& [face, message] : cases) {
    auto e = parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\n" + std::string(face), "c.obj");
    ASSERT_FALSE(e.ok()) << face;
    EXPECT_EQ(e.error().message, message);
  }
  auto huge = parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 " + std::string(100000, '7') + "\n", "h.obj");
  ASSERT_FALSE(huge.ok());
  EXPECT_LE(huge.error().message.size(), 300u);
  EXPECT_NE(huge.error().message.find("h.obj: line 4: face corner 3: vertex index"), std::string::npos) << huge.error().message;
}

TEST(Obj, ErrorsNameTheLine) {
  auto bad_number = parseObj("v 1 2 3\nv 1 x 3\n", "b.obj");
  ASSERT_FALSE(bad_number.ok());
  EXPECT_EQ(bad_number.error().message, "b.obj: line 2: expected a number, found \"x\"");
  auto bad_face = parseObj("v 1 2 3\nf 1 2\n", "f.obj");
  ASSERT_FALSE(bad_face.ok());
  EXPECT_EQ(bad_face.error().message, "f.obj: line 2: a face needs at least 3 corners");
  auto missing_vertex = parseObj("v 1 2 3\nf 1 2 9\n", "m.obj");
  ASSERT_FALSE(missing_vertex.ok());
  EXPECT_EQ(missing_vertex.error().message, "m.obj: line 2: face corner 2 refers to vertex 2 but the file has 1 vertices");
  // The line and the corner within its face, also after other faces and comments.
  auto later = parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n# note\n  f 3 2 1 9\n", "l.obj");
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().message, "l.obj: line 6: face corner 4 refers to vertex 9 but the file has 3 vertices");
  auto truncated = parseObj("v 1 2 3\nv 1 2", "t.obj");
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().message, "t.obj: line 2: expected a number, found \"\"");
}

// Face indices are read eight bytes at a time where the text allows: the same corners and the
// same errors as the digit-by-digit path near the end of the text.
TEST(Obj, FaceIndicesReadAtOnceOrByDigit) {
  std::string text;
  for (int v = 0; v < 12; ++v) text += "v " + std::to_string(v) + " 0 0\n";
  text += "vt 0 0\nvt 1 1\n";
  text += "f 0001/1 2/2 12/1 11/00002\n";            // leading zeros, last vertex
  text += "f 1 2 3\n";                               // at the end: fewer than 8 bytes left
  auto m = parseObj(text, "i.obj");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->corner_vertices, (std::vector<std::uint32_t>{0, 1, 11, 10, 0, 1, 2}));
  EXPECT_EQ(m->corner_uvs, (std::vector<std::int32_t>{0, 1, 0, 1, -1, -1, -1}));
  for (const auto& [bad, corner] : {std::pair{"f 1 0 2\nv 0 0 0\nv 0 0 0\n", "2"}, std::pair{"f 1 2 0\n", "3"}}) {
    auto e = parseObj("v 0 0 0\nv 0 0 0\nv 0 0 0\n" + std::string(bad), "z.obj");
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().message, "z.obj: line 4: face corner " + std::string(corner) + ": vertex index \"0\" is not 1 or more") << bad;
  }
  auto big = parseObj("v 0 0 0\nf 1 2 123456789012\nv 0 0 0\nv 0 0 0\n", "b.obj");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message, "b.obj: line 2: face corner 3: vertex index \"123456789012\" is not a number of at most 10 digits");
}

// Lines far enough from the end of the text are read by the whole-line fast path (the usual v,
// vt and f forms) and fall back to the general reader for anything else: both give the same
// mesh and the same errors. A trailing comment keeps every statement on the fast path's side.
TEST(Obj, FastLinesAndTheGeneralReaderAgree) {
  const std::string pad = "# " + std::string(300, 'x') + "\n";
  const std::string head = "v 1 2 3\nv -4.5 0.25 7\nv 0.125 -0.5 2\nv 3. .5 -0\nvt 0.5 0.25\nvt 1 0\nvn 0 0 1\n";
  const std::string faces =
      "f 1 2 3\n"                    // before any g: the "default" group
      "g body\n"
      "f 1/1 2/2 3/1 4/2\n"
      "f 1//1 2//1 3//1\r\n"         // CR LF
      "f 1/2/1 2/1/1 3/2/1\n"
      "f  1 2 3\n"                   // two spaces: general path
      "f 1 2 3 4 1 2 3 4 1\n"        // nine corners: general path
      "f -1 -2 -3\n";                // relative: general path
  auto fast = parseObj(head + faces + pad, "fast.obj");
  auto general = parseObj(head + faces, "general.obj");  // the last lines are within 256 bytes of the end
  ASSERT_TRUE(fast.ok()) << fast.error().message;
  ASSERT_TRUE(general.ok()) << general.error().message;
  EXPECT_EQ(fast->positions, general->positions);
  EXPECT_EQ(fast->uvs, general->uvs);
  EXPECT_EQ(fast->normals, general->normals);
  EXPECT_EQ(fast->face_offsets, general->face_offsets);
  EXPECT_EQ(fast->corner_vertices, general->corner_vertices);
  EXPECT_EQ(fast->corner_uvs, general->corner_uvs);
  EXPECT_EQ(fast->corner_normals, general->corner_normals);
  EXPECT_EQ(fast->face_groups, general->face_groups);
  EXPECT_EQ(fast->group_names, (std::vector<std::string>{"default", "body"}));
  EXPECT_EQ(fast->positions[9], 3.0f * 0.1f);                                    // "3."
  EXPECT_EQ(fast->positions[11], 0.5f * 0.1f);                                   // ".5" is the OBJ y
  EXPECT_EQ(fast->face_offsets, (std::vector<std::uint32_t>{0, 3, 7, 10, 13, 16, 25, 28}));
  EXPECT_EQ(fast->corner_uvs[3], 0);
  EXPECT_EQ(fast->corner_uvs[4], 1);
  EXPECT_EQ(fast->corner_normals[7], 0);
  EXPECT_EQ(fast->corner_uvs[10], 1);
  EXPECT_EQ(fast->corner_vertices[25], 3u);  // -1: the last vertex
  // Errors: the fast path declines, the general reader names the line.
  const std::pair<const char*, const char*> bad[] = {
      {"f 1/3 2/1 3/1\n", "line 8: face corner 1: texture coordinate index \"3\" is beyond the 2 defined so far"},
      {"f 1//2 2//1 3//1\n", "line 8: face corner 1: normal index \"2\" is beyond the 1 defined so far"},
      {"f 1 0 2\n", "line 8: face corner 2: vertex index \"0\" is not 1 or more"},
      {"f 1 2\n", "line 8: a face needs at least 3 corners"},
      {"v 1 2 3x\n", "line 8: expected a number, found \"3x\""},
      {"vt 0.5\n", "line 8: expected a number, found \"\""}};
  for (const auto& [line, message] : bad) {
    auto e = parseObj(head + line + pad, "bad.obj");
    ASSERT_FALSE(e.ok()) << line;
    EXPECT_EQ(e.error().message, std::string("bad.obj: ") + message) << line;
  }
}

TEST(Obj, WriteReadRoundTripKeepsTopologyAndPositions) {
  auto m = parseObj("v 1 2 3\nv 4 5 6\nv 7 8 9.5\nvt 0 1\ng body\nf 1/1 2/1 3/1\n", "t.obj");
  ASSERT_TRUE(m.ok());
  const std::string text = writeObj(*m, {}, {}, "test");
  auto again = parseObj(text, "again.obj");
  ASSERT_TRUE(again.ok()) << again.error().message;
  ASSERT_EQ(again->positions.size(), m->positions.size());
  for (std::size_t k = 0; k < m->positions.size(); ++k) EXPECT_NEAR(again->positions[k], m->positions[k], 1e-7);
  EXPECT_EQ(again->corner_vertices, m->corner_vertices);
  EXPECT_EQ(again->group_names, m->group_names);
}

TEST(Obj, ManyGroupsAreLinear) {
  // 300000 distinct `g` lines, each with a face, and the first group again at the end. Finding a
  // group by scanning the names seen so far took minutes here (past the test time limit in
  // tests/CMakeLists.txt); a hash map takes well under a second.
  const std::size_t n = 300000;
  std::string text = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  for (std::size_t i = 0; i < n; ++i) text += "g part" + std::to_string(i) + "\nf 1 2 3\n";
  text += "g part0\nf 3 2 1\n";
  auto m = parseObj(text, "groups.obj");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->group_names.size(), n);
  EXPECT_EQ(m->group_names[n - 1], "part" + std::to_string(n - 1));
  ASSERT_EQ(m->faceCount(), n + 1);
  EXPECT_EQ(m->face_groups[12345], 12345u);
  EXPECT_EQ(m->face_groups[n], 0u);  // a repeated name is the same group
}

TEST(Obj, Hm08BaseMesh) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  auto m = loadBaseMesh(data);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->vertexCount(), 19158u);
  EXPECT_EQ(m->faceCount(), 18486u);
  EXPECT_EQ(m->uvs.size() / 2, 21334u);
  // First vertex of base.obj: "v -0.3492 7.3299 1.4076" (line 17).
  EXPECT_EQ(m->positions[0], -0.3492f * 0.1f);
  EXPECT_EQ(m->positions[1], -1.4076f * 0.1f);
  EXPECT_EQ(m->positions[2], 7.3299f * 0.1f);
  auto g = loadVertexGroups(data, m->vertexCount());
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->names.size(), 144u);
  std::size_t cubes = 0;
  for (std::size_t k = 0; k < g->names.size(); ++k)
    if (g->names[k].find("joint") != std::string::npos) {
      ++cubes;
      EXPECT_EQ(g->memberCount(k), 8u) << g->names[k];
    }
  EXPECT_EQ(cubes, 125u);
  ASSERT_NE(g->find("joint-ground"), nullptr);
  EXPECT_EQ(g->find("joint-ground")->front().first, 19150u);
  EXPECT_EQ(g->memberCount(g->index.at("body")), 13380u);
  // The arrays are reserved from a count of the file's v, vt and f lines: no spare room (hm08 is
  // all quads), so no memory is touched beyond what they hold.
  EXPECT_EQ(m->positions.capacity(), m->positions.size());
  EXPECT_EQ(m->uvs.capacity(), m->uvs.size());
  EXPECT_EQ(m->corner_vertices.capacity(), m->corner_vertices.size());
  EXPECT_EQ(m->face_offsets.capacity(), m->face_offsets.size());
  // base.obj has no normals: no per-corner normal array either.
  EXPECT_TRUE(m->normals.empty());
  EXPECT_TRUE(m->corner_normals.empty());
  EXPECT_EQ(m->corner_normals.capacity(), 0u);
}

// corner_normals is empty while no corner has a normal; the first that has one gives every corner
// before it -1 (on the fast path and the general reader's alike).
TEST(Obj, CornerNormalsOnlyWhenACornerHasOne) {
  const std::string pad = "# " + std::string(300, 'x') + "\n";
  const std::string head = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\ng body\n";
  for (const std::string& tail : {pad, std::string()}) {
    auto none = parseObj(head + "f 1/1 2/1 3/1\nvn 0 0 1\nf 1 2 3\n" + tail, "t.obj");
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_EQ(none->normals.size(), 3u);
    EXPECT_TRUE(none->corner_normals.empty());
    auto late = parseObj(head + "f 1/1 2/1 3/1\nvn 0 0 1\nf 1 2 3\nf 1//1 2 3/1/1\nf 1 2 3\n" + tail, "t.obj");
    ASSERT_TRUE(late.ok()) << late.error().message;
    EXPECT_EQ(late->corner_normals, (std::vector<std::int32_t>{-1, -1, -1, -1, -1, -1, 0, -1, 0, -1, -1, -1}));
  }
}

// The line count behind the reservations, on a file long enough for its vector paths and with
// lines it must not count ("vn", "#v") and a last line without '\n': the arrays come out exactly
// full. Lines the count misses (an indented "v") and faces of more than 4 corners make them grow.
TEST(Obj, ArraysReservedFromTheLineCount) {
  std::string text = "# v 1 2 3\n";
  for (int k = 0; k < 997; ++k) text += "v 0." + std::to_string(k) + " 1 2" + (k % 3 ? "\n" : "\r\n");
  for (int k = 0; k < 301; ++k) text += "vt 0.5 0." + std::to_string(k) + "\n";
  text += "vn 0 0 1\ng body\n";
  for (int k = 0; k < 199; ++k) text += "f 1/1 2/2 3/3 " + std::to_string(4 + k) + "/4\n";
  text += "f 1/1 2/2 3/3";
  auto m = parseObj(text, "t.obj");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->vertexCount(), 997u);
  EXPECT_EQ(m->uvs.size(), 602u);
  EXPECT_EQ(m->faceCount(), 200u);
  EXPECT_EQ(m->positions.capacity(), m->positions.size());
  EXPECT_EQ(m->uvs.capacity(), m->uvs.size());
  EXPECT_EQ(m->face_offsets.capacity(), m->face_offsets.size());
  auto more = parseObj(text + "\nf 1 2 3 4 5 6\n  v 1 1 1\n", "t.obj");
  ASSERT_TRUE(more.ok()) << more.error().message;
  EXPECT_EQ(more->corner_vertices.size(), 199u * 4u + 3u + 6u);
  EXPECT_EQ(more->vertexCount(), 998u);
  EXPECT_EQ(more->positions[3 * 997], 0.1f);
}

// The reader's fast decimal path must give exactly the float std::from_chars gives: a sweep of
// short decimals, values at the fast path's limits (2^24, 10 decimals) and ones just beyond.
TEST(Obj, NumbersEqualFromChars) {
  std::vector<std::string> tokens;
  for (int m = 0; m < 200000; m += 7) {
    for (int k = 0; k <= 10; k += 3) {
      std::string digits = std::to_string(m);
      if (static_cast<int>(digits.size()) <= k) digits.insert(0, static_cast<std::size_t>(k + 1) - digits.size(), '0');
      std::string t = k ? digits.substr(0, digits.size() - static_cast<std::size_t>(k)) + "." + digits.substr(digits.size() - static_cast<std::size_t>(k)) : digits;
      tokens.push_back(t);
      tokens.push_back("-" + t);
    }
  }
  for (const char* t : {"16777216", "16777217", "1.6777216", "1.6777217", "0.0000000001", "0.00000000001",
                        "9999999.9", "123456789.123", "1e3", "-0.0", "+2.5", "3.", ".5", "0.1234567891"})
    tokens.push_back(t);
  std::string text;
  for (std::size_t k = 0; k < tokens.size(); ++k) text += "vt " + tokens[k] + " 0\n";
  auto m = parseObj(text, "sweep.obj");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->uvs.size(), 2 * tokens.size());
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::string& t = tokens[k];
    const char* b = t.data() + (t[0] == '+' ? 1 : 0);
    float want = 0.0f;
    ASSERT_EQ(std::from_chars(b, t.data() + t.size(), want).ec, std::errc()) << t;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(m->uvs[2 * k]), std::bit_cast<std::uint32_t>(want)) << t;
  }
}

// Every coordinate of hm08's base.obj read as from_chars reads it (then scaled and swapped).
TEST(Obj, Hm08NumbersEqualFromChars) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto text = readFile(test::sharedData() + "/3dobjs/base.obj");
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto m = parseObj(*text, "base.obj");
  ASSERT_TRUE(m.ok()) << m.error().message;
  std::size_t v = 0, t = 0;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key, a, b, c;
    ls >> key >> a >> b >> c;
    auto f = [](const std::string& s) {
      float x = 0.0f;
      std::from_chars(s.data(), s.data() + s.size(), x);
      return x;
    };
    if (key == "v") {
      ASSERT_EQ(m->positions[3 * v], f(a) * 0.1f) << line;
      ASSERT_EQ(m->positions[3 * v + 1], -f(c) * 0.1f) << line;
      ASSERT_EQ(m->positions[3 * v + 2], f(b) * 0.1f) << line;
      ++v;
    } else if (key == "vt") {
      ASSERT_EQ(m->uvs[2 * t], f(a)) << line;
      ASSERT_EQ(m->uvs[2 * t + 1], f(b)) << line;
      ++t;
    }
  }
  EXPECT_EQ(v, m->vertexCount());
  EXPECT_EQ(t, m->uvs.size() / 2);
}

TEST(VertexGroups, Hm08InPlaceAndCopied) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto file = loadFile(test::sharedData() + "/mesh_metadata/basemesh_vertex_groups.json");
  ASSERT_TRUE(file.ok());
  auto in_place = parseVertexGroups(*file, "g.json", 19158);
  auto copied = parseVertexGroups(file->text(), "g.json", 19158);
  ASSERT_TRUE(in_place.ok() && copied.ok());
  EXPECT_EQ(in_place->names, copied->names);
  ASSERT_EQ(in_place->ranges.size(), copied->ranges.size());
  for (std::size_t g = 0; g < in_place->ranges.size(); ++g) {
    ASSERT_EQ(in_place->ranges[g].size(), copied->ranges[g].size());
    for (std::size_t r = 0; r < in_place->ranges[g].size(); ++r) {
      EXPECT_EQ(in_place->ranges[g][r].first, copied->ranges[g][r].first);
      EXPECT_EQ(in_place->ranges[g][r].last, copied->ranges[g][r].last);
    }
    EXPECT_EQ(in_place->index.at(in_place->names[g]), g);
  }
  auto small = parseVertexGroups(*file, "g.json", 100);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.error().message, "g.json: HelperGeometry[0]: range [13380, 13605] reaches beyond the mesh of 100 vertices");
}

// Every kind of bad input: the message names the file and the JSON path (or, for a syntax error,
// line, column and byte), and the code tells the kind.
TEST(VertexGroups, Errors) {
  const std::tuple<const char*, ErrorCode, const char*> cases[] = {
      {R"({"a": [[0, 7]], "b": [[8, 20]]})", ErrorCode::kRange, "g.json: b[0]: range [8, 20] reaches beyond the mesh of 16 vertices"},
      {R"({"a": [[0, 7]], "a": [[8, 9]]})", ErrorCode::kSyntax, "g.json: $: duplicate key \"a\""},
      {R"({"a": [[0, 7.0]]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": [[0, 1, 2]]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": [[-1, 2]]})", ErrorCode::kSchema, "g.json: a[0]: invalid range [-1, 2]"},
      {R"({"a": [[5, 2]]})", ErrorCode::kSchema, "g.json: a[0]: invalid range [5, 2]"},
      {R"({"a": [[0, 18446744073709551615]]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": [[0, 123456789012345678901234]]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": [[0, 1e400]]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": [[0, 1e1]]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": {"b": 1}})", ErrorCode::kSchema, "g.json: a: expected an array of [first, last] ranges"},
      {R"({"a": [[0, 1]], "b": 5})", ErrorCode::kSchema, "g.json: b: expected an array of [first, last] ranges"},
      {R"([[0, 1]])", ErrorCode::kSchema, "g.json: $: expected an object of vertex groups"},
      {R"({"a": [[0, 1]])", ErrorCode::kSyntax, "g.json: line 1, column 15 (byte 14): unexpected end of file"},
      {R"({"a": [[0, 1]]} x)", ErrorCode::kSyntax, "g.json: line 1, column 17 (byte 16): unexpected text after the document"},
      {R"({"a": [0, 1]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": [[0, 1], [2]]})", ErrorCode::kSchema, "g.json: a[1]: expected [first, last] integers"},
      {R"({"a": [[0 1]]})", ErrorCode::kSyntax, "g.json: line 1, column 11 (byte 10): expected ',' or ']'"},
      {R"({"a": [[0, 1],]})", ErrorCode::kSyntax, "g.json: line 1, column 15 (byte 14): unexpected character ']'"},
      {R"({"a": [["0", 1]]})", ErrorCode::kSchema, "g.json: a[0]: expected [first, last] integers"},
      {R"({"a": [[0, 1]], })", ErrorCode::kSyntax, "g.json: line 1, column 17 (byte 16): expected a string key"},
      {R"({"a": [[0, 16]]})", ErrorCode::kRange, "g.json: a[0]: range [0, 16] reaches beyond the mesh of 16 vertices"},
      {R"({"a": [[0, 1]]}})", ErrorCode::kSyntax, "g.json: line 1, column 16 (byte 15): unexpected text after the document"},
      // A syntax error after a value error: the syntax error is named.
      {R"({"a": [[5, 2]], "b": [[0, 1], [2, x]]})", ErrorCode::kSyntax, "g.json: line 1, column 35 (byte 34): unexpected character 'x'"},
      {"", ErrorCode::kSyntax, "g.json: line 1, column 1 (byte 0): empty document"},
  };
  for (const auto& [text, code, message] : cases) {
    auto g = parseVertexGroups(text, "g.json", 16);
    ASSERT_FALSE(g.ok()) << text;
    EXPECT_EQ(g.error().message, message) << text;
    EXPECT_EQ(g.error().code, code) << text;
  }
}

TEST(VertexGroups, EveryLayout) {
  for (const char* good : {R"({"a":[[0,7]],"b":[[8,9],[10,15]]})", "{\n  \"a\": [\n    [\n      0,\n      7\n    ]\n  ],\n  \"b\": [[8, 9], [10, 15]]\n}\n",
                           R"( {"a": [[0, 7]], "b": [[8, 9], [10, 15]]} )", R"({"\u0061": [[-0, 7]], "b": [[8, 9], [10, 15]]})"}) {
    auto g = parseVertexGroups(good, "g.json", 16);
    ASSERT_TRUE(g.ok()) << good << ": " << g.error().message;
    EXPECT_EQ(g->names, (std::vector<std::string>{"a", "b"})) << good;
    ASSERT_EQ(g->ranges.size(), 2u);
    ASSERT_EQ(g->ranges[0].size(), 1u);
    EXPECT_EQ(g->ranges[0][0].first, 0u);
    EXPECT_EQ(g->ranges[0][0].last, 7u);
    ASSERT_EQ(g->ranges[1].size(), 2u);
    EXPECT_EQ(g->ranges[1][1].first, 10u);
    EXPECT_EQ(g->ranges[1][1].last, 15u);
  }
  for (const char* empty : {R"({})", R"({"a": []})"}) {
    auto g = parseVertexGroups(empty, "g.json", 16);
    ASSERT_TRUE(g.ok()) << empty;
    for (const auto& r : g->ranges) EXPECT_TRUE(r.empty());
  }
  // A hand-checked result: names in file order, ranges as written.
  auto g = parseVertexGroups(R"({"b": [[8, 9], [10, 15]], "a": [[0, 7]]})", "g.json", 16);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->names, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(g->index.at("a"), 1u);
  ASSERT_EQ(g->ranges[0].size(), 2u);
  EXPECT_EQ(g->ranges[0][1].first, 10u);
  EXPECT_EQ(g->ranges[0][1].last, 15u);
  EXPECT_EQ(g->memberCount(0), 8u);
}

// With no vertex count to check against (SIZE_MAX, as loadCharacter reads the groups before the
// body), an index beyond 32 bits is still an error, not a truncated range.
TEST(VertexGroups, IndexBeyond32BitsIsAnError) {
  for (const char* text : {R"({"a": [[0, 4294967296]]})", R"({"a": [[0, 4294967295]]})"}) {
    auto g = parseVertexGroups(text, "g.json", SIZE_MAX);
    if (std::string(text).find("4294967296") != std::string::npos) {
      ASSERT_FALSE(g.ok());
      EXPECT_EQ(g.error().message, "g.json: a[0]: vertex 4294967296 is beyond the 32-bit vertex indices of a mesh");
    } else {
      ASSERT_TRUE(g.ok()) << g.error().message;
      EXPECT_EQ(g->ranges[0][0].last, 4294967295u);
    }
  }
}

TEST(VertexGroups, RangeBeyondMeshIsAnError) {
  auto g = parseVertexGroups(R"({"joint-a": [[0, 7]], "joint-b": [[8, 20]]})", "g.json", 16);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message, "g.json: [\"joint-b\"][0]: range [8, 20] reaches beyond the mesh of 16 vertices");
}

}  // namespace
}  // namespace rigfit
