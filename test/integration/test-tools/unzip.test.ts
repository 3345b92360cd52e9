/**
 * The zip reader the kubectl lookup relies on, against archives written here (stored and deflated,
 * random names, contents and comments) and against damaged ones: it must return exactly the
 * entry's bytes or fail, never write something else.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { extractEntry } from "../../support/unzip.ts";

const dir = mkdtempSync(join(tmpdir(), "unzip-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface File {
  name: string;
  data: Uint8Array;
  deflate: boolean;
}

/** A minimal zip writer (local headers, central directory, end record), independent of the reader. */
function zip(files: File[], comment: string): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name, "utf8");
    const body = f.deflate ? deflateRawSync(f.data) : Buffer.from(f.data);
    const crc = crc32(f.data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(f.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(f.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(f.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(f.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dirBytes = Buffer.concat(centrals);
  const commentBytes = Buffer.from(comment, "utf8");
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(commentBytes.length, 20);
  return Buffer.concat([...locals, dirBytes, end, commentBytes]);
}

const fileArb = fc.record({
  name: fc.stringMatching(/^[a-z0-9/_.-]{1,40}$/),
  data: fc.uint8Array({ maxLength: 4096 }),
  deflate: fc.boolean(),
});
const filesArb = fc.uniqueArray(fileArb, { minLength: 1, maxLength: 6, selector: (f) => f.name });

let n = 0;
const next = () => join(dir, `case-${++n}`);

describe("extractEntry", () => {
  it("returns exactly each entry's bytes, stored or deflated, whatever the archive comment", async () => {
    await fc.assert(
      fc.asyncProperty(filesArb, fc.string({ maxLength: 200 }), fc.nat(), async (files, comment, pick) => {
        const archive = next();
        writeFileSync(archive, zip(files, comment));
        const file = files[pick % files.length]!;
        const target = next();
        const written = await extractEntry(archive, file.name, target);
        expect(written).toBe(file.data.length);
        expect(new Uint8Array(readFileSync(target))).toEqual(file.data);
      }),
      { numRuns: 60 },
    );
  });

  it("names a missing entry", async () => {
    const archive = next();
    writeFileSync(archive, zip([{ name: "a", data: new Uint8Array([1]), deflate: false }], ""));
    await expect(extractEntry(archive, "b", next())).rejects.toThrow("b is not in the archive");
  });

  it("refuses a body whose bytes do not match the recorded CRC-32", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 512 }), fc.nat(), async (data, at) => {
        const bytes = zip([{ name: "f", data, deflate: false }], "");
        const i = 30 + 1 + (at % data.length); // inside the stored body
        bytes[i] = bytes[i]! ^ 0xff;
        const archive = next();
        writeFileSync(archive, bytes);
        await expect(extractEntry(archive, "f", next())).rejects.toThrow("CRC-32 mismatch");
      }),
      { numRuns: 30 },
    );
  });

  it("refuses what is not a zip archive", async () => {
    const archive = next();
    writeFileSync(archive, Buffer.from("not a zip at all"));
    await expect(extractEntry(archive, "f", next())).rejects.toThrow("not a zip archive");
  });
});
