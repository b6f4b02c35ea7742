#pragma once
// A DAG of named nodes (ops of a layer, or kernels of an op) on Boost.Graph: dependencies,
// a topological order, and cycles rejected with the cycle named.
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ovs {

class OpGraph {
 public:
  OpGraph();
  ~OpGraph();
  OpGraph(const OpGraph&);
  OpGraph& operator=(const OpGraph&);

  void add_node(const std::string& name);
  // `after` depends on `before` (both added on first use).
  void add_edge(const std::string& before, const std::string& after);
  bool has(const std::string& name) const;
  const std::vector<std::string>& nodes() const { return names_; }
  // Direct predecessors of a node.
  std::vector<std::string> deps(const std::string& name) const;
  // Topological order; throws std::invalid_argument naming a cycle ("a -> b -> a").
  std::vector<std::string> topological_order() const;
  // Empty if `order` lists every node once after its dependencies, else the first problem.
  std::string check_order(const std::vector<std::string>& order) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> names_;
  std::map<std::string, int> index_;
};

}  // namespace ovs
