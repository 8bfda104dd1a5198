// Process-wide allocator settings for the rigfit command (see heap.cpp).
#pragma once

namespace rigfit::cli {

// Called first in main(), before any thread starts. one_arena: every thread allocates from the
// main heap (the huge-page one); off for commands whose threads allocate concurrently.
void setUpHeap(bool one_arena);

}  // namespace rigfit::cli
