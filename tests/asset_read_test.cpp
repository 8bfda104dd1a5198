// The .mhclo / .proxy and .mhmat readers (docs/mpfb-assets.md §1): both vertex-line forms,
// MPFB's quirks, and errors naming the file and line.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "rigfit/asset.hpp"
#include "rigfit/data.hpp"
#include "rigfit/pipeline_options.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

ProxyFile parseOk(std::string_view text) {
  auto r = parseProxyFile(text, "t.mhclo");
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(*r) : ProxyFile{};
}

std::string parseError(std::string_view text) {
  auto r = parseProxyFile(text, "t.mhclo");
  return r.ok() ? "(no error)" : r.error().message;
}

TEST(AssetRead, BothVertexLineFormsAndOffsetsInTheRigFrame) {
  const ProxyFile f = parseOk(
      "# author Jane Doe\n"
      "# license CC-BY 4.0\n"
      "# description Some nice hair\n"
      "name Thing thing\n"
      "uuid 1234-5678\n"
      "tag MakeHuman\n"
      "tag Long Hair\n"
      "obj_file thing.obj\n"
      "x_scale 5399 11998 1.3980\n"
      "z_scale 962 5320 1.8461\n"
      "y_scale 791 881 2.2048\n"
      "z_depth 7\n"
      "verts 0\n"
      "  962  5379 11981 -0.00883 0.81679 0.19205 0.01606 0.04671 -0.18255\n"
      "13380\n"
      "1 2 3 0.5 0.25 0.25 1 2 3 trailing ignored\n"
      "\n"
      "material thing.mhmat\n");
  EXPECT_EQ(f.author, "Jane");
  EXPECT_EQ(f.license, "CC-BY");
  EXPECT_EQ(f.description, "Some nice hair");
  EXPECT_EQ(f.name, "Thing");
  EXPECT_EQ(f.uuid, "1234-5678");
  EXPECT_EQ(f.tags, "makehuman,long");
  EXPECT_EQ(f.obj_file, "thing.obj");
  EXPECT_EQ(f.material, "thing.mhmat");
  EXPECT_EQ(f.z_depth, 7);
  ASSERT_TRUE(f.x_scale && f.y_scale && f.z_scale);
  EXPECT_EQ(f.x_scale->a, 5399);
  EXPECT_EQ(f.x_scale->b, 11998);
  EXPECT_EQ(f.x_scale->ref, 1.3980);
  EXPECT_EQ(f.y_scale->a, 791);
  EXPECT_EQ(f.z_scale->b, 5320);
  ASSERT_EQ(f.bindings.size(), 3u);
  const auto& b = f.bindings;
  EXPECT_EQ(b.vertices[0], 962);
  EXPECT_EQ(b.vertices[1], 5379);
  EXPECT_EQ(b.vertices[2], 11981);
  EXPECT_EQ(b.weights[0], -0.00883);  // negative weights are kept
  EXPECT_EQ(b.weights[1], 0.81679);
  EXPECT_EQ(b.weights[2], 0.19205);
  // (dx, dy, dz) in the MH frame -> (dx, -dz, dy), float32.
  EXPECT_EQ(b.offsets[0], 0.01606f);
  EXPECT_EQ(b.offsets[1], 0.18255f);
  EXPECT_EQ(b.offsets[2], 0.04671f);
  // One index: an exact copy.
  EXPECT_EQ(b.vertices[3], 13380);
  EXPECT_EQ(b.vertices[4], 13380);
  EXPECT_EQ(b.vertices[5], 13380);
  EXPECT_EQ(b.weights[3], 1.0);
  EXPECT_EQ(b.weights[4], 0.0);
  EXPECT_EQ(b.weights[5], 0.0);
  EXPECT_EQ(b.offsets[3], 0.0f);
  EXPECT_EQ(b.offsets[4], 0.0f);
  EXPECT_EQ(b.offsets[5], 0.0f);
  EXPECT_EQ(b.offsets[6], 1.0f);
  EXPECT_EQ(b.offsets[7], -3.0f);
  EXPECT_EQ(b.offsets[8], 2.0f);
}

TEST(AssetRead, MpfbDefaultsAndLicenseRules) {
  ProxyFile f = parseOk("verts 0\n1\n");
  EXPECT_EQ(f.name, "imported_cloth");
  EXPECT_EQ(f.author, "unknown");
  EXPECT_EQ(f.license, "CC0");
  EXPECT_EQ(f.description, "no description");
  EXPECT_EQ(f.z_depth, 50);
  EXPECT_FALSE(f.x_scale);
  EXPECT_FALSE(f.has_delete_verts);
  // "apgl" (sic) is AGPL; "by" anywhere in the line wins; anything else keeps CC0.
  EXPECT_EQ(parseOk("# license AGPL-3 apgl\nverts 0\n1\n").license, "AGPL");
  EXPECT_EQ(parseOk("# license CC0 made by me\nverts 0\n1\n").license, "CC-BY");
  EXPECT_EQ(parseOk("# license CC0\nverts 0\n1\n").license, "CC0");
  // `# author` needs a value after the key; a comment without "#" as its own word is not read.
  EXPECT_EQ(parseOk("# author\n#author X\nverts 0\n1\n").author, "unknown");
}

TEST(AssetRead, MaterialAndWeightsFileAreReadInsideTheVertexList) {
  const ProxyFile f = parseOk("verts 0\nmaterial a.mhmat\n1\nvertexboneweights_file w.mhw\n2\n# a comment\n3\n");
  EXPECT_EQ(f.material, "a.mhmat");
  EXPECT_EQ(f.vertexboneweights_file, "w.mhw");
  EXPECT_EQ(f.bindings.size(), 3u);
}

TEST(AssetRead, TheLineEndingASectionIsConsumed) {
  // A key right after the last vertex is lost (MPFB's quirk); after a blank line it is read.
  ProxyFile f = parseOk("verts 0\n1\n2\nname lost\nuuid kept\n");
  EXPECT_EQ(f.bindings.size(), 2u);
  EXPECT_EQ(f.name, "imported_cloth");
  EXPECT_EQ(f.uuid, "kept");
  f = parseOk("verts 0\n1\n2\n\nname kept\n");
  EXPECT_EQ(f.name, "kept");
  // A negative first index ends the section too, and is consumed.
  f = parseOk("verts 0\n1\n-1\n2\n");
  EXPECT_EQ(f.bindings.size(), 1u);
  // After delete_verts likewise: the ending line is consumed.
  f = parseOk("verts 0\n1\n\ndelete_verts\n5 6\nname lost\nname kept\n");
  EXPECT_EQ(f.name, "kept");
  EXPECT_EQ(f.delete_verts, (std::vector<std::int64_t>{5, 6}));
  // `verts` with no number starts no section: the digits are then unknown keys.
  EXPECT_EQ(parseError("verts\n1\n"), "t.mhclo: no vertex bindings (no `verts` section)");
}

TEST(AssetRead, DeleteVertsRangesOverSeveralLines) {
  const ProxyFile f = parseOk(
      "verts 0\n1\n\n"
      "delete_verts\n"
      "4 - 6 10 \n"
      "12 - 13 20 -\n"  // a '-' at the end of a line carries nothing to the next line
      "22 7 - 5\n"      // a descending range is empty
      "30\n");
  EXPECT_TRUE(f.has_delete_verts);
  // As MPFB lists them: a range's first number twice (once as a number, once in the range).
  EXPECT_EQ(f.delete_verts, (std::vector<std::int64_t>{4, 4, 5, 6, 10, 12, 12, 13, 20, 22, 7, 30}));
}

TEST(AssetRead, UnknownAndIgnoredKeysAreSkipped) {
  const ProxyFile f = parseOk(
      "basemesh hm08\nshear_x 1 2 3 4\nl_shear_y 1 2 3 4\nspecial_pose expression face\nbackface_culling False\n"
      "transparent True\nuvLayer 0 x.mhuv\nmax_pole 8\nverts 0\n1\n");
  EXPECT_EQ(f.bindings.size(), 1u);
}

TEST(AssetRead, LineEndingsAndWhitespace) {
  const ProxyFile f = parseOk("name\tA\r\nverts 0\r\n 1\x0b 2 3 0.5 0.5 0 0 0 0\r\r\ndelete_verts\r3 - 4\r");
  EXPECT_EQ(f.name, "A");
  EXPECT_EQ(f.bindings.size(), 1u);
  EXPECT_EQ(f.delete_verts, (std::vector<std::int64_t>{3, 3, 4}));
}

TEST(AssetRead, ErrorsNameTheFileAndLine) {
  EXPECT_EQ(parseError("verts 0\n1 2 3 0.5 0.5\n"),
            "t.mhclo: line 2: vertex line 0 has 5 values; expected 1 (a body vertex) or 9 (3 vertices, 3 weights, 3 offsets)");
  EXPECT_EQ(parseError("verts 0\n1\n1 2 x 0.5 0.5 0 0 0 0\n"), "t.mhclo: line 3: vertex line 1: \"x\" is not an integer");
  EXPECT_EQ(parseError("verts 0\n1 2 3 0.5 abc 0 0 0 0\n"), "t.mhclo: line 2: vertex line 0: \"abc\" is not a finite number");
  EXPECT_EQ(parseError("verts 0\n1 2 3 0.5 nan 0 0 0 0\n"), "t.mhclo: line 2: vertex line 0: \"nan\" is not a finite number");
  EXPECT_EQ(parseError("x_scale 1 2\nverts 0\n1\n"), "t.mhclo: line 1: x_scale needs 3 values");
  EXPECT_EQ(parseError("x_scale 1 b 2\nverts 0\n1\n"), "t.mhclo: line 1: x_scale: vertex index \"b\" is not an integer");
  EXPECT_EQ(parseError("z_depth 1.5\nverts 0\n1\n"), "t.mhclo: line 1: z_depth: \"1.5\" is not an integer");
  EXPECT_EQ(parseError("verts x\n"), "t.mhclo: line 1: verts: \"x\" is not an integer");
  EXPECT_EQ(parseError("verts 0\n1\n\ndelete_verts\n1 2 q\n"), "t.mhclo: line 5: delete_verts: \"q\" is not an integer");
  EXPECT_EQ(parseError("\n\nmaterial\nverts 0\n1\n"), "t.mhclo: line 3: material without a file");
  EXPECT_EQ(parseError("obj_file\n"), "t.mhclo: line 1: obj_file needs 1 value");
  EXPECT_EQ(parseError("verts 0\n1\n\ndelete_verts\n0 - 99999999\n"),
            "t.mhclo: line 5: delete_verts: the range 0 - 99999999 lists more than 1048576 vertices");
  EXPECT_EQ(parseError("verts 0\n1\n\ndelete_verts\n1 - 3\n\nverts 0\n2\n"),
            "t.mhclo: line 8: vertex line after a delete_verts range (MPFB would number the vertices wrongly)");
  EXPECT_EQ(parseError("name x\n"), "t.mhclo: no vertex bindings (no `verts` section)");
}

TEST(AssetRead, PythonNumbers) {
  const ProxyFile f = parseOk("verts 0\n1 +2 -3 .5 5. 1e-1 -0 +1.5 2E1\n\ndelete_verts\n5 +6 -7 99999999999999999999999\n");
  EXPECT_EQ(f.bindings.vertices[1], 2);
  EXPECT_EQ(f.bindings.vertices[2], -3);
  EXPECT_EQ(f.bindings.weights[0], 0.5);
  EXPECT_EQ(f.bindings.weights[1], 5.0);
  EXPECT_EQ(f.bindings.weights[2], 0.1);
  EXPECT_EQ(f.bindings.offsets[0], 0.0f);
  EXPECT_EQ(f.bindings.offsets[1], -20.0f);
  EXPECT_EQ(f.bindings.offsets[2], 1.5f);
  EXPECT_EQ(f.delete_verts, (std::vector<std::int64_t>{5, 6, -7, INT64_MAX}));
}

// ---------------------------------------------------------------------------------------------
// .mhmat

TEST(AssetMaterialRead, KeysTexturesAndAlpha) {
  std::vector<std::string> warnings;
  auto m = parseMaterial(
      "# comment\n// another\nname My Hair Material\nDiffuseColor 0.5 0.25 1\nopacity 0.75\nroughness 0.3\nmetallic 0.1\n"
      "transparent True\nalphaToCoverage t\nbackfaceCull False\ndiffuseTexture tex\\hair diffuse.png\nbumpTexture b.png\n"
      "normalmapTexture n.png\nshaderConfig spec True\nshininess 0.5\nglowColor 1 1 1\n",
      "h.mhmat", "/x/y", &warnings);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->name, "My Hair Material");
  EXPECT_EQ(m->diffuse_color, (std::array<double, 3>{0.5, 0.25, 1.0}));
  EXPECT_EQ(m->opacity, 0.75);
  EXPECT_EQ(m->roughness, 0.3);
  EXPECT_EQ(m->metallic, 0.1);
  EXPECT_TRUE(m->transparent);
  EXPECT_TRUE(m->alpha_to_coverage);
  EXPECT_FALSE(m->backface_cull);
  ASSERT_NE(m->texture("diffuseTexture"), nullptr);
  EXPECT_EQ(m->texture("diffuseTexture")->written, "tex\\hair diffuse.png");
  EXPECT_EQ(m->texture("diffuseTexture")->path, "/x/y/tex/hair diffuse.png");
  ASSERT_NE(m->texture("bumpmapTexture"), nullptr);  // an alias
  EXPECT_EQ(m->texture("normalmapTexture")->path, "/x/y/n.png");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "h.mhmat: line 16: unknown key \"glowColor\"");
  const ExportMaterial e = exportMaterial(*m);
  EXPECT_EQ(e.name, "My Hair Material");
  EXPECT_EQ(e.base_color, (std::array<float, 4>{0.5f, 0.25f, 1.0f, 0.75f}));
  EXPECT_EQ(e.alpha_mode, AlphaMode::kMask);
  EXPECT_EQ(e.alpha_cutoff, 0.5);
  EXPECT_DOUBLE_EQ(e.roughness, 0.3);
  EXPECT_DOUBLE_EQ(e.metallic, 0.1);
  EXPECT_TRUE(e.double_sided);

  // Defaults: opaque, single-sided, alpha to coverage on; transparency without it blends.
  auto d = parseMaterial("name x\n", "d.mhmat", "");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(exportMaterial(*d).alpha_mode, AlphaMode::kOpaque);
  EXPECT_FALSE(exportMaterial(*d).double_sided);
  EXPECT_DOUBLE_EQ(exportMaterial(*d).roughness, 0.7);
  auto blend = parseMaterial("transparent 1\nalphaToCoverage False\n", "b.mhmat", "");
  ASSERT_TRUE(blend.ok());
  EXPECT_EQ(exportMaterial(*blend).alpha_mode, AlphaMode::kBlend);
  auto faded = parseMaterial("opacity 0.5\n", "b.mhmat", "");
  ASSERT_TRUE(faded.ok());
  EXPECT_EQ(exportMaterial(*faded).alpha_mode, AlphaMode::kBlend);
}

TEST(AssetMaterialRead, Errors) {
  auto err = [](std::string_view text) {
    auto r = parseMaterial(text, "m.mhmat", "");
    return r.ok() ? std::string("(no error)") : r.error().message;
  };
  EXPECT_EQ(err("name a\ndiffuseColor 1 1\n"), "m.mhmat: line 2: diffuseColor needs 3 numbers (R G B)");
  EXPECT_EQ(err("diffuseColor 1 x 1\n"), "m.mhmat: line 1: diffuseColor: \"x\" is not a finite number");
  EXPECT_EQ(err("opacity\n"), "m.mhmat: line 1: opacity needs a value");
  EXPECT_EQ(err("\nroughness high\n"), "m.mhmat: line 2: roughness: \"high\" is not a finite number");
  EXPECT_EQ(err("diffuseTexture   \n"), "m.mhmat: line 1: diffuseTexture needs a value");
}

TEST(AssetMaterialRead, MissingTexturesAreWarningsNamingThem) {
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_mhmat_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "present.png") << "x";
  std::ofstream(dir / "m.mhmat") << "name m\ndiffuseTexture present.png\nnormalmapTexture absent.png\n";
  std::vector<std::string> warnings;
  auto m = readMaterial((dir / "m.mhmat").string(), &warnings);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->texture("diffuseTexture")->exists);
  EXPECT_FALSE(m->texture("normalmapTexture")->exists);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], (dir / "m.mhmat").string() + ": normalmapTexture: texture file " + (dir / "absent.png").string() + " is missing");
  std::filesystem::remove_all(dir);
}


// The keys every rig bone must have besides its ends, roll and parent.
constexpr const char* kBoneFlags =
    R"("use_connect": false, "use_local_location": true, "use_inherit_rotation": true, "inherit_scale": "FULL", "rigify": {}}}})";

TEST(AssetLoad, ObjMismatchMissingMaterialAndErrorsNameTheFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_asset_load_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\ng a\nf 1/1 2/2 3/3\n";
  std::ofstream(dir / "tri.obj") << obj;
  std::ofstream(dir / "a.mhclo") << "name a\nobj_file tri.obj\nmaterial none.mhmat\nverts 0\n1\n2\n3\n";
  std::ofstream(dir / "a.force.mhw") << R"({"weights": {"x": [[2, 0.5]]}})";
  std::ofstream(dir / "a.mpfbskel")
      << R"({"is_subrig": true, "version": 110, "bones": {"b": {"head": {"strategy": "VERTEX", "vertex_index": 0}, )"
         R"("tail": {"strategy": "VERTEX", "vertex_index": 1}, "parent": "", "roll": 0, )" << kBoneFlags;
  auto a = loadAsset((dir / "a.mhclo").string(), {});
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mesh.vertexCount(), 3u);
  EXPECT_EQ(a->mesh.faceCount(), 1u);
  EXPECT_FALSE(a->material);
  ASSERT_EQ(a->warnings.size(), 1u);
  EXPECT_EQ(a->warnings[0], (dir / "a.mhclo").string() + ": material file " + (dir / "none.mhmat").string() + " is missing");
  ASSERT_EQ(a->custom_weights.size(), 1u);
  EXPECT_TRUE(a->custom_weights[0].all_groups);
  EXPECT_EQ(a->subrig_path, (dir / "a.mpfbskel").string());
  ASSERT_TRUE(a->subrig);
  EXPECT_TRUE(a->subrig->is_subrig);
  ASSERT_EQ(a->subrig->bones.size(), 1u);

  // A sub-rig file must say it is one; a broken one names its JSON path.
  std::ofstream(dir / "s.mhclo") << "obj_file tri.obj\nverts 0\n1\n2\n3\n";
  std::ofstream(dir / "s.mpfbskel") << R"({"version": 110, "bones": {"b": {"head": {"strategy": "VERTEX", "vertex_index": 0}, )"
                                       R"("tail": {"strategy": "VERTEX", "vertex_index": 1}, "parent": "", "roll": 0, )" << kBoneFlags;
  auto s = loadAsset((dir / "s.mhclo").string());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, (dir / "s.mpfbskel").string() + ": is_subrig: not set; a sub-rig beside an asset must say it is one");
  std::ofstream(dir / "s.mpfbskel") << R"({"is_subrig": true, "version": 110, "bones": {"b": {"parent": 3}}})";
  s = loadAsset((dir / "s.mhclo").string());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.rfind((dir / "s.mpfbskel").string() + ": bones.b", 0), 0u) << s.error().message;

  std::ofstream(dir / "b.mhclo") << "obj_file tri.obj\nverts 0\n1\n2\n";
  auto b = loadAsset((dir / "b.mhclo").string());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message, (dir / "b.mhclo").string() + ": 2 vertex bindings, but " + (dir / "tri.obj").string() + " has 3 vertices");
  std::ofstream(dir / "c.mhclo") << "obj_file tri.obj\nverts 0\n1\n2 3\n";
  auto c = loadAsset((dir / "c.mhclo").string());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message.rfind((dir / "c.mhclo").string() + ": line 4: vertex line 1 has 2 values", 0), 0u) << c.error().message;
  std::ofstream(dir / "d.mhclo") << "verts 0\n1\n";
  auto d = loadAsset((dir / "d.mhclo").string());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, (dir / "d.mhclo").string() + ": no obj_file");
  // A custom weights file with a vertex beyond the asset: the weights reader's error.
  std::ofstream(dir / "a.force.mhw") << R"({"weights": {"x": [[3, 0.5]]}})";
  auto e = loadAsset((dir / "a.mhclo").string());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("a.force.mhw"), std::string::npos) << e.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rigfit

// Assets and proxies as users name them (resolveDataFile, kAsset / kProxy) in the shipped assets
// folder: a path (file or folder), the same under the assets folder, else a name anywhere under it.
// Every path form on a made-up folder: data_file_test.cpp.
namespace rigfit {
namespace {

std::string assetPath(DataFileKind kind, std::string_view spec, std::string_view assets_dir) {
  auto f = resolveDataFile(DataSource::builtinDemo(), kind, spec, assets_dir);
  return f ? f->path : "error: " + f.error().message;
}

TEST(AssetFiles, PathsFoldersAndNames) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string assets = test::sharedData() + "/../assets";
  const std::string shoes = assets + "/clothes/shoes01/shoes01.mhclo";
  EXPECT_EQ(assetPath(DataFileKind::kAsset, shoes, ""), shoes);
  EXPECT_EQ(assetPath(DataFileKind::kAsset, assets + "/clothes/shoes01", ""), shoes);
  EXPECT_EQ(assetPath(DataFileKind::kAsset, "clothes/shoes01", assets), shoes);  // relative to the assets folder
  EXPECT_EQ(assetPath(DataFileKind::kAsset, "shoes01", assets), shoes);
  const std::string proxy = assets + "/proxymeshes/female_generic/female_generic.proxy";
  EXPECT_EQ(assetPath(DataFileKind::kProxy, "female_generic", assets), proxy);
  EXPECT_EQ(assetPath(DataFileKind::kProxy, "female_generic/female_generic", assets), proxy);  // in proxymeshes/, no extension
  EXPECT_EQ(assetPath(DataFileKind::kProxy, "proxymeshes/female_generic", assets), proxy);
}

TEST(AssetFiles, ErrorsNameTheAsset) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string assets = test::sharedData() + "/../assets";
  const auto error = [](DataFileKind kind, std::string_view spec, std::string_view dir) {
    return resolveDataFile(DataSource::builtinDemo(), kind, spec, dir).error();
  };
  EXPECT_EQ(error(DataFileKind::kAsset, "shoes01", "").message,
            "asset shoes01: no such file or folder (looked for shoes01{,.mhclo} in .; no assets folder)");
  EXPECT_EQ(error(DataFileKind::kAsset, "eyebrow01", assets).message,
            "asset eyebrow01: no asset of that name in " + assets + " (did you mean \"eyebrow001\"?)");
  EXPECT_EQ(error(DataFileKind::kAsset, assets + "/eyes", "").message,
            "asset " + assets + "/eyes: the folder " + assets + "/eyes holds no .mhclo file");
  // A proxy is a .proxy, an asset a .mhclo: each kind suggests its own names.
  EXPECT_EQ(error(DataFileKind::kProxy, "shoes01", assets).message,
            "proxy shoes01: no proxy of that name in " + assets + " (available: female_generic)");
  EXPECT_EQ(error(DataFileKind::kAsset, "female_generic", assets).code, ErrorCode::kIo);
  EXPECT_EQ(replaceSubject(error(DataFileKind::kAsset, "x", ""), "--asset").message,
            "--asset x: no such file or folder (looked for x{,.mhclo} in .; no assets folder)");
  EXPECT_EQ(error(DataFileKind::kAsset, "", assets).code, ErrorCode::kUsage);
  EXPECT_EQ(error(DataFileKind::kProxy, "", assets).message, "proxy \"\": an empty name");
}

}  // namespace
}  // namespace rigfit
