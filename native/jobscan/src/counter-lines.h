// The hot part of the job_stats scanner (exporter/src/parsers/lustre-jobstats.ts) in C++: it splits
// bytes into lines, reads the counter lines (`  name: { samples: N, unit: U, ... }`) and start_time,
// and leaves out the lines that change nothing (blank, snapshot_time, elapsed_time). Every other line,
// and any line it is not sure of, is handed back whole for the JavaScript scanner to read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace jobio {

/** Kinds of record, in field 0 of each. */
enum LineRecord : int { kNoLine = 0, kOtherLine = 1, kCounterLine = 2, kStartTimeLine = 3 };

/**
 * Fields of one record (doubles: samples and sums up to 15 digits are exact): kind, line start, line
 * end (before CR/LF), then for a counter line: name start, name end, unit start (-1: no unit), unit
 * end, samples, sum (-1: none), name number, unit number (NameTable; -1: none or table full); for a
 * start_time line: its seconds in field 7 (NaN if not a number).
 */
constexpr int kRecordFields = 11;

/**
 * Counter and unit names by number, so JavaScript makes each name's string once, not once a line
 * (about 17 names and 3 units a 2.14 entry). One table per Node environment (each worker has its
 * own); numbers are never reused. Bounded: garbage input must not grow it without limit.
 */
class NameTable {
 public:
  static constexpr size_t kMaxNames = 4096;
  /**
   * Longer names are not numbered (JavaScript reads them from the line): Lustre's are under 20
   * bytes, and garbage lines must not pin 4096 long names for the life of the process.
   */
  static constexpr size_t kMaxNameBytes = 64;
  /** The number of buf[start, end), numbering it if new; -1 when the table is full or the name too long. */
  double NumberOf(const uint8_t* buf, size_t start, size_t end);
  /**
   * NumberOf() for the name of a counter line, trying first the name that followed the last one
   * the previous time (the lines of an entry come in the same order entry after entry).
   */
  double CounterName(const uint8_t* buf, size_t start, size_t end);
  /** NumberOf() for a unit, trying first the last unit. */
  double UnitName(const uint8_t* buf, size_t start, size_t end);

 private:
  /** `guess` if it names buf[start, end), else NumberOf(). */
  double NumberGuessing(int guess, const uint8_t* buf, size_t start, size_t end);
  /** The name read after each name, the last time (-1: none yet). */
  std::vector<int> follows_ = std::vector<int>(kMaxNames, -1);
  int last_name_ = -1;
  int last_unit_ = -1;
  /** Open addressing over the names' numbers (-1: empty), twice kMaxNames so probes stay short. */
  static constexpr size_t kSlots = 2 * kMaxNames;
  std::vector<std::string> names_;
  std::vector<int> slots_ = std::vector<int>(kSlots, -1);
};

/**
 * Scans the lines of buf[start, end) (the last may lack its newline) into at most `capacity` records
 * of `out`, returning how many; lines that change nothing make none. When `out` fills up it stops after the line of
 * its last record.
 */
size_t ScanLines(const uint8_t* buf, size_t start, size_t end, double* out, size_t capacity, NameTable* names);

}  // namespace jobio
