// The `.mhmat` reader (MakeHuman's material format, as MakeHuman and MPFB's MakeSkin read it: one
// `key value` per line, keys case-insensitive, `#` and `//` comments), and its glTF-like material.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "asset/asset_text.hpp"
#include "core/file_io.hpp"
#include "rigfit/asset.hpp"

namespace rigfit {

const AssetTexture* AssetMaterial::texture(std::string_view key) const {
  for (const auto& t : textures)
    if (t.key == key) return &t;
  return nullptr;
}

namespace {

using detail::LineReader;
using detail::parsePythonFloat;
using detail::quoteToken;

enum class Kind { kString, kColor, kFloat, kBool, kTexture, kShader };

struct KeyInfo {
  const char* lower;  // the key, lower case
  Kind kind;
  const char* canonical;  // textures: the canonical key (aliases map to it)
};

// The MHMAT keys of MakeHuman 1.x and MPFB's MakeSkin, with MPFB's texture aliases.
constexpr KeyInfo kKeys[] = {
    {"name", Kind::kString, nullptr}, {"description", Kind::kString, nullptr}, {"uuid", Kind::kString, nullptr},
    {"license", Kind::kString, nullptr}, {"author", Kind::kString, nullptr}, {"homepage", Kind::kString, nullptr},
    {"tag", Kind::kString, nullptr},
    {"diffusecolor", Kind::kColor, nullptr}, {"specularcolor", Kind::kColor, nullptr}, {"emissivecolor", Kind::kColor, nullptr},
    {"ambientcolor", Kind::kColor, nullptr}, {"viewportcolor", Kind::kColor, nullptr},
    {"diffusetexture", Kind::kTexture, "diffuseTexture"}, {"diffusemaptexture", Kind::kTexture, "diffuseTexture"},
    {"albedotexture", Kind::kTexture, "diffuseTexture"}, {"albedomaptexture", Kind::kTexture, "diffuseTexture"},
    {"basecolortexture", Kind::kTexture, "diffuseTexture"}, {"basecolormaptexture", Kind::kTexture, "diffuseTexture"},
    {"bumpmaptexture", Kind::kTexture, "bumpmapTexture"}, {"bumptexture", Kind::kTexture, "bumpmapTexture"},
    {"normalmaptexture", Kind::kTexture, "normalmapTexture"},
    {"displacementmaptexture", Kind::kTexture, "displacementmapTexture"},
    {"specularmaptexture", Kind::kTexture, "specularmapTexture"},
    {"transmissionmaptexture", Kind::kTexture, "transmissionmapTexture"},
    {"opacitymaptexture", Kind::kTexture, "opacitymapTexture"}, {"opacitytexture", Kind::kTexture, "opacitymapTexture"},
    {"transparencymaptexture", Kind::kTexture, "transparencymapTexture"},
    {"roughnessmaptexture", Kind::kTexture, "roughnessmapTexture"}, {"metallicmaptexture", Kind::kTexture, "metallicmapTexture"},
    {"aomaptexture", Kind::kTexture, "aomapTexture"},
    {"emissioncolormaptexture", Kind::kTexture, "emissionColorMapTexture"},
    {"emissivetexture", Kind::kTexture, "emissionColorMapTexture"}, {"emissiontexture", Kind::kTexture, "emissionColorMapTexture"},
    {"emissionstrengthmaptexture", Kind::kTexture, "emissionStrengthMapTexture"},
    {"subsurfacecolormaptexture", Kind::kTexture, "subsurfaceColorMapTexture"},
    {"ssstexture", Kind::kTexture, "subsurfaceColorMapTexture"}, {"sssmaptexture", Kind::kTexture, "subsurfaceColorMapTexture"},
    {"subsurfacestrengthmaptexture", Kind::kTexture, "subsurfaceStrengthMapTexture"},
    {"diffuseintensity", Kind::kFloat, nullptr}, {"bumpmapintensity", Kind::kFloat, nullptr},
    {"normalmapintensity", Kind::kFloat, nullptr}, {"displacementmapintensity", Kind::kFloat, nullptr},
    {"specularmapintensity", Kind::kFloat, nullptr}, {"opacitymapintensity", Kind::kFloat, nullptr},
    {"transparencymapintensity", Kind::kFloat, nullptr}, {"aomapintensity", Kind::kFloat, nullptr},
    {"emissionintensity", Kind::kFloat, nullptr}, {"subsurfaceintensity", Kind::kFloat, nullptr},
    {"sssenabled", Kind::kBool, nullptr}, {"sssrscale", Kind::kFloat, nullptr}, {"sssgscale", Kind::kFloat, nullptr},
    {"sssbscale", Kind::kFloat, nullptr},
    {"metallic", Kind::kFloat, nullptr}, {"roughness", Kind::kFloat, nullptr}, {"shininess", Kind::kFloat, nullptr},
    {"opacity", Kind::kFloat, nullptr}, {"ior", Kind::kFloat, nullptr}, {"translucency", Kind::kFloat, nullptr},
    {"viewportalpha", Kind::kFloat, nullptr},
    {"litspheretexture", Kind::kString, nullptr}, {"blendmaterial", Kind::kString, nullptr},
    {"shadeless", Kind::kBool, nullptr}, {"wireframe", Kind::kBool, nullptr}, {"transparent", Kind::kBool, nullptr},
    {"alphatocoverage", Kind::kBool, nullptr}, {"backfacecull", Kind::kBool, nullptr}, {"depthless", Kind::kBool, nullptr},
    {"castshadows", Kind::kBool, nullptr}, {"receiveshadows", Kind::kBool, nullptr}, {"autoblendskin", Kind::kBool, nullptr},
    {"shader", Kind::kShader, nullptr}, {"shaderparam", Kind::kShader, nullptr}, {"shaderconfig", Kind::kShader, nullptr},
    {"shaderdefine", Kind::kShader, nullptr}, {"shader_config", Kind::kShader, nullptr},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The line after its first token, without surrounding whitespace.
std::string_view restOfLine(std::string_view line, std::string_view first) {
  std::size_t i = static_cast<std::size_t>(first.data() - line.data()) + first.size();
  std::size_t e = line.size();
  while (i < e && detail::isPythonSpace(line[i])) ++i;
  while (e > i && detail::isPythonSpace(line[e - 1])) --e;
  return line.substr(i, e - i);
}

}  // namespace

Expected<AssetMaterial> parseMaterial(std::string_view text, std::string_view label, std::string_view folder,
                                      std::vector<std::string>* warnings) {
  AssetMaterial m;
  m.label = std::string(label);
  LineReader lines(text);
  auto fail = [&](const std::string& what) {
    return makeError(ErrorCode::kSyntax, m.label + ": line " + std::to_string(lines.lineNumber()) + ": " + what);
  };
  while (lines.next()) {
    const auto& w = lines.tokens();
    if (w.empty() || w[0][0] == '#' || w[0].substr(0, 2) == "//") continue;
    const std::string key = lower(w[0]);
    const KeyInfo* info = nullptr;
    for (const KeyInfo& k : kKeys)
      if (key == k.lower) info = &k;
    if (!info) {
      if (warnings) warnings->push_back(m.label + ": line " + std::to_string(lines.lineNumber()) + ": unknown key " + quoteToken(w[0]));
      continue;
    }
    const std::string_view value = restOfLine(lines.line(), w[0]);
    if (value.empty() && info->kind != Kind::kString) return fail(std::string(w[0]) + " needs a value");
    switch (info->kind) {
      case Kind::kString:
        if (key == "name") m.name = std::string(value);
        break;
      case Kind::kColor: {
        if (w.size() < 4) return fail(std::string(w[0]) + " needs 3 numbers (R G B)");
        std::array<double, 3> c{};
        for (int k = 0; k < 3; ++k)
          if (!parsePythonFloat(w[1 + k], c[k])) return fail(std::string(w[0]) + ": " + quoteToken(w[1 + k]) + " is not a finite number");
        if (key == "diffusecolor") m.diffuse_color = c;
        break;
      }
      case Kind::kFloat: {
        double v = 0.0;
        if (!parsePythonFloat(w[1], v)) return fail(std::string(w[0]) + ": " + quoteToken(w[1]) + " is not a finite number");
        if (key == "opacity") m.opacity = v;
        else if (key == "roughness") m.roughness = v;
        else if (key == "metallic") m.metallic = v;
        break;
      }
      case Kind::kBool: {
        const std::string v = lower(w[1]);
        const bool b = v == "true" || v == "t" || v == "1";  // anything else is false
        if (key == "transparent") m.transparent = b;
        else if (key == "alphatocoverage") m.alpha_to_coverage = b;
        else if (key == "backfacecull") m.backface_cull = b;
        break;
      }
      case Kind::kTexture: {
        AssetTexture t;
        t.key = info->canonical;
        t.written = std::string(value);
        std::string rel = t.written;
        std::replace(rel.begin(), rel.end(), '\\', '/');
        t.path = (std::filesystem::path(folder) / rel).lexically_normal().generic_string();
        auto it = std::find_if(m.textures.begin(), m.textures.end(), [&](const AssetTexture& x) { return x.key == t.key; });
        if (it != m.textures.end()) *it = std::move(t);
        else m.textures.push_back(std::move(t));
        break;
      }
      case Kind::kShader: break;  // MakeHuman's viewport shaders: no meaning outside it
    }
  }
  return m;
}

Expected<AssetMaterial> readMaterial(const std::string& path, std::vector<std::string>* warnings) {
  auto text = loadFile(path);
  if (!text) return text.error();
  const std::string folder = std::filesystem::path(path).parent_path().generic_string();
  auto m = parseMaterial(text->text(), path, folder, warnings);
  if (!m) return m.error();
  for (auto& t : m->textures) {
    std::error_code ec;
    t.exists = std::filesystem::is_regular_file(t.path, ec);
    if (!t.exists && warnings) warnings->push_back(path + ": " + t.key + ": texture file " + t.path + " is missing");
  }
  return m;
}

ExportMaterial exportMaterial(const AssetMaterial& material) {
  ExportMaterial e;
  e.name = material.name.empty() ? std::string("Material") : material.name;
  const auto unit = [](double v) { return static_cast<float>(std::clamp(v, 0.0, 1.0)); };
  e.base_color = {unit(material.diffuse_color[0]), unit(material.diffuse_color[1]), unit(material.diffuse_color[2]),
                  unit(material.opacity)};
  e.roughness = std::clamp(material.roughness.value_or(0.7), 0.0, 1.0);
  e.metallic = std::clamp(material.metallic.value_or(0.0), 0.0, 1.0);
  if (material.transparent) {
    e.alpha_mode = material.alpha_to_coverage ? AlphaMode::kMask : AlphaMode::kBlend;
    e.alpha_cutoff = 0.5;
  } else if (material.opacity < 1.0) {
    e.alpha_mode = AlphaMode::kBlend;
  }
  e.double_sided = !material.backface_cull;
  return e;
}

}  // namespace rigfit
