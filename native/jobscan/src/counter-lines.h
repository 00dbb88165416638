// The hot part of the job_stats scanner (exporter/src/parsers/lustre-jobstats.ts) in C++: it splits
// bytes into lines and reads the counter lines (`  name: { samples: N, unit: U, ... }`), 9 lines in 10
// of a 2.14 OST file. Every other line, and any counter line it is not sure of, is handed back whole
// for the JavaScript scanner to read: so the result is the JavaScript scanner's by construction.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jobio {

/** Kinds of record, in field 0 of each. */
enum LineRecord : int { kOtherLine = 1, kCounterLine = 2 };

/**
 * Fields of one record (doubles: samples and sums up to 15 digits are exact):
 * kind, line start, line end (before CR/LF), name start, name end, unit start (-1: no unit), unit end,
 * samples, sum (-1: none).
 */
constexpr int kRecordFields = 9;

/**
 * Scans the lines of buf[start, end) (the last may lack its newline) into at most `capacity` records
 * of `out`, returning how many; blank lines make none. When `out` fills up it stops after the line of
 * its last record.
 */
size_t ScanLines(const uint8_t* buf, size_t start, size_t end, double* out, size_t capacity);

}  // namespace jobio
