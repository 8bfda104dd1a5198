// Highway's runtime (target detection and choice), loaded when skinning first dispatches.
//
// Debian's libhwy.so calibrates a timer in its load-time constructor: about 6 ms of CPU in every
// process that links it, also in the many rigfit runs that never skin (fit, export, validate;
// the whole `rigfit export` is meant to take 15 ms). The kernels need three of its functions;
// they are defined here and forward to the library, opened with dlopen on first use.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <hwy/targets.h>

namespace {

struct HwyRuntime {
  hwy::ChosenTarget& (*chosen_target)() = nullptr;
  std::int64_t (*supported_targets)() = nullptr;
  void (*set_supported_targets_for_test)(std::int64_t) = nullptr;
};

template <typename F>
void bind(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
  if (!out) {
    std::fprintf(stderr, "rigfit: error: %s: no symbol %s\n", RIGFIT_HWY_SONAME, symbol);
    std::abort();
  }
}

const HwyRuntime& runtime() {
  static const HwyRuntime r = [] {
    HwyRuntime out;
    void* lib = dlopen(RIGFIT_HWY_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::fprintf(stderr, "rigfit: error: cannot load %s (needed for skinning): %s\n", RIGFIT_HWY_SONAME, dlerror());
      std::abort();
    }
    bind(lib, "_ZN3hwy15GetChosenTargetEv", out.chosen_target);
    bind(lib, "_ZN3hwy16SupportedTargetsEv", out.supported_targets);
    bind(lib, "_ZN3hwy26SetSupportedTargetsForTestEl", out.set_supported_targets_for_test);
    return out;
  }();
  return r;
}

}  // namespace

namespace hwy {

ChosenTarget& GetChosenTarget() { return runtime().chosen_target(); }
int64_t SupportedTargets() { return runtime().supported_targets(); }
void SetSupportedTargetsForTest(int64_t targets) { runtime().set_supported_targets_for_test(targets); }

}  // namespace hwy
