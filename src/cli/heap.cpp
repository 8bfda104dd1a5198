// The CLI's heap. A command is a short process that touches about 12 MB of fresh memory, and
// each first touch of a 4 KiB page costs a page fault: on small virtual machines that is most of
// the system time of an export. So the process keeps one heap for all its threads (unless many
// threads allocate all the time, as batch workers do), takes big
// buffers from it instead of from separate mappings, never hands freed memory back (the next
// buffer reuses pages already touched), and asks the kernel to back the heap with 2 MiB pages
// (transparent huge pages: one fault per 2 MiB) from the heap's first allocation on. Library
// users keep their own allocator settings.
#include "cli/heap.hpp"

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace rigfit::cli {

void setUpHeap(bool one_arena) {
#if defined(__GLIBC__) && defined(__linux__)
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  constexpr std::size_t kReserve = std::size_t{30} << 20;  // below the mmap threshold; virtual until used
  if (one_arena) mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest; bigger buffers still get their own mapping
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // Grow the heap once by kReserve and give it back to malloc: only chunk headers are written.
  // (volatile: the compiler may otherwise drop an allocation that is freed unused.)
  const auto before = reinterpret_cast<std::uintptr_t>(sbrk(0));
  void* volatile block = std::malloc(kReserve);
  if (block == nullptr) return;
  const auto start = reinterpret_cast<std::uintptr_t>(block);
  std::free(block);
  const auto after = reinterpret_cast<std::uintptr_t>(sbrk(0));
  // The block must have grown the program break (not so, e.g., under a sanitizer's allocator).
  if (after <= before || start > after || after - start < kReserve) return;
  const auto begin = (start + kHuge - 1) & ~(kHuge - 1);
  const auto end = after & ~(kHuge - 1);
  if (end <= begin) return;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
  // The heap up to `begin` can only have 4 KiB pages (2 MiB pages are aligned): an unused block
  // over it (never written beyond its header) starts the next allocations on the 2 MiB pages.
  if (begin - start >= 64) {
    void* volatile filler = std::malloc(begin - start - 32);
    (void)filler;  // kept for the process's life
  }
#endif
}

}  // namespace rigfit::cli
