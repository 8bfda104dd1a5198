// Images for materials: format and size from the file's header (stb_image reads only the header).
#include <stb_image.h>

#include "rigfit/export_model.hpp"

namespace rigfit {

Expected<ExportImage> exportImage(std::shared_ptr<const std::string> bytes, std::string_view label) {
  const std::string where(label);
  if (!bytes || bytes->empty()) return makeError(ErrorCode::kIo, where + ": empty image file");
  const std::string& b = *bytes;
  ExportImage out;
  if (b.size() >= 8 && b.compare(0, 8, "\x89PNG\r\n\x1a\n", 8) == 0) out.mime_type = "image/png";
  else if (b.size() >= 3 && b.compare(0, 3, "\xff\xd8\xff", 3) == 0) out.mime_type = "image/jpeg";
  else return makeError(ErrorCode::kUnsupported, where + ": not a PNG or JPEG image (glTF readers need one of those)");
  if (b.size() > static_cast<std::size_t>(INT32_MAX)) return makeError(ErrorCode::kUnsupported, where + ": image file over 2 GiB");
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(b.data()), static_cast<int>(b.size()), &w, &h, &channels) || w <= 0 || h <= 0)
    return makeError(ErrorCode::kSyntax, where + ": unreadable image header (" + out.mime_type + ")");
  out.width = w;
  out.height = h;
  const std::string_view path = label;
  const std::size_t slash = path.find_last_of('/');
  out.file_name = std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
  const std::size_t dot = out.file_name.find_last_of('.');
  out.name = dot == std::string::npos || dot == 0 ? out.file_name : out.file_name.substr(0, dot);
  out.bytes = std::move(bytes);
  return out;
}

}  // namespace rigfit
