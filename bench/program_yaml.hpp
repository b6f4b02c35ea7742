#pragma once
// The synthetic workload of synthetic_program.hpp as a program file (`overlapsim run` YAML):
// one flow-style line per launch, as `import-trace --program` writes them, with quoted names,
// comments and a cross-stream record and wait every 16 kernels.
#include <fmt/format.h>

#include <string>

namespace ovs::bench {

inline std::string synthetic_program_yaml(int kernels) {
  std::string y =
      "# Synthetic benchmark program: a GEMM, a memory-bound kernel, a tiny kernel and a\n"
      "# communication kernel in turn on 4 streams.\n"
      "description: \"synthetic program\"\n"
      "hardware: h800-sxm\n"
      "launch_mode: graph\n"
      "streams: [s0, s1, s2, {name: s3, priority: 1}]\n"
      "program:\n";
  for (int i = 0; i < kernels; ++i) {
    const int s = i % 4;
    std::string work;
    switch (s) {
      case 0:
        work = fmt::format(
            "{{tensor_flops: {{fp8: {}}}, hbm_bytes: 2e7, ctas: 120, reads: [{{tensor: w{}, "
            "bytes: 1e6}}]}}",
            2e9 + 1e7 * (i % 7), i % 11);
        break;
      case 1:
        work = fmt::format("{{hbm_bytes: {}, ctas: 264, ctas_per_sm: 2}}", 3e7 + 1e6 * (i % 5));
        break;
      case 2:
        work = "{hbm_bytes: 1e5, ctas: 1, fixed_latency_us: 2}";
        break;
      default:
        work = "{link_bytes: {nvlink: 2e6}}";
        break;
    }
    y += fmt::format("  - launch: {{name: \"k{}\", stream: s{}, work: {}{}}}\n", i, s, work,
                     s == 3 ? ", fixed_sms: 20" : "");
    if (i % 16 == 15) {
      const int ev = (i / 16) % 4;
      y += fmt::format("  - record: {{event: e{}, stream: s{}}}\n", ev, s);
      y += fmt::format("  - wait: {{event: e{}, stream: s{}}}\n", ev, (i + 1) % 4);
    }
  }
  return y;
}

}  // namespace ovs::bench
