#include "models/graph/op_graph.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>
#include <stdexcept>

namespace ovs {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

struct OpGraph::Impl {
  Graph g;
};

OpGraph::OpGraph() : impl_(std::make_unique<Impl>()) {}
OpGraph::~OpGraph() = default;
OpGraph::OpGraph(const OpGraph& o)
    : impl_(std::make_unique<Impl>(*o.impl_)), names_(o.names_), index_(o.index_) {}
OpGraph& OpGraph::operator=(const OpGraph& o) {
  impl_ = std::make_unique<Impl>(*o.impl_);
  names_ = o.names_;
  index_ = o.index_;
  return *this;
}

void OpGraph::add_node(const std::string& name) {
  if (index_.count(name)) return;
  index_[name] = static_cast<int>(boost::add_vertex(impl_->g));
  names_.push_back(name);
}

void OpGraph::add_edge(const std::string& before, const std::string& after) {
  add_node(before);
  add_node(after);
  boost::add_edge(index_.at(before), index_.at(after), impl_->g);
}

bool OpGraph::has(const std::string& name) const {
  return index_.count(name) > 0;
}

std::vector<std::string> OpGraph::deps(const std::string& name) const {
  std::vector<std::string> out;
  const auto v = static_cast<Graph::vertex_descriptor>(index_.at(name));
  for (auto [e, end] = boost::edges(impl_->g); e != end; ++e)
    if (boost::target(*e, impl_->g) == v) out.push_back(names_[boost::source(*e, impl_->g)]);
  return out;
}

namespace {
// Records the first back edge DFS meets and the tree path to it, to name the cycle.
struct CycleFinder : boost::default_dfs_visitor {
  std::vector<long>* parent;
  std::vector<long>* cycle;
  void tree_edge(Graph::edge_descriptor e, const Graph& g) const {
    (*parent)[boost::target(e, g)] = static_cast<long>(boost::source(e, g));
  }
  void back_edge(Graph::edge_descriptor e, const Graph& g) const {
    if (!cycle->empty()) return;
    const long from = static_cast<long>(boost::source(e, g)),
               to = static_cast<long>(boost::target(e, g));
    std::vector<long> path{from};
    for (long v = from; v != to && v >= 0; v = (*parent)[v]) path.push_back((*parent)[v]);
    cycle->assign(path.rbegin(), path.rend());
    cycle->push_back(to);
  }
};
}  // namespace

std::vector<std::string> OpGraph::topological_order() const {
  const auto n = boost::num_vertices(impl_->g);
  std::vector<long> parent(n, -1), cycle;
  CycleFinder vis;
  vis.parent = &parent;
  vis.cycle = &cycle;
  boost::depth_first_search(impl_->g, boost::visitor(vis));
  if (!cycle.empty()) {
    std::string text;
    for (size_t i = 0; i < cycle.size(); ++i) text += (i ? " -> " : "") + names_[cycle[i]];
    throw std::invalid_argument("dependency cycle: " + text);
  }
  std::vector<Graph::vertex_descriptor> rev;
  boost::topological_sort(impl_->g, std::back_inserter(rev));
  std::vector<std::string> out;
  for (auto it = rev.rbegin(); it != rev.rend(); ++it) out.push_back(names_[*it]);
  return out;
}

std::string OpGraph::check_order(const std::vector<std::string>& order) const {
  std::map<std::string, int> pos;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!has(order[i])) return "unknown op '" + order[i] + "'";
    if (pos.count(order[i])) return "op '" + order[i] + "' appears twice";
    pos[order[i]] = static_cast<int>(i);
  }
  for (const auto& n : names_)
    if (!pos.count(n)) return "op '" + n + "' is missing";
  for (const auto& n : names_)
    for (const auto& d : deps(n))
      if (pos[d] > pos[n]) return "op '" + n + "' comes before '" + d + "', which it needs";
  return {};
}

}  // namespace ovs
