// Shared test helpers. Tests that use ../shared/data FAIL (never skip) when it is missing.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/file_io.hpp"

namespace rigfit::test {

inline std::string sharedData() { return RIGFIT_SHARED_DATA; }
inline std::string sourceDir() { return RIGFIT_SOURCE_DIR; }

/// The MPFB data folder; records a fatal failure if it is not there.
#define RIGFIT_REQUIRE_SHARED_DATA()                                                                  \
  ASSERT_TRUE(std::filesystem::is_regular_file(rigfit::test::sharedData() + "/3dobjs/base.obj"))   \
      << "MPFB data missing at " << rigfit::test::sharedData() << " (configure with -DRIGFIT_SHARED_DATA=...)"

inline std::string readText(const std::string& path) {
  auto r = rigfit::readFile(path);
  EXPECT_TRUE(r.ok()) << path;
  return r.ok() ? *r : std::string();
}

inline const char* kShippedRigs[] = {
    "rigs/standard/rig.cmu_mb.json",        "rigs/standard/rig.default.json",
    "rigs/standard/rig.default_no_toes.json", "rigs/standard/rig.game_engine.json",
    "rigs/standard/rig.game_engine_with_breast.json", "rigs/standard/rig.mixamo.json",
    "rigs/standard/rig.mixamo_unity.json",  "rigs/standard/rig.openpose.json",
    "rigs/rigify/rig.human.json",           "rigs/rigify/rig.human_toes.json"};

}  // namespace rigfit::test
