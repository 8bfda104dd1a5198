// rigfit_fit (rig and OBJ parsing) runs with the allocator settings of the rigfit command
// (src/cli/heap.cpp): without them, glibc hands the top of the heap back after each iteration
// that frees more than 128 KB (a rig's text copy and bone array), and the next iteration pays
// the page faults again, a cost of the allocator's policy, not of the code measured.
#include "cli/heap.hpp"

namespace {
const bool kHeapSetUp = (rigfit::cli::setUpHeap(true), true);
}  // namespace
