/**
 * Extracts one file from a zip archive with node:zlib: the end-of-central-directory record, the
 * entry's central header, its local header, then the stored or deflated bytes streamed to disk.
 * The CRC-32 and size are checked. Enough for the archives test tools come in (no zip64, no
 * encryption); anything else is an error.
 */
import { closeSync, createReadStream, createWriteStream, fstatSync, openSync, readSync } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32, createInflateRaw } from "node:zlib";

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

interface Entry {
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

function findEntry(fd: number, name: string): Entry {
  const size = fstatSync(fd).size;
  // The EOCD record is 22 bytes plus a comment of at most 65535.
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = readAt(fd, size - tailLength, tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("not a zip archive (no end of central directory)");
  const count = tail.readUInt16LE(eocd + 10);
  const dirSize = tail.readUInt32LE(eocd + 12);
  const dirOffset = tail.readUInt32LE(eocd + 16);
  if (dirOffset === 0xffffffff || count === 0xffff) throw new Error("zip64 archives are not supported");
  const dir = readAt(fd, dirOffset, dirSize);
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (dir.readUInt32LE(at) !== CENTRAL) throw new Error("corrupt zip central directory");
    const nameLength = dir.readUInt16LE(at + 28);
    const extraLength = dir.readUInt16LE(at + 30);
    const commentLength = dir.readUInt16LE(at + 32);
    const entryName = dir.toString("utf8", at + 46, at + 46 + nameLength);
    if (entryName === name) {
      return {
        method: dir.readUInt16LE(at + 10),
        crc: dir.readUInt32LE(at + 16),
        compressedSize: dir.readUInt32LE(at + 20),
        size: dir.readUInt32LE(at + 24),
        localOffset: dir.readUInt32LE(at + 42),
      };
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`${name} is not in the archive`);
}

/** Writes `entryName` of `archive` to `target` (mode `mode`); returns the bytes written. */
export async function extractEntry(
  archive: string,
  entryName: string,
  target: string,
  mode = 0o644,
): Promise<number> {
  const fd = openSync(archive, "r");
  let entry: Entry;
  let dataOffset: number;
  try {
    entry = findEntry(fd, entryName);
    const local = readAt(fd, entry.localOffset, 30);
    if (local.readUInt32LE(0) !== LOCAL) throw new Error("corrupt zip local header");
    dataOffset = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  } finally {
    closeSync(fd);
  }
  if (entry.method !== 0 && entry.method !== 8)
    throw new Error(`zip method ${entry.method} is not supported`);
  // An empty body is an empty read (a stream's inclusive `end` cannot say "no bytes").
  const source =
    entry.compressedSize === 0
      ? Readable.from([])
      : createReadStream(archive, { start: dataOffset, end: dataOffset + entry.compressedSize - 1 });
  const sink = createWriteStream(target, { mode });
  let crc = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      crc = crc32(chunk, crc);
      done(null, chunk);
    },
  });
  if (entry.method === 8) await pipeline(source, createInflateRaw(), check, sink);
  else await pipeline(source, check, sink);
  if (sink.bytesWritten !== entry.size) {
    throw new Error(`${entryName}: wrote ${sink.bytesWritten} bytes, the archive says ${entry.size}`);
  }
  if (crc >>> 0 !== entry.crc) throw new Error(`${entryName}: CRC-32 mismatch`);
  return sink.bytesWritten;
}
