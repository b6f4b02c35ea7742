// The fast YAML reader (sim/io/yaml_fast.hpp) reads a program exactly as yaml-cpp does, and leaves
// everything outside its subset to yaml-cpp (which then reads it, or reports the located error).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "app/program/program_loader.hpp"
#include "app/program/program_text.hpp"
#include "bench/program_yaml.hpp"
#include "helpers.hpp"
#include "sim/io/yaml_fast.hpp"

using namespace ovs;
using ovs::test::file_bytes;
namespace fs = std::filesystem;

namespace {

// The program both readers give; the fast reader must read it.
void require_same_program(const std::string& text, const std::string& name) {
  const auto fast = parse_program_fast(text, name);
  REQUIRE(fast.has_value());
  const LoadedProgram slow = parse_program(yaml::load_string(text, name));
  CHECK(program_text(*fast) == program_text(slow));
}

// Every construct of the subset: comments, blank lines, block maps and lists (a list at its key's
// indent too), flow maps over several lines, plain, single- and double-quoted scalars with
// escapes, repeats, every action and launch field.
const char* kEveryConstruct = R"(# a comment line

description: "every construct: \"quoted\", \\ back\tslash, caf\u00e9"   # trailing comment
hardware: h800-sxm
launch_mode: eager
streams:
- compute
- {name: 'it''s side', priority: 1}
-   name: comm
    priority: -2
program:
  - launch:
      name: gemm  # plain, with a comment
      stream: compute
      sm_cap: 100
      work: {tensor_flops: {fp8: 1.2026e11, bf16: 0}, hbm_bytes: 8.18E+7, ctas: 100,
             tiles: 1792,   # a comment inside a flow map
             compute_efficiency: .85,
             reads: [{tensor: "w a", bytes: 1e6}, {tensor: b, bytes: 2.5e5}],
             writes: [{tensor: out, bytes: 4096}]}
      op: gemm
      category: moe
      micro_batch: 1
      host_us: 2.5
  - record: {event: ready, stream: compute}
  - wait: {event: ready, stream: 'it''s side'}
  - launch: {name: "k\"1\"", stream: 'it''s side', duration_us: 7, sms: 8}
  - launch: {name: recv, stream: comm, fixed_sms: 4, spin_on: ready, work: {link_bytes: {nvlink: 1e6, rdma: 2e5}, ctas: 4, fixed_latency_us: 3}}
  - block: {event: ready}
  - delay:
      us: 5
      label: python overhead, step 1
  - repeat:
      count: 3
      body:
        - launch: {name: norm, stream: compute, work: {hbm_bytes: 5.87e7, ctas: 4096, ctas_per_sm: 8, l2_bytes: 1e3, cuda_core_flops: 2e6}}
        - record: {event: done, stream: compute}
  - wait:
      event: done
      stream: comm
)";

}  // namespace

TEST_CASE("the fast reader gives the program yaml-cpp gives for every shipped example",
          "[yaml-fast]") {
  int files = 0;
  const fs::path examples = fs::path(OVS_SOURCE_DIR) / "strategies" / "examples";
  for (const auto& f : fs::directory_iterator(examples)) {
    const fs::path& file = f.path();
    if (file.extension() != ".yaml") continue;
    const std::string name = file.string();
    INFO(name);
    require_same_program(file_bytes(file), name);
    ++files;
  }
  CHECK(files >= 4);
}

TEST_CASE("the fast reader gives the program yaml-cpp gives for every construct of its subset",
          "[yaml-fast]") {
  require_same_program(kEveryConstruct, "every-construct.yaml");
  require_same_program(bench::synthetic_program_yaml(200), "synthetic.yaml");
}

TEST_CASE("the fast reader reads nulls, quotes and escapes as yaml-cpp does", "[yaml-fast]") {
  const std::string text =
      "a: ~\nb: null\nc: 'it''s'\nd: \"x\\\"y\\u00e9\\n\"\ne:\nf: [1, two words, '3', ~]\n"
      "g: {h: NULL, i: \"\"}\nj: a:b # c\n";
  const auto doc = yaml::FastDoc::parse(text);
  REQUIRE(doc);
  const YAML::Node y = YAML::Load(text);
  const yaml::FastNode& root = doc->root();
  REQUIRE(root.kind == yaml::FastNode::map);
  REQUIRE(root.size == 8);
  for (std::uint32_t i = 0; i < root.size; ++i) {
    const std::string key(doc->text(doc->key(root, i)));
    const yaml::FastNode& v = doc->value(root, i);
    const YAML::Node yv = y[key];
    INFO(key);
    CHECK((v.kind == yaml::FastNode::null) == yv.IsNull());
    CHECK((v.kind == yaml::FastNode::scalar) == yv.IsScalar());
    if (v.kind == yaml::FastNode::scalar) CHECK(std::string(doc->text(v)) == yv.Scalar());
    if (v.kind == yaml::FastNode::seq) {
      REQUIRE(v.size == yv.size());
      for (std::uint32_t k = 0; k < v.size; ++k) {
        const yaml::FastNode& item = doc->item(v, k);
        CHECK((item.kind == yaml::FastNode::null) == yv[k].IsNull());
        if (item.kind == yaml::FastNode::scalar)
          CHECK(std::string(doc->text(item)) == yv[k].Scalar());
      }
    }
  }
  CHECK(doc->text(doc->value(root, 3)) == "x\"y\xc3\xa9\n");  // \u00e9 is UTF-8 C3 A9
}

TEST_CASE("the fast reader leaves YAML outside its subset to yaml-cpp", "[yaml-fast]") {
  const char* outside[] = {
      "a: &x 1\nb: *x\n",  // anchor, alias
      "a: !!str 1\n",      // tag
      "a: |\n  text\n",    // block scalars
      "a: >\n  text\n",    //
      "a:\tb\n",           // tab
      "a: 1\r\nb: 2\r\n",  // CRLF
      "---\na: 1\n",       // document marker
      "a: one\n  two\n",   // plain scalar over two lines
      "\"a\": 1\n",        // quoted key
      "a: \"\\ud800\"\n",  // surrogate escape
      "a: \"\\x41\"\n",    // escape JSON does not have
      "a: {b: 1\n",        // unterminated flow map
      "a: [1, 2,]\n",      // trailing comma
      "a: b: c\n",         // a map value on a map value
      "a: {b: c: d}\n",    //
      "\xEF\xBB\xBF"
      "a: 1\n",               // byte-order mark
      "- a\n- b\n",           // a list at the top
      "a: 1\n  b: 2\n",       // deeper line that continues nothing
      "a: [1, 2] x\n",        // text after a flow list
      "? a\n: 1\n",           // complex key
      "a: \"one\n  two\"\n",  // quoted scalar over two lines
      "a: {b: 1}\nb\n",       // a line that is not a key
      "a: {b: 1,\nc: 2}\n",   // flow continued at the block's indent
      "a: [b\n  c]\n",        // plain scalar over two lines in a flow list
      "~: 1\n",               // null key
      "a: x\xff\n",           // bad UTF-8
      "",                     // empty document
      "# only a comment\n",   //
  };
  for (const char* text : outside) {
    INFO(text);
    CHECK(yaml::FastDoc::parse(text) == nullptr);
  }
}

TEST_CASE("a program the fast reader cannot read is read by yaml-cpp", "[yaml-fast]") {
  // A block scalar description: outside the subset, so load_program takes yaml-cpp's path.
  std::string text = "description: |\n  two\n  lines\n";
  text.append(std::strstr(kEveryConstruct, "hardware:"));
  CHECK_FALSE(parse_program_fast(text, "block-scalar.yaml").has_value());
  const auto path = fs::temp_directory_path() / "overlapsim-yaml-fast-block-scalar.yaml";
  std::ofstream(path) << text;
  const LoadedProgram p = load_program(path.string());
  fs::remove(path);
  CHECK(p.program.kernels.size() == 3 + 3);
  CHECK(program_text(p).find("kernel norm") != std::string::npos);
}
