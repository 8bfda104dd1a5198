// Shared test helpers. Tests that use ../shared/data FAIL (never skip) when it is missing.
#pragma once

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

/// Runs `child` in a forked process whose files may grow to `bytes` at most (write() then fails
/// with EFBIG: SIGXFSZ is ignored). Returns the child's return value, 2 if the limit could not be
/// set, or -1 if the child did not exit normally. In a child because the limit is the process's.
inline int exitCodeUnderFileSizeLimit(rlim_t bytes, const std::function<int()>& child) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, bytes};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    ::_exit(child());
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

inline const char* kShippedRigs[] = {
    "rigs/standard/rig.cmu_mb.json",        "rigs/standard/rig.default.json",
    "rigs/standard/rig.default_no_toes.json", "rigs/standard/rig.game_engine.json",
    "rigs/standard/rig.game_engine_with_breast.json", "rigs/standard/rig.mixamo.json",
    "rigs/standard/rig.mixamo_unity.json",  "rigs/standard/rig.openpose.json",
    "rigs/rigify/rig.human.json",           "rigs/rigify/rig.human_toes.json"};

}  // namespace rigfit::test
