#include "app/cli/process_heap.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define OVS_GLIBC_HEAP 1
#endif

namespace ovs {

#ifdef OVS_GLIBC_HEAP
namespace {
// How far the heap grows at a time: above a what-if's peak (about 12 MB resident for V3 decode)
// with room for prefill and V4 programs. Beyond it the heap grows in 4 KiB pages as before.
constexpr std::size_t kHeapStepBytes = std::size_t{64} << 20;
// The transparent huge page size on x86-64 and arm64 (4 KiB base pages).
constexpr std::uintptr_t kHugePageBytes = std::uintptr_t{2} << 20;
// A block large enough to make malloc extend the heap (below the mmap threshold set here).
constexpr std::size_t kProbeBytes = std::size_t{1} << 20;
// glibc's chunk header before and after a block (size fields), rounded up.
constexpr std::uintptr_t kChunkHeaderBytes = 64;
// Through a volatile pointer the compiler keeps the allocations below (an unused malloc, or a
// malloc freed right away, may otherwise be left out).
void* volatile g_block = nullptr;
}  // namespace

void prepare_process_heap() {
  // Blocks of any size come from the heap (not a fresh mmap each), and freed memory at its top
  // stays mapped: a second program of the same size reuses the pages the first one touched.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapStepBytes)) != 1) return;
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * kHeapStepBytes));
  mallopt(M_TOP_PAD, static_cast<int>(kHeapStepBytes));
  g_block = std::malloc(kProbeBytes);
  char* const probe = static_cast<char*>(g_block);
  char* const heap_end = static_cast<char*>(sbrk(0));
  const bool brk_heap = probe != nullptr && probe < heap_end &&
                        static_cast<std::size_t>(heap_end - probe) <= 2 * kHeapStepBytes;
  std::free(probe);  // back into the top of the heap
  if (!brk_heap) return;
  // A 2 MiB block of the heap becomes a huge page only if none of its pages was touched before
  // the madvise: the probe's malloc and free wrote and read the chunk headers at its two ends, so
  // the huge pages start after its end.
  const auto first = reinterpret_cast<std::uintptr_t>(probe);
  const std::uintptr_t aligned =
      (first + kProbeBytes + kChunkHeaderBytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(heap_end) & ~(kHugePageBytes - 1);
  if (end <= aligned) return;
  madvise(reinterpret_cast<void*>(aligned), end - aligned, MADV_HUGEPAGE);
  // Blocks from here on start at the first huge page: the bytes before it go to one block that is
  // never freed nor written (it costs address space, not memory).
  g_block = std::malloc(aligned - first);
}
#else
void prepare_process_heap() {}
#endif

}  // namespace ovs
