// A module-loading hook for the lazy-load test: reports every module URL Node loads, on fd 3.

import { writeSync } from "node:fs";
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => writeSync(3, `${url}\n`));
port1.unref();
register(
  "data:text/javascript," +
    encodeURIComponent(
      "let port; export function initialize(d) { port = d.port; }" +
        "export async function load(url, context, next) { port.postMessage(url); return next(url, context); }",
    ),
  { data: { port: port2 }, transferList: [port2] },
);
