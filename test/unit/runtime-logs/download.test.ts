/** Download rendering and file names (docs/api.md § Download). */
import { describe, expect, it } from "vitest";
import { downloadFileName, type LogPage, renderDownload } from "../../../lib/runtime-logs/index.ts";

const page: LogPage = {
  deploymentId: "dep-1",
  source: "gateway",
  stream: {
    source: "gateway",
    pod: "gateway-0",
    podUid: "u",
    container: "gateway",
    restartCount: 2,
    previous: false,
  },
  observedAt: "2026-01-15T08:00:00.000Z",
  records: [
    { type: "gap", time: null, reason: "cursor_expired", remedy: "Start again." },
    {
      type: "line",
      time: "2026-01-15T07:59:00Z",
      kind: "structured",
      level: "warn",
      message: "slow\u2028call",
      subsystem: "tools",
      fields: { status: 503, url: "/a b", ok: true },
    },
    { type: "line", time: null, kind: "text", level: "unknown", message: "plain" },
    { type: "withheld", time: "2026-01-15T07:59:01Z", count: 3, reason: "malformed" },
  ],
  withheld: 3,
  truncated: false,
  cursor: null,
};

describe("renderDownload", () => {
  it("renders a header and one line per record, no controls, trailing newline", () => {
    expect(renderDownload({ agentId: "agent-a" }, page)).toBe(
      [
        "# agent=agent-a deployment=dep-1 source=gateway pod=gateway-0 container=gateway restartCount=2 observedAt=2026-01-15T08:00:00.000Z withheld=3",
        "- GAP cursor_expired: Start again.",
        '2026-01-15T07:59:00Z WARN structured [tools] slow call status=503 url="/a b" ok=true',
        "- UNKNOWN text plain",
        "2026-01-15T07:59:01Z WITHHELD 3 malformed",
        "",
      ].join("\n"),
    );
  });

  it("no stream: dashes", () => {
    const text = renderDownload({ agentId: "a" }, { ...page, stream: null, records: [] });
    expect(text).toContain("pod=- container=- restartCount=-");
    expect(text.endsWith("\n")).toBe(true);
  });
});

describe("downloadFileName", () => {
  it("joins the parts and replaces unsafe characters", () => {
    expect(
      downloadFileName({ agentId: "a", deploymentId: "d", source: "gateway", pod: "gw-0", previous: true }),
    ).toBe("a-d-gateway-gw-0-previous.log");
    expect(downloadFileName({ agentId: "a/b", deploymentId: 'd"1', source: "agent", pod: "p q" })).toBe(
      "a_b-d_1-agent-p_q.log",
    );
    expect(downloadFileName({ agentId: "a", deploymentId: "d", source: "sandbox" })).toBe("a-d-sandbox.log");
  });
});
