// Process-wide allocator settings for the rigfit command (see heap.cpp).
#pragma once

namespace rigfit::cli {

// Called first in main(), before any thread starts.
void setUpHeap();

}  // namespace rigfit::cli
