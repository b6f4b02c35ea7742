#pragma once
// The heap of one overlapsim process, set up before any command runs.

namespace ovs {

// Lets the process's heap grow in one large step whose whole 2 MiB pages the kernel may back with
// transparent huge pages, and keeps freed blocks for reuse instead of returning them to the
// kernel. A what-if process touches about 7 MB of fresh memory (two programs, their runs and
// timelines); in 4 KiB pages that was about 1,600 first-touch page faults, about half of the
// process's time on the 2-core VM (README, Performance). Results do not depend on it: only where
// blocks lie and how pages are backed change. Does nothing when the heap is not glibc's brk heap
// (sanitizers, other allocators).
void prepare_process_heap();

}  // namespace ovs
