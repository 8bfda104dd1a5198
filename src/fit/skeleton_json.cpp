// The rigfit skeleton JSON ("rigfit-skeleton/1").
#include "rigfit/fit.hpp"

namespace rigfit {

namespace {

Json matrixJson(const Eigen::Matrix4d& m) {
  Json rows = Json::array();
  for (int r = 0; r < 4; ++r) {
    Json row = Json::array();
    for (int c = 0; c < 4; ++c) row.push(m(r, c));
    rows.push(std::move(row));
  }
  return rows;
}

}  // namespace

Json skeletonToJson(const Skeleton& s, std::span<const Eigen::Matrix4d> pose) {
  Json doc = Json::object();
  doc.set("format", "rigfit-skeleton/1");
  doc.set("units", "m");
  doc.set("up", "+Z");
  Json bones = Json::array();
  bones.items().reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    Json b = Json::object();
    b.set("name", s.names[i]);
    b.set("parent", s.parents[i] == kNoParent ? Json() : Json(s.names[static_cast<std::size_t>(s.parents[i])]));
    b.set("head", Json::vec3(s.heads[i].x(), s.heads[i].y(), s.heads[i].z()));
    b.set("tail", Json::vec3(s.tails[i].x(), s.tails[i].y(), s.tails[i].z()));
    b.set("roll", s.rolls[i]);
    b.set("length", s.lengths[i]);
    b.set("matrix", matrixJson(s.rest[i]));
    if (pose.size() == s.size()) b.set("pose_matrix", matrixJson(pose[i]));
    if (i < s.subrig_of.size() && !s.subrig_of[i].empty()) b.set("subrig", s.subrig_of[i]);
    bones.push(std::move(b));
  }
  doc.set("bones", std::move(bones));
  return doc;
}

std::string writeSkeletonJson(const Skeleton& s, std::span<const Eigen::Matrix4d> pose) {
  JsonWriteOptions o;
  o.indent = 2;
  o.sort_keys = false;
  o.inline_numbers = true;
  o.final_newline = true;
  return writeJson(skeletonToJson(s, pose), o);
}

}  // namespace rigfit
