/** Small HTTP helpers for the local-stack tests. */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one HTTP/1.1 request written by hand, so tests control exactly what goes on the wire
 * (repeated header lines, raw query strings) — fetch would merge or normalize them.
 */
export function rawRequest(baseUrl: string, lines: string[]): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const h of headerLines) {
        const i = h.indexOf(":");
        headers[h.slice(0, i).toLowerCase()] = h.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine?.split(" ")[1]), headers, body: text.slice(split + 4) });
    });
    socket.write(`${[...lines, `Host: ${hostname}:${port}`, "Connection: close"].join("\r\n")}\r\n\r\n`);
  });
}
