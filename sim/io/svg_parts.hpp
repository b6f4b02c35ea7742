#pragma once
// Pieces every SVG chart overlapsim writes shares: the document head, XML escaping, text widths
// (so legends and labels are sized to their text, not clipped), and axis ticks.
#include <string>
#include <vector>

namespace ovs::svg {

std::string open(int width_px, int height_px);
std::string escape(const std::string& s);
// Width of `text` in a sans-serif font of `font_px` pixels, from per-character advance widths
// of DejaVu Sans (the sans-serif font rsvg and browsers fall back to on Linux), rounded up: a
// measured estimate, never narrower than the text renders. Bold glyphs are about 12 % wider.
double text_width_px(const std::string& text, double font_px = 12, bool bold = false);
// A short label for a tick or a value ("0.5", "64", "1.2e+04").
std::string number(double v);
// "Nice" ticks over [lo, hi], about n of them.
std::vector<double> linear_ticks(double lo, double hi, int n);
// 1, 2, 5 x 10^k within [lo, hi] (lo > 0).
std::vector<double> log_ticks(double lo, double hi);

}  // namespace ovs::svg
