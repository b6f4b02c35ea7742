#pragma once
// The words and names on a sweep's charts: axis labels in the user's terms and units, titles
// that say which model, GPU, phase, EP and baseline a chart shows, file names that say the same,
// and numeric order for values that are numbers (EP 8 < 16 < 128, not "128" < "16").
#include <map>
#include <string>

namespace ovs {

using Inputs = std::map<std::string, std::string>;

// "requests per GPU" (decode), "tokens per GPU" (prefill), "EP size (GPUs)", ...; `phase` is the
// phase of every point of the chart, or empty when they differ.
std::string axis_label(const std::string& column, const std::string& phase);
// Axes whose values between two measured ones do not exist (EP 13): crossovers are reported at
// a measured value, and charts tick only the measured values.
bool discrete_axis(const std::string& column);
// Numbers by value, text by text, numbers before text.
bool value_less(const std::string& a, const std::string& b);
struct InputsLess {
  bool operator()(const Inputs& a, const Inputs& b) const;
};
// "deepseek-v3 decode on h800-sxm, EP 32, context 2048", leaving out the columns in `skip`.
std::string setting_words(const Inputs& inputs, const std::string& skip_a,
                          const std::string& skip_b = "");
// A file-name-safe slug: lower case, [a-z0-9.] kept, anything else one '-'.
std::string slug(const std::string& text);

}  // namespace ovs
