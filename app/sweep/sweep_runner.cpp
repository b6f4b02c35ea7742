#include "app/sweep/sweep_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "app/sweep/interrupt.hpp"
#include "app/sweep/provenance.hpp"
#include "app/sweep/row_checker.hpp"
#include "app/sweep/sweep_point.hpp"
#include "app/sweep/threads.hpp"
#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"

namespace ovs {
namespace {

// The k-th point of this shard.
long long shard_point(long long k, const SweepOptions& o) {
  return k * o.shard_count + o.shard_index;
}

// An existing output to resume: its provenance must be this run's, its header this sweep's and
// every complete row one of this shard's, in order. Returns the number of complete points and
// the byte length of that prefix (a cut last row or unfinished last point is dropped).
std::pair<long long, long long> existing_prefix(const SweepSpec& spec, const SweepOptions& o,
                                                const Provenance& prov, const std::string& header) {
  std::ifstream in(o.out, std::ios::binary);
  if (!in) throw InputError(o.out, 0, "", "cannot read the sweep output to resume");
  const ProvenanceRead found = read_provenance(in, o.out);
  require_same_sweep(found, o.out, prov, "this spec", true);
  std::string line;
  int line_no = found.last_line + 1;
  if (!std::getline(in, line) || line + "\n" != header)
    throw InputError(o.out, line_no, "header", "not the columns of this sweep; cannot resume");
  long long bytes = static_cast<long long>(prov.text().size() + header.size());
  long long good_bytes = bytes;
  RowChecker rows(spec, {o.shard_index}, o.shard_count, o.out);
  while (std::getline(in, line)) {
    ++line_no;
    if (in.eof()) break;  // no newline: a row cut by the interruption
    rows.check(line, line_no);
    bytes += static_cast<long long>(line.size()) + 1;
    if (rows.point_complete()) good_bytes = bytes;
  }
  return {rows.points_done(), good_bytes};
}

class Progress {
 public:
  Progress(std::ostream& err, bool on, long long total, long long done)
      : err_(err),
        on_(on),
        total_(total),
        start_done_(done),
        start_(std::chrono::steady_clock::now()) {}
  void update(long long done, bool final = false) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!final && now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    const double rate = s > 0 ? double(done - start_done_) / s : 0;
    const double eta = rate > 0 ? double(total_ - done) / rate : 0;
    err_ << fmt::format("\r[sweep] {}/{} points, {:.1f} points/s, ETA {:.0f} s   ", done, total_,
                        rate, eta)
         << (final ? "\n" : "") << std::flush;
  }

 private:
  std::ostream& err_;
  bool on_;
  long long total_, start_done_;
  std::chrono::steady_clock::time_point start_, last_{};
};

}  // namespace

SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& o, std::ostream& err) {
  namespace fs = std::filesystem;
  if (o.shard_count < 1 || o.shard_index < 0 || o.shard_index >= o.shard_count)
    throw flag_error("--shard", "expected i/N with 0 <= i < N");
  check_sweep_names(spec);
  const auto t0 = std::chrono::steady_clock::now();
  SweepSummary summary;
  summary.points = shard_point_count(spec.points(), o.shard_index, o.shard_count);
  PointEvaluator header_eval(spec);
  const std::string header = header_eval.header();
  const Provenance prov = provenance_of(spec, o.shard_index, o.shard_count);

  long long start = 0;
  std::FILE* f = nullptr;
  std::error_code ec;
  if (o.resume && fs::exists(o.out, ec)) {
    const auto [blocks, bytes] = existing_prefix(spec, o, prov, header);
    fs::resize_file(o.out, static_cast<std::uintmax_t>(bytes), ec);
    if (ec)
      throw InputError(o.out, 0, "", "cannot truncate the partial last point: " + ec.message());
    f = std::fopen(o.out.c_str(), "ab");
    start = blocks;
  } else {
    if (fs::is_directory(o.out, ec))
      throw InputError(o.out, 0, "", "is a directory, expected a CSV file to write");
    f = std::fopen(o.out.c_str(), "wb");
    if (f && std::fputs((prov.text() + header).c_str(), f) < 0) {
      std::fclose(f);
      f = nullptr;
    }
  }
  if (!f) throw InputError(o.out, 0, "", std::string("cannot write: ") + std::strerror(errno));

  // Workers take point numbers in order; the writer emits blocks in order. A worker more than
  // `window` points ahead of the writer waits, so memory does not grow with the sweep.
  const int jobs = resolve_jobs(o.jobs);
  const long long window = 4LL * jobs;
  std::mutex mu;
  std::condition_variable cv;
  std::map<long long, std::string> done;
  std::atomic<long long> next{start};
  long long written = start;
  bool failed = false;
  bool stopping = false;  // a signal arrived: no new points
  std::string failure;
  auto worker = [&] {
    PointEvaluator eval(spec);
    while (true) {
      long long k;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] {
          return failed || stopping || next.load() < written + window ||
                 next.load() >= summary.points;
        });
        if (failed || stopping) return;
        k = next++;
      }
      if (k >= summary.points) return;
      std::string rows = eval.rows(shard_point(k, o));
      std::lock_guard<std::mutex> lock(mu);
      done.emplace(k, std::move(rows));
      cv.notify_all();
    }
  };
  const InterruptGuard interrupts;
  std::vector<std::thread> threads;
  for (int i = 0; i < jobs; ++i) threads.emplace_back(worker);
  Progress progress(err, o.progress, summary.points, start);
  // Writes the next point's rows if they are ready; false on a write error.
  auto write_next = [&](std::unique_lock<std::mutex>& lock) {
    const std::string rows = std::move(done.at(written));
    done.erase(written);
    lock.unlock();
    const bool ok = std::fputs(rows.c_str(), f) >= 0 && std::fflush(f) == 0;
    lock.lock();
    if (!ok) {
      failed = true;
      failure = std::strerror(errno);
      return false;
    }
    ++written;
    cv.notify_all();
    return true;
  };
  {
    std::unique_lock<std::mutex> lock(mu);
    while (written < summary.points && !failed) {
      // Wake up now and then to notice a signal (a handler cannot notify a condition variable).
      cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done.count(written) > 0; });
      if (InterruptGuard::signal_received()) break;
      if (!done.count(written)) continue;
      if (!write_next(lock)) break;
      lock.unlock();
      progress.update(written);
      lock.lock();
    }
    summary.interrupted_by =
        written < summary.points && !failed ? InterruptGuard::signal_received() : 0;
    if (summary.interrupted_by) {
      // Stop handing out points; the ones being computed finish, and every complete point that
      // follows the file's end in order is written.
      stopping = true;
      cv.notify_all();
      lock.unlock();
      for (auto& t : threads) t.join();
      threads.clear();
      lock.lock();
      while (done.count(written) && write_next(lock)) {
      }
    }
  }
  cv.notify_all();
  for (auto& t : threads) t.join();
  const bool closed = std::fclose(f) == 0;
  if (failed || !closed)
    throw InputError(o.out, 0, "",
                     "write failed (" + (failure.empty() ? "disk full?" : failure) + ")");
  progress.update(written, true);
  summary.written = written;
  summary.computed = written - start;
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

}  // namespace ovs
