/**
 * The console's favicon: a 16×16 32-bit ICO drawn in code (a dark tile with three log lines), so no
 * binary file lives in the repository. The console build writes it next to the page; the local
 * stack serves the same bytes at `/favicon.ico`.
 */

const SIZE = 16;
type Rgba = [number, number, number, number];

const BACKGROUND: Rgba = [0x1f, 0x29, 0x37, 0xff];
const LINES: { y: number; from: number; to: number; color: Rgba }[] = [
  { y: 4, from: 3, to: 12, color: [0x4a, 0xde, 0x80, 0xff] },
  { y: 8, from: 3, to: 9, color: [0xe5, 0xe7, 0xeb, 0xff] },
  { y: 12, from: 3, to: 11, color: [0xf8, 0x71, 0x71, 0xff] },
];

function pixel(x: number, y: number): Rgba {
  // Rounded corners: the four corner pixels stay transparent.
  const corner = (x === 0 || x === SIZE - 1) && (y === 0 || y === SIZE - 1);
  if (corner) return [0, 0, 0, 0];
  for (const line of LINES) {
    if ((y === line.y || y === line.y + 1) && x >= line.from && x <= line.to) return line.color;
  }
  return BACKGROUND;
}

function buildIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  // BMP rows are stored bottom-up, as BGRA.
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row;
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x, y);
      pixels.set([b, g, r, a], (row * SIZE + x) * 4);
    }
  }
  const andMask = Buffer.alloc(SIZE * 4); // 1 bit per pixel, rows padded to 32 bits; all opaque (alpha rules)
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0); // BITMAPINFOHEADER size
  header.writeInt32LE(SIZE, 4);
  header.writeInt32LE(SIZE * 2, 8); // XOR image + AND mask
  header.writeUInt16LE(1, 12); // planes
  header.writeUInt16LE(32, 14); // bits per pixel
  header.writeUInt32LE(pixels.length + andMask.length, 20);
  const image = Buffer.concat([header, pixels, andMask]);
  const dir = Buffer.alloc(6 + 16);
  dir.writeUInt16LE(0, 0);
  dir.writeUInt16LE(1, 2); // type: icon
  dir.writeUInt16LE(1, 4); // one image
  dir.writeUInt8(SIZE, 6);
  dir.writeUInt8(SIZE, 7);
  dir.writeUInt16LE(1, 10); // planes
  dir.writeUInt16LE(32, 12); // bits per pixel
  dir.writeUInt32LE(image.length, 14);
  dir.writeUInt32LE(dir.length, 18);
  return Buffer.concat([dir, image]);
}

export const FAVICON_ICO: Buffer = buildIco();
export const FAVICON_CONTENT_TYPE = "image/x-icon";
