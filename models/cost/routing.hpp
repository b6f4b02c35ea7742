#pragma once
// Where a token's top-k experts live: the expected number of distinct ranks and nodes a token
// is sent to, for uniform routing with optional group limiting (DeepSeek-V3: 8 groups, top-4
// groups), experts placed contiguously on the EP ranks. Exact expectations (hypergeometric over
// every choice of groups), no sampling.
namespace ovs {

struct RoutingSpec {
  int experts = 256;
  int topk = 8;
  int groups = 1;       // expert groups (1: no group limiting)
  int topk_groups = 1;  // groups a token may use
  int ep_size = 8;      // ranks
  int gpus_per_node = 8;
};

struct RoutingStats {
  double ranks_per_token = 0;            // distinct ranks holding at least one of its experts
  double remote_ranks_per_token = 0;     // ... other than the sender
  double nodes_per_token = 0;            // distinct nodes, the sender's own included
  double remote_nodes_per_token = 0;     // distinct nodes other than the sender's
  double same_node_ranks_per_token = 0;  // distinct ranks in the sender's node, sender excluded
  // Normal mode forwards a token once per node over RDMA, then over NVLink inside the node to
  // each other rank that holds its experts: NVLink copies per token, over all nodes.
  double nvlink_copies_per_token = 0;
  int nodes = 1;
};

// Throws std::invalid_argument on impossible layouts (experts not divisible by ranks, ...).
RoutingStats routing_stats(const RoutingSpec& r);

}  // namespace ovs
