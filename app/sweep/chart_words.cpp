#include "app/sweep/chart_words.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <vector>

namespace ovs {
namespace {

std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end) return std::nullopt;
  return v;
}

std::string phase_of(const Inputs& in) {
  auto it = in.find("phase");
  return it == in.end() ? std::string() : it->second;
}

}  // namespace

std::string axis_label(const std::string& column, const std::string& phase) {
  if (column == "tokens_per_gpu")
    return phase == "decode"    ? "requests per GPU"
           : phase == "prefill" ? "tokens per GPU"
                                : "tokens per GPU (prefill) or requests per GPU (decode)";
  if (column == "context")
    return phase == "decode"    ? "context: KV length per request (tokens)"
           : phase == "prefill" ? "prompt length (tokens)"
                                : "context (tokens)";
  if (column == "ep") return "EP size (GPUs)";
  if (column == "gpus_per_node") return "GPUs per node";
  if (column == "imbalance") return "expert load imbalance (hottest rank / mean)";
  if (column == "decode_q_len") return "query tokens per request per step";
  if (column == "redundant_experts") return "redundant experts";
  return column;
}

bool discrete_axis(const std::string& column) {
  return column == "ep" || column == "gpus_per_node" || column == "decode_q_len" ||
         column == "redundant_experts";
}

bool value_less(const std::string& a, const std::string& b) {
  const auto na = as_number(a), nb = as_number(b);
  if (na && nb) return *na != *nb ? *na < *nb : a < b;
  if (na != nb) return na.has_value();
  return a < b;
}

bool InputsLess::operator()(const Inputs& a, const Inputs& b) const {
  auto ia = a.begin(), ib = b.begin();
  for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
    if (ia->first != ib->first) return ia->first < ib->first;
    if (ia->second != ib->second) return value_less(ia->second, ib->second);
  }
  return ia == a.end() && ib != b.end();
}

std::string setting_words(const Inputs& in, const std::string& skip_a, const std::string& skip_b) {
  auto has = [&](const std::string& k) {
    return k != skip_a && k != skip_b && in.count(k) && !in.at(k).empty();
  };
  const std::string phase = phase_of(in);
  std::string s;
  if (has("model")) s += in.at("model");
  if (has("phase")) s += (s.empty() ? "" : " ") + phase;
  if (has("hw")) s += (s.empty() ? "" : " ") + std::string("on ") + in.at("hw");
  std::vector<std::string> parts;
  if (has("ep")) parts.push_back("EP " + in.at("ep"));
  for (const auto& [k, v] : in) {
    if (!has(k) || k == "model" || k == "phase" || k == "hw" || k == "ep") continue;
    if (k == "tokens_per_gpu")
      parts.push_back(v + (phase == "decode" ? " requests per GPU" : " tokens per GPU"));
    else if (k == "context")
      parts.push_back((phase == "prefill" ? "prompt " : "context ") + v);
    else if (k == "gpus_per_node")
      parts.push_back(v + " GPUs per node");
    else if (k == "imbalance")
      parts.push_back("imbalance " + v);
    else if (k == "deepep_mode")
      parts.push_back("DeepEP " + v);
    else if (k == "cuda_graphs")
      parts.push_back("CUDA graphs " + v);
    else
      parts.push_back(k + " " + v);
  }
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s.empty() ? "all points" : s;
}

std::string slug(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '.')
      out += static_cast<char>(std::tolower(c));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  return out;
}

}  // namespace ovs
