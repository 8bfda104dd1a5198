#include <array>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "rigfit/batch.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

Expected<BatchEntry> parseOne(std::string_view text, std::size_t number = 7) {
  return parseBatchEntry(ManifestLine{.number = number, .offset = 100, .text = text}, "m.jsonl");
}

std::string errorOf(std::string_view text) {
  auto e = parseOne(text);
  EXPECT_FALSE(e.ok()) << text;
  return e.ok() ? std::string() : e.error().message;
}

TEST(BatchManifest, ParsesEveryKey) {
  auto e = parseOne(
      R"({"name": "hero-1", "format": "gltf", "rig": "game_engine", "mesh": "body.obj", "weights": "game_engine", )"
      R"("allow_fallback": true, "shape": {"macros": {"gender": 1, "age": 0.25, "african": 0.5}, )"
      R"("modifiers": {"nose/nose-scale-horiz-decr-incr": -0.5}, "targets": {"armslegs/r-foot-scale-incr": 0.3}, "ground": true}, )"
      R"("pose": {"file": "game_engine_fk/t-pose.json", "rotate": {"upperarm_l": [0, 0, 40.5]}, "rotate_quat": {"head": [1, 0.1, 0, 0]}}, )"
      R"("assets": ["high-poly", "clothes/shoes01", "/abs/tongue01.mhclo"], "proxy": "female_generic", )"
      R"("export": {"influences": 8, "quantize": true, "weight_bits": 16, "keep_helpers": true, "keep_hidden": true, "deform_only": true, "no_bake": true, )"
      R"("morphs": ["expression/units/caucasian/mouth-open=jawOpen", "nose/nose-base-up"], "base_color": [0.9, 0.7, 0.6]}})");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->line, 7u);
  EXPECT_EQ(e->name, "hero-1");
  EXPECT_EQ(e->output.format, ExportFormat::kGltf);
  EXPECT_EQ(e->output.bin_name, "hero-1.bin");
  EXPECT_EQ(e->character.rig, "game_engine");
  EXPECT_EQ(e->character.mesh, "body.obj");
  EXPECT_EQ(e->character.weights, "game_engine");
  EXPECT_TRUE(e->character.fit.allow_fallback);
  const ShapeRequest& s = e->character.shape;
  EXPECT_TRUE(s.use_macros);
  EXPECT_EQ(s.macros.gender, 1.0);
  EXPECT_EQ(s.macros.age, 0.25);
  EXPECT_EQ(s.macros.african, 0.5);
  EXPECT_EQ(s.macros.asian, 0.33);  // MPFB's default for what the line leaves out
  EXPECT_EQ(s.macros.muscle, 0.5);
  ASSERT_EQ(s.modifiers.size(), 1u);
  EXPECT_EQ(s.modifiers[0], (std::pair<std::string, double>{"nose/nose-scale-horiz-decr-incr", -0.5}));
  ASSERT_EQ(s.targets.size(), 1u);
  EXPECT_EQ(s.targets[0], (std::pair<std::string, double>{"armslegs/r-foot-scale-incr", 0.3}));
  EXPECT_TRUE(s.ground);
  EXPECT_EQ(e->pose.pose_file, "game_engine_fk/t-pose.json");
  using Kind = BoneRotation::Kind;
  EXPECT_EQ(e->pose.rotations, (std::vector<BoneRotation>{{"upperarm_l", Kind::kEulerXyzDegrees, {0, 0, 40.5, 0}},
                                                          {"head", Kind::kQuaternion, {1, 0.1, 0, 0}}}));
  EXPECT_EQ(e->output.influences, 8);
  EXPECT_TRUE(e->output.quantize);
  EXPECT_EQ(e->output.weight_bits, 16);
  EXPECT_TRUE(e->output.keep_helpers);
  EXPECT_TRUE(e->output.keep_hidden);
  EXPECT_TRUE(e->output.deform_only);
  EXPECT_TRUE(e->output.keep_bendy_bones);
  EXPECT_EQ(e->assets, (std::vector<std::string>{"high-poly", "clothes/shoes01", "/abs/tongue01.mhclo"}));
  EXPECT_EQ(e->proxy, "female_generic");
  EXPECT_EQ(e->output.base_color, (std::array<float, 4>{0.9f, 0.7f, 0.6f, 1.0f}));
  EXPECT_EQ(e->output.morphs, (std::vector<MorphSpec>{{"expression/units/caucasian/mouth-open", "jawOpen", false},
                                                      {"nose/nose-base-up", "nose-base-up", false}}));
}

TEST(BatchManifest, Defaults) {
  auto e = parseOne(R"({"name": "a", "rig": "demo"})");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->output.format, ExportFormat::kGlb);
  EXPECT_TRUE(e->output.bin_name.empty());
  EXPECT_EQ(e->output.influences, 4);
  EXPECT_FALSE(e->output.quantize);
  EXPECT_FALSE(e->character.shape.use_macros);
  EXPECT_FALSE(e->character.shape.ground);
  EXPECT_FALSE(e->pose.any());
  EXPECT_TRUE(e->character.weights.empty());
  EXPECT_TRUE(e->assets.empty());
  EXPECT_TRUE(e->proxy.empty());
  EXPECT_FALSE(e->output.keep_hidden);
  EXPECT_FALSE(e->output.keep_bendy_bones);
  // {} is MPFB's new human: every macro at its default.
  auto d = parseOne(R"({"name": "a", "rig": "demo", "shape": {"macros": {}}})");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->character.shape.use_macros);
  EXPECT_EQ(d->character.shape.macros.gender, 0.5);
  // An embedded .gltf has no .bin.
  auto g = parseOne(R"({"name": "a", "rig": "demo", "format": "gltf", "export": {"embed": true}})");
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->output.bin_name.empty());
}

TEST(BatchManifest, SyntaxErrorsNameLineColumnAndFileByte) {
  // Line 7 starts at byte 100 of the file; columns are 1-based, bytes 0-based.
  EXPECT_EQ(errorOf(R"({"name": "a" "rig": "demo"})"), "m.jsonl: line 7, column 14 (byte 113): expected ',' or '}'");
  EXPECT_EQ(errorOf(R"({"name": "a", "rig": "demo")"), "m.jsonl: line 7, column 28 (byte 127): unexpected end of file");
  EXPECT_EQ(errorOf(R"({"name": "a", "name": "b", "rig": "demo"})"), "m.jsonl: line 7: $: duplicate key \"name\"");
}

TEST(BatchManifest, EachSchemaError) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([1, 2])", "m.jsonl: line 7: $: expected an object, found an array"},
      {R"({"rig": "demo"})", "m.jsonl: line 7: name: missing (required)"},
      {R"({"name": "a"})", "m.jsonl: line 7: rig: missing (required)"},
      {R"({"name": 3, "rig": "demo"})", "m.jsonl: line 7: name: expected a string, found an integer"},
      {R"({"name": "", "rig": "demo"})", "m.jsonl: line 7: name: must not be empty"},
      {R"({"name": "../x", "rig": "demo"})",
       "m.jsonl: line 7: name: \"../x\" is not a file name (letters, digits, '.', '_' and '-'; not starting with '.' or '-'; at most 200)"},
      {R"({"name": "a", "rig": "demo", "colour": 1})",
       "m.jsonl: line 7: colour: unknown key (expected one of: name, format, rig, mesh, weights, allow_fallback, assets, proxy, shape, pose, export)"},
      {R"({"name": "a", "rig": "demo", "format": "fbx"})", "m.jsonl: line 7: format: \"fbx\" is not one of glb, gltf, g4tf, g4b"},
      {R"({"name": "a", "rig": "demo", "weights": "none"})", "m.jsonl: line 7: weights: an exported character needs weights"},
      {R"({"name": "a", "rig": "demo", "allow_fallback": 1})", "m.jsonl: line 7: allow_fallback: expected a boolean, found an integer"},
      {R"({"name": "a", "rig": "demo", "shape": []})", "m.jsonl: line 7: shape: expected an object, found an array"},
      {R"({"name": "a", "rig": "demo", "shape": {"macro": {}}})",
       "m.jsonl: line 7: shape.macro: unknown key (expected one of: macros, modifiers, targets, ground)"},
      {R"({"name": "a", "rig": "demo", "shape": {"macros": {"girth": 0.5}}})",
       "m.jsonl: line 7: shape.macros.girth: unknown macro (available: gender, age, muscle, weight, proportions, height, "
       "cupsize, firmness, african, asian, caucasian)"},
      {R"({"name": "a", "rig": "demo", "shape": {"macros": {"gendre": 0.5}}})",
       "m.jsonl: line 7: shape.macros.gendre: unknown macro (did you mean \"gender\"?)"},
      {R"({"name": "a", "rig": "demo", "shape": {"macros": {"gender": 1.5}}})", "m.jsonl: line 7: shape.macros.gender: must be from 0 to 1"},
      {R"({"name": "a", "rig": "demo", "shape": {"macros": {"gender": "1"}}})",
       "m.jsonl: line 7: shape.macros.gender: expected a number, found a string"},
      {R"({"name": "a", "rig": "demo", "shape": {"modifiers": {"nose/x": -1.5}}})",
       "m.jsonl: line 7: shape.modifiers[\"nose/x\"]: must be from -1 to 1"},
      {R"({"name": "a", "rig": "demo", "shape": {"targets": {"nose/x": -0.1}}})",
       "m.jsonl: line 7: shape.targets[\"nose/x\"]: must be from 0 to 1"},
      {R"({"name": "a", "rig": "demo", "shape": {"ground": "yes"}})", "m.jsonl: line 7: shape.ground: expected a boolean, found a string"},
      {R"({"name": "a", "rig": "demo", "pose": {"bones": {}}})",
       "m.jsonl: line 7: pose.bones: unknown key (expected one of: file, rotate, rotate_quat)"},
      {R"({"name": "a", "rig": "demo", "pose": {"rotate": {"head": [1, 2]}}})",
       "m.jsonl: line 7: pose.rotate.head: expected an array of 3 numbers"},
      {R"({"name": "a", "rig": "demo", "pose": {"rotate_quat": {"head": [1, 0, "0", 0]}}})",
       "m.jsonl: line 7: pose.rotate_quat.head[2]: expected a number"},
      {R"({"name": "a", "rig": "demo", "export": {"influence": 4}})",
       "m.jsonl: line 7: export.influence: unknown key (expected one of: influences, quantize, weight_bits, keep_helpers, keep_hidden, deform_only, compress, embed, morphs, "
       "base_color, no_bake)"},
      {R"({"name": "a", "rig": "demo", "export": {"base_color": [1, 0.5]}})",
       "m.jsonl: line 7: export.base_color: expected an array of 3 or 4 numbers from 0 to 1"},
      {R"({"name": "a", "rig": "demo", "export": {"base_color": [1, 0.5, 1.5]}})",
       "m.jsonl: line 7: export.base_color[2]: must be from 0 to 1"},
      {R"({"name": "a", "rig": "demo", "export": {"morphs": "nose/nose-base-up"}})",
       "m.jsonl: line 7: export.morphs: expected an array of \"PATH[=NAME]\" strings, found a string"},
      {R"({"name": "a", "rig": "demo", "export": {"morphs": ["nose/nose-base-up", 3]}})",
       "m.jsonl: line 7: export.morphs[1]: expected a string, found an integer"},
      {R"({"name": "a", "rig": "demo", "assets": "eyebrow001"})",
       "m.jsonl: line 7: assets: expected an array of asset paths or names, found a string"},
      {R"({"name": "a", "rig": "demo", "assets": ["eyebrow001", 3]})", "m.jsonl: line 7: assets[1]: expected a string, found an integer"},
      {R"({"name": "a", "rig": "demo", "assets": [""]})", "m.jsonl: line 7: assets[0]: must not be empty"},
      {R"({"name": "a", "rig": "demo", "proxy": ["female_generic"]})", "m.jsonl: line 7: proxy: expected a string, found an array"},
      {R"({"name": "a", "rig": "demo", "export": {"keep_hidden": 1}})", "m.jsonl: line 7: export.keep_hidden: expected a boolean, found an integer"},
      {R"({"name": "a", "rig": "demo", "export": {"influences": 5}})", "m.jsonl: line 7: export.influences: must be 4 or 8"},
      {R"({"name": "a", "rig": "demo", "export": {"weight_bits": 16}})", "m.jsonl: line 7: export.weight_bits: only with \"quantize\": true"},
      {R"({"name": "a", "rig": "demo", "export": {"compress": true}})", "m.jsonl: line 7: export.compress: only for format \"g4b\""},
      {R"({"name": "a", "rig": "demo", "export": {"embed": true}})", "m.jsonl: line 7: export.embed: only for format \"gltf\""},
      {R"({"name": "a", "rig": "demo", "format": "g4b", "export": {"influences": 8}})",
       "m.jsonl: line 7: export: influences, quantize, weight_bits and base_color are glTF options; format is \"g4b\""},
  };
  for (const auto& [text, message] : cases) EXPECT_EQ(errorOf(text), message) << text;
}

TEST(BatchManifest, LinesAndShards) {
  const std::string text = "{\"a\":1}\r\n\n  \t\n{\"b\":2}\n{\"c\":3}";
  const auto lines = manifestLines(text);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].number, 1u);
  EXPECT_EQ(lines[0].text, "{\"a\":1}");  // CR dropped
  EXPECT_EQ(lines[1].number, 4u);
  EXPECT_EQ(lines[1].offset, 14u);
  EXPECT_EQ(lines[2].number, 5u);
  EXPECT_EQ(lines[2].text, "{\"c\":3}");  // no final newline

  auto s = parseShard("2/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 4u);
  EXPECT_TRUE(s->contains(3));   // index 2
  EXPECT_TRUE(s->contains(7));   // index 6
  EXPECT_FALSE(s->contains(1));
  for (const char* bad : {"4/4", "1/0", "1", "a/2", "-1/2", "1/2/3", "/2", "1/"}) EXPECT_FALSE(parseShard(bad).ok()) << bad;
  EXPECT_EQ(parseShard("x").error().message, "shard \"x\": expected I/N with 0 <= I < N (e.g. 0/4)");
  // Every line is in exactly one shard.
  for (std::size_t line = 1; line <= 50; ++line) {
    int in = 0;
    for (std::size_t i = 0; i < 3; ++i) in += Shard{i, 3}.contains(line);
    EXPECT_EQ(in, 1) << line;
  }
}

TEST(BatchCaches, WeightsParsedOnceErrorsNotKept) {
  WeightsCache cache;
  int calls = 0;
  auto parse = [&]() -> Expected<WeightsFile> {
    ++calls;
    return parseWeights(R"({"weights": {"bone": [[0, 0.5], [2, 1.0]]}})", "w.json", 3);
  };
  auto a = cache.get("w.json", 3, parse);
  auto b = cache.get("w.json", 3, parse);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a->get(), b->get());  // one shared file
  auto other = cache.get("w.json", 4, parse);  // another vertex count is another entry
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(calls, 2);
  int failures = 0;
  auto bad = [&]() -> Expected<WeightsFile> {
    ++failures;
    return makeError(ErrorCode::kIo, "x.json: no such file");
  };
  EXPECT_FALSE(cache.get("x.json", 3, bad).ok());
  EXPECT_EQ(cache.get("x.json", 3, bad).error().message, "x.json: no such file");
  EXPECT_EQ(failures, 2);
}

// Worn assets: one load per file and rig type, shared; errors not kept.
TEST(BatchCaches, WornAssetsLoadedOncePerRigType) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string path = test::sharedData() + "/../assets/eyebrows/eyebrow001/eyebrow001.mhclo";
  WornAssetCache cache;
  auto a = cache.get(path, "game_engine");
  auto b = cache.get(path, "game_engine");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get());
  auto other = cache.get(path, "default");  // another rig type reads other custom weights
  ASSERT_TRUE(other.ok());
  EXPECT_NE(a->get(), other->get());
  EXPECT_FALSE(cache.get(path + ".missing", "game_engine").ok());
  EXPECT_FALSE(cache.get(path + ".missing", "game_engine").ok());
}

// The built-in demo: three good characters in three formats, a line that does not parse, a line
// whose rig does not exist and a repeated name; the others are written, the failures recorded.
TEST(BatchRun, DemoManifestWithFailures) {
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_batch_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string manifest =
      "{\"name\": \"a\", \"rig\": \"demo\"}\n"
      "{\"name\": \"b\", \"rig\": \"demo\", \"format\": \"g4b\", \"export\": {\"compress\": true}}\n"
      "not json\n"
      "\n"
      "{\"name\": \"c\", \"rig\": \"nope\"}\n"
      "{\"name\": \"d\", \"rig\": \"demo\", \"format\": \"gltf\", \"pose\": {\"rotate\": {\"head\": [0, 0, 10]}}}\n"
      "{\"name\": \"a\", \"rig\": \"demo\"}\n";
  std::vector<std::size_t> seen;
  BatchOptions options{.out_dir = dir.string(), .jobs = 2};
  options.on_line = [&](const BatchLineResult& r, const BatchProgress& p) {
    seen.push_back(r.line);
    EXPECT_EQ(p.done, seen.size());
    EXPECT_EQ(p.total, 6u);
  };
  auto result = runBatch(DataSource::builtinDemo(), "m.jsonl", manifest, options);
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()), (std::set<std::size_t>{1, 2, 3, 5, 6, 7}));
  ASSERT_EQ(result.lines.size(), 6u);
  EXPECT_EQ(result.ok, 3u);
  EXPECT_EQ(result.failed, 3u);
  EXPECT_EQ(result.jobs, 2u);
  const auto& l = result.lines;
  EXPECT_TRUE(l[0].ok);
  EXPECT_EQ(l[0].outputs, std::vector<std::string>{(dir / "a.glb").string()});
  EXPECT_TRUE(l[1].ok);
  EXPECT_FALSE(l[2].ok);
  EXPECT_EQ(l[2].error.rfind("m.jsonl: line 3, column 1 (byte ", 0), 0u) << l[2].error;
  EXPECT_FALSE(l[3].ok);
  EXPECT_EQ(l[3].error, "m.jsonl: line 5: built-in demo: no rig named \"nope\" (available: demo)");
  EXPECT_TRUE(l[4].ok);
  EXPECT_EQ(l[4].outputs, (std::vector<std::string>{(dir / "d.gltf").string(), (dir / "d.bin").string()}));
  EXPECT_FALSE(l[5].ok);
  EXPECT_EQ(l[5].error, "m.jsonl: line 7: name: \"a\" is already the name of line 1");
  std::set<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files.insert(f.path().filename().string());
  EXPECT_EQ(files, (std::set<std::string>{"a.glb", "b.g4b", "d.gltf", "d.bin"}));  // nothing partial, no temporaries

  const Json summary = batchSummaryJson(result);
  EXPECT_EQ(summary.find("totals")->find("ok")->asInt(), 3);
  EXPECT_EQ(summary.find("totals")->find("failed")->asInt(), 3);
  EXPECT_EQ(summary.find("totals")->find("manifest_lines")->asInt(), 6);
  const Json& lines = *summary.find("lines");
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines.items()[0].find("status")->asString(), "ok");
  EXPECT_EQ(lines.items()[0].find("report")->find("rig")->asString(), "demo");
  EXPECT_EQ(lines.items()[3].find("status")->asString(), "failed");
  EXPECT_EQ(lines.items()[3].find("error")->asString(), l[3].error);

  // Shard 1/2 takes the lines with an odd 0-based index: 2 and 6 (4 is blank).
  std::filesystem::remove_all(dir);
  auto odd = runBatch(DataSource::builtinDemo(), "m.jsonl", manifest, {.out_dir = dir.string(), .jobs = 1, .shard = {1, 2}});
  ASSERT_EQ(odd.lines.size(), 2u);
  EXPECT_EQ(odd.lines[0].line, 2u);
  EXPECT_EQ(odd.lines[1].line, 6u);
  EXPECT_EQ(odd.ok, 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rigfit
