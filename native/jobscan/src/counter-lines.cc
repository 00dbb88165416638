// See counter-lines.h. The rules are the JavaScript scanner's (keyLine() and counter() in
// exporter/src/parsers/lustre-jobstats.ts); where that scanner would report the line as malformed,
// or read a value through BigInt (over 15 digits), the line is returned as kOtherLine instead, so the
// JavaScript scanner decides it, with its own counts and errors.
#include "counter-lines.h"

#include <cstring>

namespace jobio {
namespace {

constexpr uint8_t kNl = '\n', kCr = '\r', kSpace = ' ', kTab = '\t', kDash = '-', kColon = ':', kComma = ',';
constexpr uint8_t kLbrace = '{', kRbrace = '}';

inline bool IsNameByte(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

inline bool IsBlank(uint8_t c) { return c == kSpace || c == kTab; }

struct Counter {
  size_t name_start, name_end;
  double unit_start, unit_end;
  double samples, sum;
};

/**
 * Reads `{ samples: N, unit: U, ... }` from p (at the `{`) to end. False where the JavaScript
 * scanner would not return the same counter (a malformed line, a value over 15 digits).
 */
bool ReadBraces(const uint8_t* buf, size_t p, size_t end, Counter* c) {
  p += 1;  // after {
  bool closed = false;
  bool has_samples = false;
  c->unit_start = -1;
  c->unit_end = -1;
  c->samples = -1;
  c->sum = -1;
  while (p < end) {
    while (p < end && buf[p] == kSpace) p += 1;
    if (p >= end) return false;
    if (buf[p] == kRbrace) {
      p += 1;
      closed = true;
      break;
    }
    const size_t key_start = p;
    while (p < end && IsNameByte(buf[p])) p += 1;
    const size_t key_length = p - key_start;
    if (key_length == 0 || p >= end || buf[p] != kColon) return false;
    p += 1;
    while (p < end && buf[p] == kSpace) p += 1;
    const uint8_t k0 = buf[key_start];
    // Keys told apart as the JavaScript scanner tells them: by length and first letters.
    if (key_length == 4 && k0 == 'u') {
      const size_t unit_start = p;
      while (p < end && IsNameByte(buf[p])) p += 1;
      if (p == unit_start) return false;
      c->unit_start = static_cast<double>(unit_start);
      c->unit_end = static_cast<double>(p);
    } else if (key_length == 4 && k0 == 'h') {
      if (p >= end || buf[p] != kLbrace) return false;
      while (p < end && buf[p] != kRbrace) p += 1;
      if (p >= end) return false;
      p += 1;
    } else {
      const bool is_samples = key_length == 7 && k0 == 's' && buf[key_start + 1] == 'a';
      const bool is_sum = key_length == 3 && k0 == 's' && buf[key_start + 1] == 'u';
      const size_t digits_start = p;
      double value = 0;
      while (p < end && buf[p] >= '0' && buf[p] <= '9') {
        value = value * 10 + (buf[p] - '0');
        p += 1;
      }
      const size_t digits = p - digits_start;
      if (digits == 0) return false;
      if (is_samples || is_sum) {
        // Longer values take the JavaScript scanner's BigInt path (and its range check).
        if (digits > 15) return false;
        if (is_samples) {
          c->samples = value;
          has_samples = true;
        } else {
          c->sum = value;
        }
      }
    }
    while (p < end && buf[p] == kSpace) p += 1;
    if (p >= end) return false;
    if (buf[p] == kComma) {
      p += 1;
    } else if (buf[p] != kRbrace) {
      return false;
    }
  }
  while (p < end && buf[p] == kSpace) p += 1;
  return closed && has_samples && p == end;
}

/** A counter line read whole, or false (then the line goes to the JavaScript scanner). */
bool ReadCounterLine(const uint8_t* buf, size_t line_start, size_t line_end, Counter* c) {
  size_t p = line_start;
  while (p < line_end && IsBlank(buf[p])) p += 1;
  // Column 1 (lctl headers, 2.15.0's `snapshot_time   :`) and `- job_id:` lines are the JavaScript scanner's.
  if (p == line_start || p >= line_end || buf[p] == kDash) return false;
  const size_t name_start = p;
  while (p < line_end && IsNameByte(buf[p])) p += 1;
  const size_t name_end = p;
  while (p < line_end && IsBlank(buf[p])) p += 1;
  if (name_end == name_start || p >= line_end || buf[p] != kColon) return false;
  p += 1;
  while (p < line_end && IsBlank(buf[p])) p += 1;
  if (p >= line_end || buf[p] != kLbrace) return false;
  c->name_start = name_start;
  c->name_end = name_end;
  return ReadBraces(buf, p, line_end, c);
}

bool IsBlankLine(const uint8_t* buf, size_t p, size_t end) {
  while (p < end && IsBlank(buf[p])) p += 1;
  return p >= end;
}

}  // namespace

size_t ScanLines(const uint8_t* buf, size_t start, size_t end, double* out, size_t capacity) {
  size_t records = 0;
  while (start < end && records < capacity) {
    const void* nl = std::memchr(buf + start, kNl, end - start);
    const size_t eol = nl == nullptr ? end : static_cast<size_t>(static_cast<const uint8_t*>(nl) - buf);
    size_t line_end = eol;
    if (line_end > start && buf[line_end - 1] == kCr) line_end -= 1;
    if (!IsBlankLine(buf, start, line_end)) {
      double* r = out + records * kRecordFields;
      Counter c;
      r[1] = static_cast<double>(start);
      r[2] = static_cast<double>(line_end);
      if (ReadCounterLine(buf, start, line_end, &c)) {
        r[0] = kCounterLine;
        r[3] = static_cast<double>(c.name_start);
        r[4] = static_cast<double>(c.name_end);
        r[5] = c.unit_start;
        r[6] = c.unit_end;
        r[7] = c.samples;
        r[8] = c.sum;
      } else {
        r[0] = kOtherLine;
      }
      records += 1;
    }
    start = eol + 1;
  }
  return records;
}

}  // namespace jobio
