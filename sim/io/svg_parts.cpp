#include "sim/io/svg_parts.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <string_view>

namespace ovs::svg {

std::string open(int w, int h) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1}\" "
      "fill=\"white\"/>\n",
      w, h);
}

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

double text_width_px(const std::string& text, double font_px, bool bold) {
  // DejaVu Sans advance widths in em (of 2048 units): narrow punctuation and i/l/j ~0.28-0.35,
  // f/t/r ~0.35-0.41, most lower case and digits ~0.61-0.64, m/w ~0.82-0.97, upper case ~0.6-0.86.
  double em = 0;
  for (unsigned char c : text) {
    if (c >= 0x80) {
      em += 0.5;  // a UTF-8 byte: a multi-byte character counts as one wide glyph
    } else if (std::string_view(" .,:;'|!ijl()[]").find(char(c)) != std::string_view::npos) {
      em += 0.36;
    } else if (std::string_view("frt-/").find(char(c)) != std::string_view::npos) {
      em += 0.42;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '%') {
      em += 0.98;
    } else if (std::isupper(c)) {
      em += 0.78;
    } else {
      em += 0.64;
    }
  }
  return std::ceil(em * font_px * (bold ? 1.12 : 1.0));
}

std::string number(double v) {
  if (std::fabs(v) >= 100000 || (std::fabs(v) < 0.01 && v != 0)) return fmt::format("{:.3g}", v);
  return fmt::format("{:g}", std::round(v * 1000) / 1000);
}

std::vector<double> linear_ticks(double lo, double hi, int n) {
  const double span = hi - lo;
  if (span <= 0) return {lo};
  const double raw = span / n, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> t;
  for (double d = std::pow(10, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) t.push_back(d * m);
  return t;
}

}  // namespace ovs::svg
