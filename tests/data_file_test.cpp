// resolveDataFile: every path form of every kind of file users name (absolute, relative to the
// current folder, relative to the data folder and to the kind's sub-folder, with and without the
// extension), ambiguity and not-found errors.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "rigfit/character.hpp"
#include "rigfit/data.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

namespace fs = std::filesystem;

// A data folder D and a working folder W (the current folder while the test runs).
class DataFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("rigfit_data_file_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    data_dir_ = (root_ / "D").string();
    work_ = (root_ / "W").string();
    for (const char* f : {"rigs/standard/rig.r.json", "rigs/standard/weights.r.json", "rigs/rigify/rig.h.json", "3dobjs/base.obj",
                          "targets/a/t.target.gz", "targets/a/u.target", "poses/p/q.json"})
      write(data_dir_ + "/" + f);
    fs::create_directories(work_);
    old_cwd_ = fs::current_path();
    fs::current_path(work_);
  }
  void TearDown() override {
    fs::current_path(old_cwd_);
    fs::remove_all(root_);
  }
  static void write(const std::string& path) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << "x\n";
  }
  Expected<DataFile> find(DataFileKind kind, const std::string& spec) const { return resolveDataFile(data(), kind, spec); }
  DataSource data() const { return DataSource::folder(data_dir_); }
  // The file `spec` resolves to, as "source:PATH" or "disk:PATH".
  std::string where(DataFileKind kind, const std::string& spec) const {
    auto f = find(kind, spec);
    if (!f) return "error: " + f.error().message;
    return (f->in_source ? "source:" : "disk:") + f->path;
  }

  fs::path root_, old_cwd_;
  std::string data_dir_, work_;
};

TEST_F(DataFileTest, RigByNameAndEveryPathForm) {
  EXPECT_EQ(where(DataFileKind::kRig, "r"), "source:rigs/standard/rig.r.json");
  EXPECT_EQ(where(DataFileKind::kRig, "h"), "source:rigs/rigify/rig.h.json");
  EXPECT_EQ(where(DataFileKind::kRig, "rigify.h"), "source:rigs/rigify/rig.h.json");
  EXPECT_EQ(where(DataFileKind::kRig, "rig.r"), "source:rigs/standard/rig.r.json");                    // sub-folder, no extension
  EXPECT_EQ(where(DataFileKind::kRig, "rig.r.json"), "source:rigs/standard/rig.r.json");               // sub-folder, extension
  EXPECT_EQ(where(DataFileKind::kRig, "rigs/standard/rig.r"), "source:rigs/standard/rig.r.json");      // data folder
  EXPECT_EQ(where(DataFileKind::kRig, "rigs/rigify/rig.h.json"), "source:rigs/rigify/rig.h.json");
  const std::string abs = data_dir_ + "/rigs/standard/rig.r";
  EXPECT_EQ(where(DataFileKind::kRig, abs), "disk:" + abs + ".json");  // absolute, no extension
  EXPECT_EQ(where(DataFileKind::kRig, abs + ".json"), "disk:" + abs + ".json");
  write(work_ + "/mine/my.mpfbskel");
  EXPECT_EQ(where(DataFileKind::kRig, "mine/my"), "disk:mine/my.mpfbskel");  // current folder, no extension
  EXPECT_EQ(where(DataFileKind::kRig, "mine/my.mpfbskel"), "disk:mine/my.mpfbskel");
  EXPECT_EQ(find(DataFileKind::kRig, "mine/my")->label, "mine/my.mpfbskel");
  EXPECT_EQ(find(DataFileKind::kRig, "r")->label, data_dir_ + "/rigs/standard/rig.r.json");
}

TEST_F(DataFileTest, RigLocationNamesTheRigType) {
  write(work_ + "/rig.custom.json");
  auto shipped = locateRig(data(), "rigs/rigify/rig.h");
  ASSERT_TRUE(shipped.ok()) << shipped.error().message;
  EXPECT_EQ(shipped->name, "rigify.h");
  EXPECT_TRUE(shipped->in_source);
  auto own = locateRig(data(), "rig.custom.json");
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_EQ(own->name, "custom");
  EXPECT_FALSE(own->in_source);
  write(work_ + "/sub.mpfbskel");
  EXPECT_EQ(locateRig(data(), "sub")->name, "sub");
}

TEST_F(DataFileTest, WeightsByNameAndEveryPathForm) {
  EXPECT_EQ(where(DataFileKind::kWeights, "r"), "source:rigs/standard/weights.r.json");
  EXPECT_EQ(where(DataFileKind::kWeights, "weights.r"), "source:rigs/standard/weights.r.json");
  EXPECT_EQ(where(DataFileKind::kWeights, "rigs/standard/weights.r.json"), "source:rigs/standard/weights.r.json");
  write(work_ + "/w/custom.mhw");
  EXPECT_EQ(where(DataFileKind::kWeights, "w/custom"), "disk:w/custom.mhw");
  EXPECT_EQ(where(DataFileKind::kWeights, "w/custom.mhw"), "disk:w/custom.mhw");
  EXPECT_EQ(where(DataFileKind::kWeights, work_ + "/w/custom.mhw"), "disk:" + work_ + "/w/custom.mhw");
  EXPECT_EQ(where(DataFileKind::kWeights, work_ + "/w/custom"), "disk:" + work_ + "/w/custom.mhw");
}

TEST_F(DataFileTest, MeshEveryPathForm) {
  EXPECT_EQ(where(DataFileKind::kMesh, "base"), "source:3dobjs/base.obj");
  EXPECT_EQ(where(DataFileKind::kMesh, "base.obj"), "source:3dobjs/base.obj");
  EXPECT_EQ(where(DataFileKind::kMesh, "3dobjs/base"), "source:3dobjs/base.obj");
  write(work_ + "/body.obj");
  EXPECT_EQ(where(DataFileKind::kMesh, "body"), "disk:body.obj");
  EXPECT_EQ(where(DataFileKind::kMesh, "body.obj"), "disk:body.obj");
  EXPECT_EQ(where(DataFileKind::kMesh, work_ + "/body"), "disk:" + work_ + "/body.obj");
  // Any file name as given, whatever its extension (a mesh exported as .OBJ).
  write(work_ + "/body.OBJ");
  EXPECT_EQ(where(DataFileKind::kMesh, "body.OBJ"), "disk:body.OBJ");
}

TEST_F(DataFileTest, TargetEveryPathForm) {
  EXPECT_EQ(where(DataFileKind::kTarget, "a/t"), "source:targets/a/t.target.gz");  // today's form
  EXPECT_EQ(where(DataFileKind::kTarget, "a/u"), "source:targets/a/u.target");
  EXPECT_EQ(where(DataFileKind::kTarget, "a/t.target.gz"), "source:targets/a/t.target.gz");
  EXPECT_EQ(where(DataFileKind::kTarget, "targets/a/u"), "source:targets/a/u.target");
  EXPECT_EQ(where(DataFileKind::kTarget, "targets/a/u.target"), "source:targets/a/u.target");
  EXPECT_EQ(where(DataFileKind::kTarget, data_dir_ + "/targets/a/t"), "disk:" + data_dir_ + "/targets/a/t.target.gz");
  write(work_ + "/smile.target");
  EXPECT_EQ(where(DataFileKind::kTarget, "smile"), "disk:smile.target");
  EXPECT_EQ(where(DataFileKind::kTarget, "./smile.target"), "disk:./smile.target");
  EXPECT_EQ(where(DataFileKind::kTarget, work_ + "/smile.target"), "disk:" + work_ + "/smile.target");
}

TEST_F(DataFileTest, TargetFolderAnywhere) {
  EXPECT_EQ(where(DataFileKind::kTargetFolder, "a"), "source:targets/a");
  EXPECT_EQ(where(DataFileKind::kTargetFolder, "targets/a"), "source:targets/a");
  EXPECT_EQ(where(DataFileKind::kTargetFolder, data_dir_ + "/targets/a"), "disk:" + data_dir_ + "/targets/a");
  write(work_ + "/mine/x.target");
  EXPECT_EQ(where(DataFileKind::kTargetFolder, "mine"), "disk:mine");
  auto folder = find(DataFileKind::kTargetFolder, "a");
  ASSERT_TRUE(folder.ok());
  EXPECT_EQ(listDataFolder(data(), *folder, ".target.gz"), std::vector<std::string>{"t.target.gz"});
  EXPECT_EQ(listDataFolder(data(), *find(DataFileKind::kTargetFolder, "mine"), ".target"), std::vector<std::string>{"x.target"});
}

TEST_F(DataFileTest, PoseEveryPathForm) {
  EXPECT_EQ(where(DataFileKind::kPose, "p/q"), "source:poses/p/q.json");
  EXPECT_EQ(where(DataFileKind::kPose, "p/q.json"), "source:poses/p/q.json");
  EXPECT_EQ(where(DataFileKind::kPose, "poses/p/q"), "source:poses/p/q.json");
  write(work_ + "/my.json");
  EXPECT_EQ(where(DataFileKind::kPose, "my"), "disk:my.json");
  EXPECT_EQ(where(DataFileKind::kPose, "my.json"), "disk:my.json");
  EXPECT_EQ(where(DataFileKind::kPose, work_ + "/my"), "disk:" + work_ + "/my.json");
}

TEST_F(DataFileTest, TwoFilesAreAnErrorNamingBoth) {
  // x.target beside x.target.gz.
  write(data_dir_ + "/targets/a/t.target");
  auto both = find(DataFileKind::kTarget, "a/t");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().code, ErrorCode::kUsage);
  EXPECT_EQ(both.error().message, "a/t: names more than one target file: " + data_dir_ + "/targets/a/t.target.gz and " + data_dir_ +
                                      "/targets/a/t.target (give the path of one)");
  // ./smile.target and <data>/targets/smile.target.
  write(data_dir_ + "/targets/smile.target.gz");
  write(work_ + "/smile.target");
  auto here_and_there = find(DataFileKind::kTarget, "smile");
  ASSERT_FALSE(here_and_there.ok());
  EXPECT_EQ(here_and_there.error().message, "smile: names more than one target file: ./smile.target and " + data_dir_ +
                                                "/targets/smile.target.gz (give the path of one)");
  // The extension chooses, and "./" names the current folder only: no ambiguity.
  EXPECT_EQ(where(DataFileKind::kTarget, "smile.target"), "disk:smile.target");
  EXPECT_EQ(where(DataFileKind::kTarget, "./smile"), "disk:./smile.target");
  EXPECT_EQ(where(DataFileKind::kTargetFolder, "./"), "disk:./");
  // A rig name and a file of the current folder.
  write(work_ + "/r.json");
  auto rig = find(DataFileKind::kRig, "r");
  ASSERT_FALSE(rig.ok());
  EXPECT_EQ(rig.error().message, "r: names more than one rig file: ./r.json and " + data_dir_ + "/rigs/standard/rig.r.json (give the path of one)");
  // A folder here and in the data's targets/.
  write(work_ + "/a/k.target");
  EXPECT_FALSE(find(DataFileKind::kTargetFolder, "a").ok());
}

TEST_F(DataFileTest, OneFileReachedTwoWaysIsOneFile) {
  // The data folder is the current folder: rigs/standard/rig.r.json is found on disk and in the
  // data, and taken as the data's (its rig type is the data's).
  fs::current_path(data_dir_);
  EXPECT_EQ(where(DataFileKind::kRig, "rigs/standard/rig.r.json"), "source:rigs/standard/rig.r.json");
  EXPECT_EQ(where(DataFileKind::kTarget, "targets/a/t"), "source:targets/a/t.target.gz");
  EXPECT_EQ(where(DataFileKind::kMesh, "3dobjs/base"), "source:3dobjs/base.obj");
}

TEST_F(DataFileTest, NotFoundNamesWhatWasLookedFor) {
  auto target = find(DataFileKind::kTarget, "a/none");
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.error().code, ErrorCode::kIo);
  EXPECT_EQ(target.error().message, "a/none: no such target file (looked for a/none{,.target.gz,.target} in ., " + data_dir_ + ", " +
                                        data_dir_ + "/targets)");
  auto pose = find(DataFileKind::kPose, "p/none.json");
  ASSERT_FALSE(pose.ok());
  EXPECT_EQ(pose.error().message, "p/none.json: no such pose file (looked for p/none.json in ., " + data_dir_ + ", " + data_dir_ + "/poses)");
  auto absolute = find(DataFileKind::kMesh, "/nowhere/body");
  ASSERT_FALSE(absolute.ok());
  EXPECT_EQ(absolute.error().message, "/nowhere/body: no such mesh file (looked for /nowhere/body{,.obj})");
  auto here = find(DataFileKind::kTarget, "./a/t");  // the data's targets/a/t.target.gz is not looked at
  ASSERT_FALSE(here.ok());
  EXPECT_EQ(here.error().message, "./a/t: no such target file (looked for ./a/t{,.target.gz,.target})");
  auto folder = find(DataFileKind::kTargetFolder, "none");
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().message, "none: no such target folder (looked for none in ., " + data_dir_ + ", " + data_dir_ + "/targets)");
  // A bare rig or weights name: the names the data has.
  auto rig = find(DataFileKind::kRig, "x");
  ASSERT_FALSE(rig.ok());
  EXPECT_EQ(rig.error().message, data_dir_ + ": no rig named \"x\" (did you mean \"r\"?)");
  auto weights = find(DataFileKind::kWeights, "q");
  ASSERT_FALSE(weights.ok());
  EXPECT_EQ(weights.error().message, data_dir_ + ": no weights named \"q\" (did you mean \"r\"?)");
  EXPECT_EQ(find(DataFileKind::kPose, "").error().message, "pose \"\": an empty name");
}

// Worn assets and body proxies: the same forms, looked up in an assets folder A (MakeHuman's
// layout: one folder per asset, proxies in proxymeshes/), on disk.
class AssetFileTest : public DataFileTest {
 protected:
  void SetUp() override {
    DataFileTest::SetUp();
    assets_ = (root_ / "A").string();
    for (const char* f : {"clothes/shoes/shoes.mhclo", "clothes/shoes/shoes.obj", "hair/pony/pony.mhclo", "proxymeshes/fem/fem.proxy",
                          "eyes/high/high.mhclo", "eyes/materials/brown.mhmat"})
      write(assets_ + "/" + f);
  }
  Expected<DataFile> asset(DataFileKind kind, const std::string& spec, const std::string& dir) const {
    return resolveDataFile(data(), kind, spec, dir);
  }
  // The file `spec` resolves to (always a path on disk), or the error.
  std::string at(DataFileKind kind, const std::string& spec) const { return at(kind, spec, assets_); }
  std::string at(DataFileKind kind, const std::string& spec, const std::string& dir) const {
    auto f = asset(kind, spec, dir);
    if (!f) return "error: " + f.error().message;
    EXPECT_FALSE(f->in_source);
    EXPECT_EQ(f->label, f->path);
    return f->path;
  }
  std::string assets_;
};

TEST_F(AssetFileTest, AssetEveryPathForm) {
  const std::string shoes = assets_ + "/clothes/shoes/shoes.mhclo";
  EXPECT_EQ(at(DataFileKind::kAsset, shoes), shoes);                             // absolute
  EXPECT_EQ(at(DataFileKind::kAsset, assets_ + "/clothes/shoes/shoes"), shoes);  // absolute, no extension
  EXPECT_EQ(at(DataFileKind::kAsset, assets_ + "/clothes/shoes"), shoes);        // absolute folder
  EXPECT_EQ(at(DataFileKind::kAsset, shoes, ""), shoes);                         // no assets folder needed
  EXPECT_EQ(at(DataFileKind::kAsset, "clothes/shoes/shoes.mhclo"), shoes);       // assets-relative
  EXPECT_EQ(at(DataFileKind::kAsset, "clothes/shoes/shoes"), shoes);             // assets-relative, no extension
  EXPECT_EQ(at(DataFileKind::kAsset, "clothes/shoes"), shoes);                   // assets-relative folder
  EXPECT_EQ(at(DataFileKind::kAsset, "clothes/shoes/"), shoes);
  EXPECT_EQ(at(DataFileKind::kAsset, "shoes"), shoes);                           // bare name, anywhere below
  EXPECT_EQ(at(DataFileKind::kAsset, "high"), assets_ + "/eyes/high/high.mhclo");
  // The current folder's: a file, without extension, a folder, "./" (never the assets folder's).
  write(work_ + "/mine/tee/tee.mhclo");
  EXPECT_EQ(at(DataFileKind::kAsset, "mine/tee/tee.mhclo"), "mine/tee/tee.mhclo");
  EXPECT_EQ(at(DataFileKind::kAsset, "mine/tee/tee"), "mine/tee/tee.mhclo");
  EXPECT_EQ(at(DataFileKind::kAsset, "mine/tee"), "mine/tee/tee.mhclo");
  EXPECT_EQ(at(DataFileKind::kAsset, "mine/tee", ""), "mine/tee/tee.mhclo");
  EXPECT_EQ(at(DataFileKind::kAsset, "./mine/tee"), "./mine/tee/tee.mhclo");
  EXPECT_EQ(at(DataFileKind::kAsset, work_ + "/mine/tee"), work_ + "/mine/tee/tee.mhclo");
  // Any file as given, whatever its extension.
  write(work_ + "/odd.txt");
  EXPECT_EQ(at(DataFileKind::kAsset, "odd.txt"), "odd.txt");
}

TEST_F(AssetFileTest, ProxyEveryPathFormAndProxymeshes) {
  const std::string fem = assets_ + "/proxymeshes/fem/fem.proxy";
  EXPECT_EQ(at(DataFileKind::kProxy, fem), fem);
  EXPECT_EQ(at(DataFileKind::kProxy, assets_ + "/proxymeshes/fem/fem"), fem);
  EXPECT_EQ(at(DataFileKind::kProxy, assets_ + "/proxymeshes/fem"), fem);
  EXPECT_EQ(at(DataFileKind::kProxy, "proxymeshes/fem/fem.proxy"), fem);  // assets-relative
  EXPECT_EQ(at(DataFileKind::kProxy, "proxymeshes/fem"), fem);
  EXPECT_EQ(at(DataFileKind::kProxy, "fem/fem.proxy"), fem);  // relative to proxymeshes/
  EXPECT_EQ(at(DataFileKind::kProxy, "fem/fem"), fem);
  EXPECT_EQ(at(DataFileKind::kProxy, "fem"), fem);  // a bare name (and proxymeshes/fem/): one file
  write(work_ + "/p/low.proxy");
  EXPECT_EQ(at(DataFileKind::kProxy, "p/low"), "p/low.proxy");
  EXPECT_EQ(at(DataFileKind::kProxy, "p"), "p/low.proxy");
  // An asset is not a proxy, nor a proxy an asset.
  EXPECT_EQ(at(DataFileKind::kProxy, "shoes"), "error: proxy shoes: no proxy of that name in " + assets_ + " (available: fem)");
  EXPECT_EQ(at(DataFileKind::kAsset, "proxymeshes/fem"),
            "error: asset proxymeshes/fem: the folder " + assets_ + "/proxymeshes/fem holds no .mhclo file");
}

TEST_F(AssetFileTest, TwoFilesAreAnErrorNamingBoth) {
  // A file of the current folder and an asset of that name.
  write(work_ + "/shoes.mhclo");
  auto here_and_there = asset(DataFileKind::kAsset, "shoes", assets_);
  ASSERT_FALSE(here_and_there.ok());
  EXPECT_EQ(here_and_there.error().code, ErrorCode::kUsage);
  EXPECT_EQ(here_and_there.error().message, "asset shoes: names more than one asset file: ./shoes.mhclo and " + assets_ +
                                                "/clothes/shoes/shoes.mhclo (give the path of one)");
  EXPECT_EQ(at(DataFileKind::kAsset, "./shoes"), "./shoes.mhclo");  // "./" chooses
  EXPECT_EQ(at(DataFileKind::kAsset, "clothes/shoes"), assets_ + "/clothes/shoes/shoes.mhclo");
  // Two assets of one name in the assets folder.
  write(assets_ + "/hair/old/pony.mhclo");
  auto two = asset(DataFileKind::kAsset, "pony", assets_);
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message, "asset pony: names more than one asset file: " + assets_ + "/hair/old/pony.mhclo and " + assets_ +
                                     "/hair/pony/pony.mhclo (give the path of one)");
  // A folder and a file beside it.
  write(assets_ + "/proxymeshes/fem.proxy");
  auto folder_and_file = asset(DataFileKind::kProxy, "proxymeshes/fem", assets_);
  ASSERT_FALSE(folder_and_file.ok());
  EXPECT_EQ(folder_and_file.error().message, "proxy proxymeshes/fem: names more than one proxy file: " + assets_ +
                                                 "/proxymeshes/fem/fem.proxy and " + assets_ + "/proxymeshes/fem.proxy (give the path of one)");
  // A folder holding two.
  write(work_ + "/two/a.mhclo");
  write(work_ + "/two/b.mhclo");
  auto folder = asset(DataFileKind::kAsset, "two", assets_);
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().code, ErrorCode::kUsage);
  EXPECT_EQ(folder.error().message, "asset two: the folder two holds 2 asset files; name one (two/a.mhclo, two/b.mhclo)");
  // One file reached two ways (the assets folder is the current folder) is one file.
  fs::current_path(assets_);
  EXPECT_EQ(at(DataFileKind::kAsset, "clothes/shoes"), "clothes/shoes/shoes.mhclo");
  EXPECT_EQ(at(DataFileKind::kAsset, "hair/pony/pony"), "hair/pony/pony.mhclo");
}

TEST_F(AssetFileTest, NotFoundNamesWhatWasLookedFor) {
  EXPECT_EQ(at(DataFileKind::kAsset, "clothes/none"),
            "error: asset clothes/none: no such file or folder (looked for clothes/none{,.mhclo} in ., " + assets_ + ")");
  EXPECT_EQ(at(DataFileKind::kProxy, "x/none.proxy"),
            "error: proxy x/none.proxy: no such file or folder (looked for x/none.proxy in ., " + assets_ + ", " + assets_ + "/proxymeshes)");
  EXPECT_EQ(at(DataFileKind::kAsset, "/nowhere/a"), "error: asset /nowhere/a: no such file or folder (looked for /nowhere/a{,.mhclo})");
  EXPECT_EQ(at(DataFileKind::kAsset, "./shoes"), "error: asset ./shoes: no such file or folder (looked for ./shoes{,.mhclo})");
  // Without an assets folder, only the current folder is looked in; the message says so.
  EXPECT_EQ(at(DataFileKind::kAsset, "shoes", ""), "error: asset shoes: no such file or folder (looked for shoes{,.mhclo} in .; no assets folder)");
  EXPECT_EQ(at(DataFileKind::kProxy, "fem", ""), "error: proxy fem: no such file or folder (looked for fem{,.proxy} in .; no assets folder)");
  // A bare name: the closest names of the kind.
  EXPECT_EQ(at(DataFileKind::kAsset, "shoe"), "error: asset shoe: no asset of that name in " + assets_ + " (did you mean \"shoes\"?)");
  // A folder holding no file of the kind.
  EXPECT_EQ(at(DataFileKind::kAsset, "eyes"), "error: asset eyes: the folder " + assets_ + "/eyes holds no .mhclo file");
  auto empty = asset(DataFileKind::kAsset, "", assets_);
  EXPECT_EQ(empty.error().code, ErrorCode::kUsage);
  EXPECT_EQ(empty.error().message, "asset \"\": an empty name");
}

// A custom weights file (.mhw, the weights JSON format) given for the body binds exactly as the
// rig's own weights file: same groups, same skin.
TEST_F(DataFileTest, MhwWeightsBindAsTheBodyWeights) {
  const DataSource demo = DataSource::builtinDemo();
  auto text = demo.read("rigs/standard/weights.demo.json");
  ASSERT_TRUE(text.ok());
  std::ofstream(work_ + "/custom.mhw") << *text;
  CharacterOptions own, custom;
  custom.weights = "custom";
  auto a = loadCharacter(demo, own);
  auto b = loadCharacter(demo, custom);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->weights_label, "custom.mhw");
  EXPECT_EQ(a->body().skin.offsets, b->body().skin.offsets);
  EXPECT_EQ(a->body().skin.bones, b->body().skin.bones);
  EXPECT_EQ(a->body().skin.weights, b->body().skin.weights);
}

// A body that does not match the vertex groups: a body the user gave is the wrong file; when the
// data's own base.obj and vertex groups disagree, the groups file is named with the group and the
// range that reach beyond the mesh, or with the last vertex they cover.
TEST(BodyVertexCount, TheErrorNamesTheWrongFile) {
  const DataSource data = DataSource::folder("/d");
  VertexGroups groups;
  groups.names = {"Left", "joint-head"};
  groups.ranges = {{{0, 3}, {5, 9}}, {{4, 4}}};
  EXPECT_TRUE(checkBodyVertexCount(data, groups, 10, "/d/3dobjs/base.obj", true).ok());
  const Status mine = checkBodyVertexCount(data, groups, 8, "body.obj", false);
  ASSERT_FALSE(mine.ok());
  EXPECT_EQ(mine.error().code, ErrorCode::kMismatch);
  EXPECT_EQ(mine.error().message, "body.obj: has 8 vertices, but the base mesh of /d has 10 (a shaped body must keep its vertex count and order)");
  const Status beyond = checkBodyVertexCount(data, groups, 8, "/d/3dobjs/base.obj", true);
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().message,
            "/d/mesh_metadata/basemesh_vertex_groups.json: Left[1]: range [5, 9] reaches beyond the 8 vertices of /d/3dobjs/base.obj");
  const Status short_groups = checkBodyVertexCount(data, groups, 12, "/d/3dobjs/base.obj", true);
  ASSERT_FALSE(short_groups.ok());
  EXPECT_EQ(short_groups.error().message,
            "/d/mesh_metadata/basemesh_vertex_groups.json: the groups end at vertex 9, but /d/3dobjs/base.obj has 12 vertices (the groups "
            "cover every vertex of the base mesh)");
}

// The same through loading a character: a data folder whose base.obj (3 vertices) is shorter than
// its vertex groups names the groups file, the group and the range.
TEST_F(DataFileTest, LoadingAFolderWhoseGroupsOverrunItsBaseMeshNamesTheGroupsFile) {
  std::ofstream(data_dir_ + "/3dobjs/base.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  fs::create_directories(data_dir_ + "/mesh_metadata");
  std::ofstream(data_dir_ + "/mesh_metadata/basemesh_vertex_groups.json") << R"({"Left": [[0, 1], [1, 5]]})";
  CharacterOptions options;
  options.rig = test::sourceDir() + "/tests/cli/cases/good.json";
  auto c = loadCharacter(data(), options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, data_dir_ + "/mesh_metadata/basemesh_vertex_groups.json: Left[1]: range [1, 5] reaches beyond the 3 "
                                           "vertices of " + data_dir_ + "/3dobjs/base.obj");
}

TEST(DataFile, BuiltInDemo) {
  const DataSource demo = DataSource::builtinDemo();
  for (const char* spec : {"demo", "rig.demo", "rigs/standard/rig.demo", "rigs/standard/rig.demo.json"}) {
    auto f = resolveDataFile(demo, DataFileKind::kRig, spec);
    ASSERT_TRUE(f.ok()) << spec << ": " << f.error().message;
    EXPECT_TRUE(f->in_source);
    EXPECT_EQ(f->label, "demo:rigs/standard/rig.demo.json");
  }
  EXPECT_EQ(resolveDataFile(demo, DataFileKind::kWeights, "demo")->path, "rigs/standard/weights.demo.json");
  EXPECT_EQ(resolveDataFile(demo, DataFileKind::kMesh, "base")->path, "3dobjs/base.obj");
  EXPECT_TRUE(demo.isFolder("rigs"));
  EXPECT_FALSE(demo.isFolder("rigs/standard/rig.demo.json"));
}

}  // namespace
}  // namespace rigfit
