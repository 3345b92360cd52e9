import http from "node:http";
import type { AddressInfo } from "node:net";
import { urlToHttpOptions } from "node:url";
import { describe, expect, it } from "vitest";
import { CallTimeoutError, toServiceError } from "../../../lib/kube/errors.ts";
import { callBudget, callSignal, requestTarget, send } from "../../../lib/kube/transport.ts";

describe("requestTarget", () => {
  it("gives the origin and the request target node:http would take from the URL itself", () => {
    const urls = [
      "https://k8s.example.com:6443/api/v1/namespaces/a/pods?labelSelector=x%3Dy&limit=16",
      "http://127.0.0.1:39811/api/v1/namespaces/tenant-a/pods/gw-0/log?container=gateway&timestamps=true",
      "https://k8s.example.com/k8s/clusters/c-1/api/v1/namespaces/a/pods/p",
      "https://[::1]:6443/version",
      "https://user:p%40ss@k8s.example.com/api",
      "https://k8s.example.com",
      "https://k8s.example.com/api/v1/pods#fragment",
      "http://k8s.example.com/api",
    ];
    for (const url of urls) {
      const { origin, path } = requestTarget(url);
      const expected = urlToHttpOptions(new URL(url));
      const https = url.startsWith("https:");
      expect({ ...origin, path }).toEqual({
        https,
        hostname: expected.hostname?.replace(/^\[(.*)\]$/, "$1"),
        port: expected.port ? Number(expected.port) : https ? 443 : 80,
        ...(expected.auth ? { basicAuth: `Basic ${Buffer.from(expected.auth).toString("base64")}` } : {}),
        path: expected.path,
      });
    }
  });

  it("refuses a scheme other than http and https", () => {
    expect(() => requestTarget("ftp://k8s.example.com/api")).toThrow(TypeError);
  });
});

describe("callSignal", () => {
  const now = () => 1_000;

  it("aborts with the request's reason when the request's signal aborts, and not after dispose", () => {
    const request = new AbortController();
    const call = callSignal(request.signal, 5_000, 10_000, now);
    expect(call.signal.aborted).toBe(false);
    request.abort(new Error("request over"));
    expect(call.signal.aborted).toBe(true);
    expect((call.signal.reason as Error).message).toBe("request over");
    call.dispose();

    const other = new AbortController();
    const disposed = callSignal(other.signal, 5_000, 10_000, now);
    disposed.dispose();
    other.abort(new Error("late"));
    expect(disposed.signal.aborted).toBe(false);
  });

  it("starts aborted for an aborted request, and times out with CallTimeoutError", async () => {
    const request = new AbortController();
    request.abort(new Error("gone"));
    expect(callSignal(request.signal, 5_000, 10_000, now).signal.aborted).toBe(true);

    // The deadline is already past: the timer fires at once (0 ms).
    const timed = callSignal(new AbortController().signal, 5_000, 500, now);
    await new Promise((resolve) => timed.signal.addEventListener("abort", resolve, { once: true }));
    expect(timed.signal.reason).toBeInstanceOf(CallTimeoutError);
    timed.dispose();
  });

  it("tells the deadline's timer from the call's, whatever the clock reads when it fires", async () => {
    // Node's timers count from the loop's cached time, so the deadline's timer can fire while the
    // wall clock still reads just before the deadline: frozen here at 1 000, the deadline at 1 001.
    const scope = (deadline: number) => ({
      clusterId: "c1",
      operation: "list pods",
      requestSignal: new AbortController().signal,
      deadline,
      now,
    });
    const fired = async (timeoutMs: number, deadline: number) => {
      const call = callSignal(new AbortController().signal, timeoutMs, deadline, now);
      await new Promise((resolve) => call.signal.addEventListener("abort", resolve, { once: true }));
      call.dispose();
      return toServiceError(call.signal.reason, scope(deadline)).code;
    };
    expect(await fired(5_000, 1_001)).toBe("RUNTIME_LOGS_TIMEOUT");
    expect(await fired(1, 1_001)).toBe("RUNTIME_LOGS_TIMEOUT"); // a tie: the deadline's too
    expect(await fired(1, 1_005)).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });
});

describe("callBudget", () => {
  const now = () => 1_000;

  it("is the call's timeout while the deadline is further, else the time left (the deadline's)", () => {
    expect(callBudget(5_000, 10_000, now)).toEqual({ ms: 5_000, atDeadline: false });
    expect(callBudget(5_000, 3_000, now)).toEqual({ ms: 2_000, atDeadline: true });
    expect(callBudget(2_000, 3_000, now)).toEqual({ ms: 2_000, atDeadline: true }); // a tie: the deadline's
    expect(callBudget(5_000, 500, now)).toEqual({ ms: 0, atDeadline: true });
  });
});

describe("send with a call budget", () => {
  /** A server that takes requests and never answers them. */
  const silent = async () => {
    const server = http.createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/api/v1/namespaces/a/pods`,
      agent: new http.Agent({ keepAlive: true }),
      close: () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      },
    };
  };
  const request = (url: string, agent: http.Agent) => ({ url, method: "GET", headers: {}, agent });

  it("fails with CallTimeoutError when the budget runs out, telling the deadline's from the call's", async () => {
    const s = await silent();
    try {
      for (const atDeadline of [false, true]) {
        const e = await send(request(s.url, s.agent), {
          signal: new AbortController().signal,
          budget: { ms: 20, atDeadline },
          maxBytes: 1024,
          overflow: "fail",
        }).catch((error: unknown) => error);
        expect(e).toBeInstanceOf(CallTimeoutError);
        expect((e as CallTimeoutError).atDeadline).toBe(atDeadline);
      }
    } finally {
      s.agent.destroy();
      await s.close();
    }
  });

  it("fails with the request's reason when the request's signal aborts first", async () => {
    const s = await silent();
    try {
      const aborted = new AbortController();
      setTimeout(() => aborted.abort(new Error("request over")), 10);
      const e = await send(request(s.url, s.agent), {
        signal: aborted.signal,
        budget: { ms: 5_000, atDeadline: false },
        maxBytes: 1024,
        overflow: "fail",
      }).catch((error: unknown) => error);
      expect((e as Error).message).toBe("request over");
    } finally {
      s.agent.destroy();
      await s.close();
    }
  });
});
