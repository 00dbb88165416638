// A minimal zip writer (deflate, Unix permissions, UTF-8 names) so packaging needs no `zip` binary and no
// extra npm package: Grafana installs plugins from zip archives, and the plugin is a few hundred KB, so
// the whole archive is built in memory. No zip64: more than 65,535 entries or 4 GiB is refused.
import { deflateRawSync } from 'node:zlib';
import * as zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) {
    c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return c >>> 0;
});

/** CRC-32 as zip wants it (zlib.crc32 exists from Node 20.15; the table serves older 20.x). */
export function crc32(data) {
  if (typeof zlib.crc32 === 'function') {
    return zlib.crc32(data) >>> 0;
  }
  let c = 0xffffffff;
  for (const byte of data) {
    c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** MS-DOS date and time fields (local time, 2 s resolution, 1980 at the earliest), as zip stores them. */
function dosDateTime(date) {
  const d = date.getFullYear() < 1980 ? new Date(1980, 0, 1) : date;
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

const UTF8_NAMES = 0x0800;
const MADE_BY_UNIX = (3 << 8) | 20;
const LIMIT = 0xffffffff;

/**
 * The zip archive of `entries`, in the order given: `{ name, data?, mtime, mode }`. A name ending in "/"
 * is a directory (no data). Mode is the Unix mode with its file-type bits (0o100644, 0o40755).
 */
export function zip(entries) {
  if (entries.length > 0xffff) {
    throw new Error(`zip: ${entries.length} entries, more than a zip without zip64 holds`);
  }
  const locals = [];
  const central = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const isDir = entry.name.endsWith('/');
    const raw = isDir ? Buffer.alloc(0) : entry.data;
    const deflated = isDir ? raw : deflateRawSync(raw, { level: 9 });
    const stored = deflated.length >= raw.length;
    const body = stored ? raw : deflated;
    if (raw.length > LIMIT || offset > LIMIT) {
      throw new Error(`zip: ${entry.name} is past 4 GiB, which needs zip64`);
    }
    const { time, date } = dosDateTime(entry.mtime);
    const crc = crc32(raw);
    const method = stored ? 0 : 8;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(MADE_BY_UNIX, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(UTF8_NAMES, 8);
    header.writeUInt16LE(method, 10);
    header.writeUInt16LE(time, 12);
    header.writeUInt16LE(date, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(body.length, 20);
    header.writeUInt32LE(raw.length, 24);
    header.writeUInt16LE(name.length, 28);
    // extra field length 0, comment length 0, disk 0, internal attributes 0 (bytes 30-37)
    // External attributes: the Unix mode in the high 16 bits, the MS-DOS directory bit for directories.
    header.writeUInt32LE(((entry.mode << 16) | (isDir ? 0x10 : 0)) >>> 0, 38);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);

    offset += local.length + name.length + body.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}
