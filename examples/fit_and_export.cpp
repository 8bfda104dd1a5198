// A short rigfit program: load a rig, fit it to a shaped body, export the rigged character as .glb.
//
//   fit_and_export OUT.glb [MPFB_DATA_DIR [RIG]]
//
// Without a data folder it uses the demo character built into rigfit (rig "demo").
#include <cstdio>
#include <string>

#include <rigfit/character.hpp>
#include <rigfit/character_export.hpp>
#include <rigfit/version.hpp>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.glb [MPFB_DATA_DIR [RIG]]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const rigfit::DataSource data = argc > 2 ? rigfit::DataSource::folder(argv[2]) : rigfit::DataSource::builtinDemo();

  // The body: the data's base mesh with MakeHuman's macros (a muscular, fairly tall man), grounded.
  rigfit::CharacterOptions options;
  options.rig = argc > 3 ? argv[3] : (data.isBuiltin() ? "demo" : "game_engine");
  if (!data.isBuiltin()) {
    options.shape.use_macros = true;
    options.shape.macros.gender = 1.0;
    options.shape.macros.muscle = 0.8;
    options.shape.macros.height = 0.7;
    options.shape.ground = true;
  }

  // Shape the body, fit the rig to it as MPFB does, and bind the rig's weights.
  rigfit::Expected<rigfit::Character> character = rigfit::loadCharacter(data, options);
  if (!character) {
    std::fprintf(stderr, "error: %s\n", character.error().message.c_str());
    return 1;
  }
  const rigfit::Skeleton& skeleton = character->fit.skeleton;
  std::printf("rigfit %s: fitted %zu bones of %s to %zu vertices\n", RIGFIT_VERSION_STRING, skeleton.names.size(),
              character->rig_name.c_str(), character->body().mesh.vertexCount());

  // The character as glTF 2.0 bytes (options are typed values; the format follows the file name),
  // then written atomically.
  const rigfit::CharacterExportOptions export_options{
      .format = rigfit::exportFormatFromExtension(out).value_or(rigfit::ExportFormat::kGlb),
      .base_color = {0.8f, 0.6f, 0.5f, 1.0f}};
  rigfit::Expected<rigfit::CharacterExport> files = rigfit::exportCharacter(data, *character, {}, export_options);
  if (!files) {
    std::fprintf(stderr, "error: %s\n", files.error().message.c_str());
    return 1;
  }
  if (rigfit::Status st = rigfit::writeCharacterExport(*files, out, {}); !st) {
    std::fprintf(stderr, "error: %s\n", st.error().message.c_str());
    return 1;
  }
  const rigfit::ExportReport& report = files->report;
  std::printf("wrote %s: %zu joints, %zu vertices, %zu bytes\n", out.c_str(), report.joints, report.vertices, report.bytes);
  return 0;
}
