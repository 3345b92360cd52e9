/**
 * Just enough protobuf to read a SelfSubjectAccessReview that kubectl (`auth can-i`) posts as
 * `application/vnd.kubernetes.protobuf`: the `k8s\0` envelope (runtime.Unknown) and the spec's
 * resource/non-resource attributes. Field numbers from k8s.io/api/authorization/v1/generated.proto.
 */

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Fields = Map<number, Buffer[]>;

/** Length-delimited and varint fields of one message; other wire types are skipped. */
function readFields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= buf.length) throw new Error("truncated varint");
      const byte = buf[pos++] as number;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new Error("varint too long");
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 2) {
      const len = varint();
      if (pos + len > buf.length) throw new Error("truncated field");
      const list = out.get(field) ?? [];
      list.push(buf.subarray(pos, pos + len));
      out.set(field, list);
      pos += len;
    } else if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const str = (f: Fields, n: number): string | undefined => f.get(n)?.[0]?.toString("utf8");
const msg = (f: Fields, n: number): Fields | undefined => {
  const b = f.get(n)?.[0];
  return b ? readFields(b) : undefined;
};

export function isKubeProtobuf(body: Buffer): boolean {
  return body.length >= 4 && body.subarray(0, 4).equals(MAGIC);
}

/** The `spec` of a protobuf SelfSubjectAccessReview, in its JSON shape; throws when malformed. */
export function decodeSsarSpec(body: Buffer): Record<string, unknown> {
  const unknown = readFields(body.subarray(4));
  const raw = unknown.get(2)?.[0];
  if (!raw) throw new Error("no object in the envelope");
  const spec = msg(readFields(raw), 2) ?? new Map();
  const out: Record<string, unknown> = {};
  const ra = msg(spec, 1);
  if (ra) {
    const attrs: Record<string, string> = {};
    const names = ["", "namespace", "verb", "group", "version", "resource", "subresource", "name"];
    names.forEach((name, i) => {
      const v = i > 0 ? str(ra, i) : undefined;
      if (v !== undefined && v !== "") attrs[name] = v;
    });
    out.resourceAttributes = attrs;
  }
  const nra = msg(spec, 2);
  if (nra) out.nonResourceAttributes = { path: str(nra, 1) ?? "", verb: str(nra, 2) ?? "" };
  return out;
}
