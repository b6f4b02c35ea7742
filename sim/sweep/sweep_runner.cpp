#include "sim/sweep/sweep_runner.hpp"

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

#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/sweep/sweep_point.hpp"

namespace ovs {
namespace {

// The k-th point of this shard.
long long shard_point(long long k, const SweepOptions& o) {
  return k * o.shard_count + o.shard_index;
}
long long shard_points(long long total, const SweepOptions& o) {
  return total <= o.shard_index ? 0 : (total - o.shard_index + o.shard_count - 1) / o.shard_count;
}

// Lines of an existing output: returns the number of complete point blocks it holds and the
// byte length of that prefix (header included), checking the header.
std::pair<long long, long long> existing_prefix(const std::string& path, const std::string& header,
                                                size_t rows_per_point) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot read the sweep output to resume");
  std::string line;
  if (!std::getline(in, line) || line + "\n" != header)
    throw InputError(path, 1, "header",
                     "the existing file is not this sweep's output; cannot resume");
  long long bytes = static_cast<long long>(header.size());
  long long good_bytes = bytes, rows = 0, blocks = 0;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline: a row cut by the interruption
    bytes += static_cast<long long>(line.size()) + 1;
    ++rows;
    if (rows % static_cast<long long>(rows_per_point) == 0) {
      ++blocks;
      good_bytes = bytes;
    }
  }
  return {blocks, good_bytes};
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
    throw InputError("", 0, "--shard", "expected i/N with 0 <= i < N");
  check_sweep_names(spec);
  const auto t0 = std::chrono::steady_clock::now();
  SweepSummary summary;
  summary.points = shard_points(spec.points(), o);
  PointEvaluator header_eval(spec);
  const std::string header = header_eval.header();
  const size_t per_point = spec.strategies.size();

  long long start = 0;
  std::FILE* f = nullptr;
  std::error_code ec;
  if (o.resume && fs::exists(o.out, ec)) {
    const auto [blocks, bytes] = existing_prefix(o.out, header, per_point);
    fs::resize_file(o.out, static_cast<std::uintmax_t>(bytes), ec);
    if (ec)
      throw InputError(o.out, 0, "", "cannot truncate the partial last point: " + ec.message());
    f = std::fopen(o.out.c_str(), "ab");
    start = blocks;
  } else {
    if (fs::is_directory(o.out, ec))
      throw InputError(o.out, 0, "", "is a directory, expected a CSV file to write");
    f = std::fopen(o.out.c_str(), "wb");
    if (f && std::fputs(header.c_str(), f) < 0) {
      std::fclose(f);
      f = nullptr;
    }
  }
  if (!f) throw InputError(o.out, 0, "", std::string("cannot write: ") + std::strerror(errno));

  // Workers take point numbers in order; the writer emits blocks in order. A worker more than
  // `window` points ahead of the writer waits, so memory does not grow with the sweep.
  const int jobs = std::max(1, o.jobs);
  const long long window = 4LL * jobs;
  std::mutex mu;
  std::condition_variable cv;
  std::map<long long, std::string> done;
  std::atomic<long long> next{start};
  long long written = start;
  bool failed = false;
  std::string failure;
  auto worker = [&] {
    PointEvaluator eval(spec);
    while (true) {
      long long k;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] {
          return failed || next.load() < written + window || next.load() >= summary.points;
        });
        if (failed) return;
        k = next++;
      }
      if (k >= summary.points) return;
      std::string rows = eval.rows(shard_point(k, o));
      std::lock_guard<std::mutex> lock(mu);
      done.emplace(k, std::move(rows));
      cv.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < jobs; ++i) threads.emplace_back(worker);
  Progress progress(err, o.progress, summary.points, start);
  {
    std::unique_lock<std::mutex> lock(mu);
    while (written < summary.points && !failed) {
      cv.wait(lock, [&] { return done.count(written) > 0; });
      const std::string rows = std::move(done.at(written));
      done.erase(written);
      lock.unlock();
      const bool ok = std::fputs(rows.c_str(), f) >= 0 && std::fflush(f) == 0;
      lock.lock();
      if (!ok) {
        failed = true;
        failure = std::strerror(errno);
        break;
      }
      ++written;
      cv.notify_all();
      lock.unlock();
      progress.update(written);
      lock.lock();
    }
  }
  cv.notify_all();
  for (auto& t : threads) t.join();
  const bool closed = std::fclose(f) == 0;
  if (failed || !closed)
    throw InputError(o.out, 0, "",
                     "write failed (" + (failure.empty() ? "disk full?" : failure) + ")");
  progress.update(written, true);
  summary.computed = summary.points - start;
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

void merge_sweeps(const std::vector<std::string>& parts, const std::string& out) {
  if (parts.empty()) throw InputError("", 0, "parts", "nothing to merge");
  struct Part {
    std::ifstream in;
    std::string line;
    long long point = -1;
    std::string name;
  };
  std::vector<std::unique_ptr<Part>> ps;
  std::string header;
  auto advance = [](Part& p) {
    if (std::getline(p.in, p.line) && !p.line.empty()) {
      p.point = std::stoll(p.line.substr(0, p.line.find(',')));
    } else {
      p.point = -1;
    }
  };
  for (const auto& path : parts) {
    auto p = std::make_unique<Part>();
    p->name = path;
    p->in.open(path, std::ios::binary);
    if (!p->in) throw InputError(path, 0, "", "cannot read");
    std::string h;
    if (!std::getline(p->in, h)) throw InputError(path, 1, "header", "empty file");
    if (header.empty()) header = h;
    if (h != header) throw InputError(path, 1, "header", "not the same sweep as " + parts.front());
    try {
      advance(*p);
    } catch (const std::exception&) {
      throw InputError(path, 2, "point", "expected a point number");
    }
    ps.push_back(std::move(p));
  }
  AtomicFile file(out);
  file.stream() << header << "\n";
  // Rows of a point are contiguous in one part: take the part holding the smallest point.
  while (true) {
    Part* best = nullptr;
    for (auto& p : ps)
      if (p->point >= 0 && (!best || p->point < best->point)) best = p.get();
    if (!best) break;
    const long long point = best->point;
    while (best->point == point) {
      file.stream() << best->line << "\n";
      try {
        advance(*best);
      } catch (const std::exception&) {
        throw InputError(best->name, 0, "point", "expected a point number");
      }
    }
  }
  file.commit();
}

}  // namespace ovs
