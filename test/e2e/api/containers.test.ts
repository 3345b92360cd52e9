/**
 * The `container` query parameter (docs/api.md § Log query) end to end: an init container that failed
 * (a terminated `workspace-init`) is readable; the cursor binds the container; unknown containers
 * and sandbox reads with a container are 400 RUNTIME_LOGS_POD_INVALID; a download of a container
 * other than the main one says so in its file name; the view's audit record names the container.
 */
import { describe, expect, it } from "vitest";
import {
  apiSuite,
  auditItems,
  CLUSTER,
  GW_POD,
  HIGH_LIMITS,
  K8S_NS,
  LOGS,
  type Reply,
  scenario,
} from "./support.ts";

const suite = apiSuite(() => {
  const raw = scenario(["INFO gateway up"], { limits: HIGH_LIMITS });
  const gw = raw.clusters[0]?.namespaces[0]?.pods[0] as { containers: Record<string, unknown>[] };
  gw.containers.unshift({
    name: "workspace-init",
    init: true,
    state: {
      terminated: {
        exitCode: 1,
        reason: "Error",
        startedAt: "now-59m",
        finishedAt: "now-58m",
      },
    },
    logs: {
      current: [
        ["now-59m", "INFO cloning workspace"],
        ["now-58m", "ERROR clone failed: repository not found"],
      ],
    },
  });
  return raw;
});
const { get } = suite;

const messages = (reply: Reply): string[] =>
  reply.json.data.records
    .filter((r: { type: string }) => r.type === "line")
    .map((r: { message: string }) => r.message);

describe("the container parameter", () => {
  it("reads a terminated init container, and the cursor keeps following it", async () => {
    const first = await get(`${LOGS}?source=gateway&container=workspace-init`);
    expect(first.status).toBe(200);
    expect(first.json.data.stream).toMatchObject({ pod: GW_POD, container: "workspace-init" });
    expect(messages(first).join("\n")).toContain("clone failed");
    expect(messages(first).join("\n")).not.toContain("gateway up");

    // A line of the main container must not show up in the init container's view.
    suite.stack.sim.append({
      cluster: CLUSTER,
      namespace: K8S_NS,
      pod: GW_POD,
      container: "gateway",
      lines: [[new Date(suite.stack.sim.now().getTime() + 1).toISOString(), "INFO main only"]],
    });
    const poll = await get(`${LOGS}?source=gateway&cursor=${encodeURIComponent(first.json.data.cursor)}`);
    expect(poll.status).toBe(200);
    expect(poll.json.data.stream.container).toBe("workspace-init");
    expect(messages(poll)).not.toContain("INFO main only");

    // The same cursor with another container starts a new view on that container.
    const other = await get(
      `${LOGS}?source=gateway&container=gateway&cursor=${encodeURIComponent(first.json.data.cursor)}`,
    );
    expect(other.status).toBe(200);
    expect(other.json.data.stream.container).toBe("gateway");
    expect(messages(other)).toContain("INFO main only");
  });

  it("defaults to the main container", async () => {
    const reply = await get(`${LOGS}?source=gateway`);
    expect(reply.json.data.stream.container).toBe("gateway");
  });

  it("answers 400 RUNTIME_LOGS_POD_INVALID for a container the Pod does not have, and for the sandbox", async () => {
    for (const path of [
      `${LOGS}?source=gateway&container=sidecar`,
      `${LOGS}?source=agent&container=workspace-init`,
      `${LOGS}/download?source=gateway&container=sidecar`,
      `${LOGS}?source=sandbox&container=gateway`,
    ]) {
      const reply = await get(path);
      expect(reply.status).toBe(400);
      expect(reply.json.error.code).toBe("RUNTIME_LOGS_POD_INVALID");
    }
    const malformed = await get(`${LOGS}?source=gateway&container=Workspace_Init`);
    expect(malformed.json.error).toMatchObject({
      code: "INVALID_REQUEST",
      details: [{ path: "query.container", code: "invalid_value" }],
    });
  });

  it("names a non-main container in the download's file name, and the main one never", async () => {
    const init = await get(`${LOGS}/download?source=gateway&container=workspace-init`);
    expect(init.status).toBe(200);
    expect(init.headers.get("content-disposition")).toBe(
      'attachment; filename="support-d2-gateway-gw-0-workspace-init.log"',
    );
    expect(init.text.split("\n")[0]).toContain("container=workspace-init");
    expect(init.text).toContain("clone failed");
    const viaLogs = await get(`${LOGS}?source=gateway&container=workspace-init&download=true`);
    expect(viaLogs.headers.get("content-disposition")).toBe(
      'attachment; filename="support-d2-gateway-gw-0-workspace-init.log"',
    );
    const main = await get(`${LOGS}/download?source=gateway&container=gateway`);
    expect(main.headers.get("content-disposition")).toBe(
      'attachment; filename="support-d2-gateway-gw-0.log"',
    );
  });

  it("audits the container a view reads", async () => {
    await get(`${LOGS}?source=gateway&container=workspace-init`, "carol");
    const views = (await auditItems(suite.stack)).filter(
      (i) => i.principalId === "carol" && i.outcome === "success",
    );
    expect(views).toContainEqual(
      expect.objectContaining({ pod: GW_POD, container: "workspace-init", grant: "administer" }),
    );
  });
});
