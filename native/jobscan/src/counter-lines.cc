// See counter-lines.h. The rules are the JavaScript scanner's (keyLine() and counter() in
// exporter/src/parsers/lustre-jobstats.ts); where that scanner would report the line as malformed,
// or read a value through BigInt (over 15 digits), the line is returned as kOtherLine instead, so the
// JavaScript scanner decides it, with its own counts and errors.
#include "counter-lines.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

namespace jobio {
namespace {

constexpr uint8_t kNl = '\n', kCr = '\r', kSpace = ' ', kTab = '\t', kDash = '-', kColon = ':', kComma = ',';
constexpr uint8_t kLbrace = '{', kRbrace = '}';

/** kNameByte[c]: c is a byte of names and keys ([A-Za-z0-9_]); one load instead of four ranges. */
struct NameBytes {
  bool is[256];
  constexpr NameBytes() : is() {
    for (int c = 0; c < 256; ++c) is[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
};
constexpr NameBytes kNameBytes;

inline bool IsNameByte(uint8_t c) { return kNameBytes.is[c]; }

inline bool IsBlank(uint8_t c) { return c == kSpace || c == kTab; }

/**
 * The first position from p that is not a space (end if none). job_stats pads its values with runs
 * of spaces (half the bytes of a 2.14 line): eight are tested at once where the machine allows.
 */
inline size_t SkipSpaces(const uint8_t* buf, size_t p, size_t end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (p + 8 <= end) {
    uint64_t word;
    std::memcpy(&word, buf + p, sizeof word);
    word ^= 0x2020202020202020ULL;
    if (word != 0) return p + (__builtin_ctzll(word) >> 3);
    p += 8;
  }
#endif
  while (p < end && buf[p] == kSpace) p += 1;
  return p;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/** The first `length` bytes of `text` as a little-endian word, and the mask of those bytes. */
constexpr uint64_t WordOf(const char* text, int length) {
  uint64_t word = 0;
  for (int i = length - 1; i >= 0; --i) word = (word << 8) | static_cast<uint8_t>(text[i]);
  return word;
}
constexpr uint64_t MaskOf(int length) { return length == 8 ? ~0ULL : (1ULL << (8 * length)) - 1; }

struct KnownKey {
  uint64_t word;
  uint64_t mask;
  size_t length;  // without the colon
};
#define JOBIO_KEY(text) {WordOf(text, sizeof(text) - 1), MaskOf(sizeof(text) - 1), sizeof(text) - 2}
/** The keys of a 2.14 counter line, in their order there, each with its colon. */
constexpr KnownKey kKnownKeys[] = {JOBIO_KEY("samples:"), JOBIO_KEY("unit:"), JOBIO_KEY("min:"), JOBIO_KEY("max:"),
                                   JOBIO_KEY("sum:"),     JOBIO_KEY("sumsq:"), JOBIO_KEY("hist:")};
#undef JOBIO_KEY
#endif

/**
 * The length of the key at p when it is one of the usual ones followed by its colon (then the run of
 * name bytes there is exactly that key), else 0. Eight bytes compared at once: a known key costs no
 * branch a byte.
 */
inline size_t KnownKeyLength(const uint8_t* buf, size_t p, size_t end, size_t* next) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr size_t kKeys = sizeof kKnownKeys / sizeof kKnownKeys[0];
  if (p + 8 > end) return 0;
  uint64_t word;
  std::memcpy(&word, buf + p, sizeof word);
  // The keys come in their order: the one after the last matched is tried first (a branch that holds).
  const KnownKey& guess = kKnownKeys[*next];
  if ((word & guess.mask) == guess.word) {
    *next = *next + 1 == kKeys ? 0 : *next + 1;
    return guess.length;
  }
  for (size_t i = 0; i < kKeys; ++i) {
    if ((word & kKnownKeys[i].mask) == kKnownKeys[i].word) {
      *next = i + 1 == kKeys ? 0 : i + 1;
      return kKnownKeys[i].length;
    }
  }
#else
  (void)buf;
  (void)p;
  (void)end;
  (void)next;
#endif
  return 0;
}

/**
 * The first position from p that is not an ASCII digit (end if none): eight bytes tested at once
 * where the machine allows.
 */
inline size_t SkipDigits(const uint8_t* buf, size_t p, size_t end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (p + 8 <= end) {
    uint64_t word;
    std::memcpy(&word, buf + p, sizeof word);
    // A digit's high nibble is 3 and its low nibble at most 9 (low + 6 stays under 16).
    const uint64_t high_not_3 = (word & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL;
    const uint64_t low_over_9 = ((word & 0x0F0F0F0F0F0F0F0FULL) + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL;
    const uint64_t not_digit = high_not_3 | low_over_9;
    if (not_digit != 0) return p + (__builtin_ctzll(not_digit) >> 3);
    p += 8;
  }
#endif
  while (p < end && static_cast<uint8_t>(buf[p] - '0') <= 9) p += 1;
  return p;
}

/** The first position from p that is not a space or a tab (end if none). */
inline size_t SkipBlanks(const uint8_t* buf, size_t p, size_t end) {
  for (;;) {
    p = SkipSpaces(buf, p, end);
    if (p >= end || buf[p] != kTab) return p;
    p += 1;
  }
}

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
  size_t next_key = 0;
  c->unit_start = -1;
  c->unit_end = -1;
  c->samples = -1;
  c->sum = -1;
  while (p < end) {
    p = SkipSpaces(buf, p, end);
    if (p >= end) return false;
    if (buf[p] == kRbrace) {
      p += 1;
      closed = true;
      break;
    }
    const size_t key_start = p;
    size_t key_length = KnownKeyLength(buf, p, end, &next_key);
    if (key_length != 0) {
      p += key_length;
    } else {
      while (p < end && IsNameByte(buf[p])) p += 1;
      key_length = p - key_start;
    }
    if (key_length == 0 || p >= end || buf[p] != kColon) return false;
    p = SkipSpaces(buf, p + 1, end);
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
      // In an integer (wraps harmlessly past 19 digits, which are refused below): exact, and no
      // floating-point latency per digit. min, max and sumsq are only checked to be digits.
      uint64_t value = 0;
      if (is_samples || is_sum) {
        while (p < end && static_cast<uint8_t>(buf[p] - '0') <= 9) {
          value = value * 10 + static_cast<uint64_t>(buf[p] - '0');
          p += 1;
        }
      } else {
        p = SkipDigits(buf, p, end);
      }
      const size_t digits = p - digits_start;
      if (digits == 0) return false;
      if (is_samples || is_sum) {
        // Longer values take the JavaScript scanner's BigInt path (and its range check).
        if (digits > 15) return false;
        if (is_samples) {
          c->samples = static_cast<double>(value);
          has_samples = true;
        } else {
          c->sum = static_cast<double>(value);
        }
      }
    }
    p = SkipSpaces(buf, p, end);
    if (p >= end) return false;
    if (buf[p] == kComma) {
      p += 1;
    } else if (buf[p] != kRbrace) {
      return false;
    }
  }
  p = SkipSpaces(buf, p, end);
  return closed && has_samples && p == end;
}

/**
 * The digit count of buf[p, p + width) when it is printf's `%<width>llu`: spaces, then at least one
 * digit up to the last byte; 0 for anything else (the caller then reads the line the general way).
 */
inline size_t PaddedDigits(const uint8_t* buf, size_t p, size_t width) {
  const size_t digits_start = SkipSpaces(buf, p, p + width);
  if (digits_start == p + width || SkipDigits(buf, digits_start, p + width) != p + width) return 0;
  return p + width - digits_start;
}

/** The value of the `digits` digits ending at `end` (at most 15: exact in a double). */
inline double DigitsValue(const uint8_t* buf, size_t end, size_t digits) {
  uint64_t value = 0;
  for (size_t i = end - digits; i < end; ++i) value = value * 10 + static_cast<uint64_t>(buf[i] - '0');
  return static_cast<double>(value);
}

/** Whether buf[p, p + N - 1) spells the literal `text` (compared as words by the compiler). */
template <size_t N>
inline bool Spells(const uint8_t* buf, size_t p, const char (&text)[N]) {
  return std::memcmp(buf + p, text, N - 1) == 0;
}

/**
 * ReadBraces() for the braces exactly as Lustre 2.14+ prints them, which is nearly every line of a
 * large file: `{ samples: %11llu, unit: %5s, min: %8llu, max: %8llu, sum: %16llu, sumsq: %18llu[,
 * hist: { ... }] }`. Each key and value is checked at its fixed place (the keys as words) rather than
 * found by the general loop's walk of ~25 runs a line. False when anything differs (a value wider than
 * its column, another unit width, a 2.10 line, a value over 15 digits): the caller then runs
 * ReadBraces(), so a line accepted here is one ReadBraces() reads the same. With find_eol, `end` is that
 * of the scanned bytes rather than the line's: *eol is set to the line's newline (or `end`) and
 * *line_end to the line's end before any CR, as ScanLines() finds them.
 */
bool ReadBraces214Within(const uint8_t* buf, size_t p, size_t end, bool find_eol, Counter* c, size_t* eol, size_t* line_end) {
  // Offsets from the `{`; sumsq, the last number, may be wider than its column (it often is: squares
  // of byte counts pass 10^18), so what follows it is found from its end.
  constexpr size_t kSamples = 11, kUnit = 30, kMin = 42, kMax = 57, kSum = 72, kSumsq = 97;
  if (end - p < kSumsq + 18 + 2) return false;
  if (!Spells(buf, p, "{ samples: ") || !Spells(buf, p + kSamples + 11, ", unit: ") || !Spells(buf, p + kUnit + 5, ", min: ") ||
      !Spells(buf, p + kMin + 8, ", max: ") || !Spells(buf, p + kMax + 8, ", sum: ") || !Spells(buf, p + kSum + 16, ", sumsq: ")) {
    return false;
  }
  for (size_t i = kUnit; i < kUnit + 5; ++i) {
    if (!IsNameByte(buf[p + i])) return false;
  }
  const size_t samples_digits = PaddedDigits(buf, p + kSamples, 11);
  const size_t sum_digits = PaddedDigits(buf, p + kSum, 16);
  if (samples_digits == 0 || sum_digits == 0 || sum_digits > 15 || PaddedDigits(buf, p + kMin, 8) == 0 || PaddedDigits(buf, p + kMax, 8) == 0) return false;
  const size_t sumsq_start = SkipSpaces(buf, p + kSumsq, end);
  size_t q = SkipDigits(buf, sumsq_start, end);
  if (q == sumsq_start) return false;
  if (find_eol) {
    // Every byte up to q was checked to be something other than a newline, so the line's end is the
    // first newline from q: searched over its last ~20 bytes rather than the whole line.
    const void* nl = std::memchr(buf + q, kNl, end - q);
    *eol = nl == nullptr ? end : static_cast<size_t>(static_cast<const uint8_t*>(nl) - buf);
    end = *eol;
    if (buf[end - 1] == kCr) end -= 1;
  }
  *line_end = end;
  q = SkipSpaces(buf, q, end);
  if (q < end && buf[q] == kComma) {
    // `, hist: { 4K: 1, ... }`: skipped to its closing brace, as ReadBraces() does.
    if (end - q < 9 || !Spells(buf, q, ", hist: {")) return false;
    const void* close = std::memchr(buf + q + 9, kRbrace, end - q - 9);
    if (close == nullptr) return false;
    q = SkipSpaces(buf, static_cast<size_t>(static_cast<const uint8_t*>(close) - buf) + 1, end);
  }
  if (q >= end || buf[q] != kRbrace || SkipSpaces(buf, q + 1, end) != end) return false;
  c->unit_start = static_cast<double>(p + kUnit);
  c->unit_end = static_cast<double>(p + kUnit + 5);
  c->samples = DigitsValue(buf, p + kSamples + 11, samples_digits);
  c->sum = DigitsValue(buf, p + kSum + 16, sum_digits);
  return true;
}

/** ReadBraces214Within() for a line whose end is known. */
inline bool ReadBraces214(const uint8_t* buf, size_t p, size_t line_end, Counter* c) {
  size_t eol, end;
  return ReadBraces214Within(buf, p, line_end, false, c, &eol, &end);
}

/**
 * `1723102025.057286226 secs.nsecs` from p into *seconds: the digits and dots there as JavaScript's
 * Number() reads them (NaN unless one number: at least a digit, at most one dot), correctly rounded
 * (from_chars, as Number()). False when this library has no from_chars for doubles: the line is then
 * the JavaScript scanner's.
 */
bool ReadSeconds(const uint8_t* buf, size_t p, size_t end, double* seconds) {
  const size_t start = p;
  int dots = 0;
  int digits = 0;
  while (p < end && ((buf[p] >= '0' && buf[p] <= '9') || buf[p] == '.')) {
    if (buf[p] == '.') dots += 1;
    else digits += 1;
    p += 1;
  }
  if (digits == 0 || dots > 1) {
    *seconds = std::nan("");
    return true;
  }
#if defined(__cpp_lib_to_chars)
  const char* first = reinterpret_cast<const char*>(buf + start);
  const char* last = reinterpret_cast<const char*>(buf + p);
  const std::from_chars_result read = std::from_chars(first, last, *seconds);
  // Out of range (hundreds of digits): Number() says Infinity or 0; left to it.
  return read.ec == std::errc() && read.ptr == last;
#else
  return false;
#endif
}

/**
 * What one line is, as the JavaScript scanner's line() would take it. kNoLine: a line that changes
 * nothing whatever the scanner's state (blank, or `name: value` for a name it does not keep).
 */
int ReadLine(const uint8_t* buf, size_t line_start, size_t line_end, double* r, NameTable* names) {
  size_t p = SkipBlanks(buf, line_start, line_end);
  if (p >= line_end) return kNoLine;
  // Column 1 (lctl headers, 2.15.0's `snapshot_time   :`) and `- job_id:` lines are the JavaScript scanner's.
  if (p == line_start || buf[p] == kDash) return kOtherLine;
  const size_t name_start = p;
  while (p < line_end && IsNameByte(buf[p])) p += 1;
  const size_t name_end = p;
  p = SkipBlanks(buf, p, line_end);
  if (name_end == name_start || p >= line_end || buf[p] != kColon) return kOtherLine;
  p = SkipBlanks(buf, p + 1, line_end);
  if (p < line_end && buf[p] == kLbrace) {
    Counter c;
    c.name_start = name_start;
    c.name_end = name_end;
    if (!ReadBraces214(buf, p, line_end, &c) && !ReadBraces(buf, p, line_end, &c)) return kOtherLine;
    r[3] = static_cast<double>(c.name_start);
    r[4] = static_cast<double>(c.name_end);
    r[5] = c.unit_start;
    r[6] = c.unit_end;
    r[7] = c.samples;
    r[8] = c.sum;
    r[9] = names->CounterName(buf, name_start, name_end);
    r[10] = c.unit_start < 0 ? -1 : names->UnitName(buf, static_cast<size_t>(c.unit_start), static_cast<size_t>(c.unit_end));
    return kCounterLine;
  }
  const size_t name_length = name_end - name_start;
  // `job_stats:` with a value is malformed: the JavaScript scanner counts it.
  if (name_length == 9 && std::memcmp(buf + name_start, "job_stats", 9) == 0) return kOtherLine;
  if (name_length == 10 && std::memcmp(buf + name_start, "start_time", 10) == 0) {
    return ReadSeconds(buf, p, line_end, &r[7]) ? kStartTimeLine : kOtherLine;
  }
  // snapshot_time, elapsed_time and fields of future versions carry nothing the exporter keeps.
  return kNoLine;
}

/**
 * A counter line as Lustre 2.14+ prints it (`  name:   { samples: ... }`, see ReadBraces214Within()),
 * read from its first byte before its newline is known: end is that of the scanned bytes. False for
 * anything else, and then ReadLine() reads the line the general way; else r holds its record (as
 * ReadLine() writes it) and *eol, *line_end its newline and end.
 */
bool FastCounterLine(const uint8_t* buf, size_t line_start, size_t end, double* r, NameTable* names, size_t* eol, size_t* line_end) {
  // No byte checked here can be a newline, so these walks stay in the line without knowing its end.
  size_t p = SkipSpaces(buf, line_start, end);
  if (p == line_start || p >= end || !IsNameByte(buf[p])) return false;
  const size_t name_start = p;
  while (p < end && IsNameByte(buf[p])) p += 1;
  const size_t name_end = p;
  if (p >= end || buf[p] != kColon) return false;
  p = SkipSpaces(buf, p + 1, end);
  if (p >= end || buf[p] != kLbrace) return false;
  Counter c;
  if (!ReadBraces214Within(buf, p, end, true, &c, eol, line_end)) return false;
  r[3] = static_cast<double>(name_start);
  r[4] = static_cast<double>(name_end);
  r[5] = c.unit_start;
  r[6] = c.unit_end;
  r[7] = c.samples;
  r[8] = c.sum;
  r[9] = names->CounterName(buf, name_start, name_end);
  r[10] = names->UnitName(buf, static_cast<size_t>(c.unit_start), static_cast<size_t>(c.unit_end));
  return true;
}

}  // namespace

double NameTable::NumberOf(const uint8_t* buf, size_t start, size_t end) {
  // FNV-1a: names are short (under 20 bytes); a hit costs no allocation, one compare.
  if (end - start > kMaxNameBytes) return -1;
  uint32_t hash = 2166136261u;
  for (size_t i = start; i < end; ++i) hash = (hash ^ buf[i]) * 16777619u;
  const size_t length = end - start;
  for (size_t slot = hash & (kSlots - 1);; slot = (slot + 1) & (kSlots - 1)) {
    const int number = slots_[slot];
    if (number < 0) {
      if (names_.size() >= kMaxNames) return -1;
      slots_[slot] = static_cast<int>(names_.size());
      names_.emplace_back(reinterpret_cast<const char*>(buf + start), length);
      return slots_[slot];
    }
    const std::string& name = names_[static_cast<size_t>(number)];
    if (name.size() == length && std::memcmp(name.data(), buf + start, length) == 0) return number;
  }
}

double NameTable::NumberGuessing(int guess, const uint8_t* buf, size_t start, size_t end) {
  if (guess >= 0) {
    const std::string& name = names_[static_cast<size_t>(guess)];
    if (name.size() == end - start && std::memcmp(name.data(), buf + start, end - start) == 0) return guess;
  }
  return NumberOf(buf, start, end);
}

double NameTable::CounterName(const uint8_t* buf, size_t start, size_t end) {
  const double number = NumberGuessing(last_name_ < 0 ? -1 : follows_[static_cast<size_t>(last_name_)], buf, start, end);
  if (last_name_ >= 0 && number >= 0) follows_[static_cast<size_t>(last_name_)] = static_cast<int>(number);
  last_name_ = static_cast<int>(number);
  return number;
}

double NameTable::UnitName(const uint8_t* buf, size_t start, size_t end) {
  const double number = NumberGuessing(last_unit_, buf, start, end);
  last_unit_ = static_cast<int>(number);
  return number;
}

size_t ScanLines(const uint8_t* buf, size_t start, size_t end, double* out, size_t capacity, NameTable* names) {
  size_t records = 0;
  while (start < end && records < capacity) {
    double* r = out + records * kRecordFields;
    size_t eol, line_end;
    int kind = kCounterLine;
    if (!FastCounterLine(buf, start, end, r, names, &eol, &line_end)) {
      const void* nl = std::memchr(buf + start, kNl, end - start);
      eol = nl == nullptr ? end : static_cast<size_t>(static_cast<const uint8_t*>(nl) - buf);
      line_end = eol;
      if (line_end > start && buf[line_end - 1] == kCr) line_end -= 1;
      kind = ReadLine(buf, start, line_end, r, names);
    }
    if (kind != kNoLine) {
      r[0] = kind;
      r[1] = static_cast<double>(start);
      r[2] = static_cast<double>(line_end);
      records += 1;
    }
    start = eol + 1;
  }
  return records;
}

}  // namespace jobio
