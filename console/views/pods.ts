/**
 * Pod cards: phase, readiness, per-container restarts with the last attribution, last termination,
 * and up to five Warning Events (muted when the Pod is healthy now: they are history).
 */
import { byId, el } from "../dom.ts";
import { hourMinuteUtc, isHealthy, restartSummary, terminationLine, warnings } from "../format.ts";
import type { Container, Pod, RestartRecord, Runtime } from "../types.ts";

function containerItem(pod: Pod, c: Container, restarts: RestartRecord[]): HTMLLIElement {
  const state = c.reason ? `${c.state} (${c.reason})` : c.state;
  const summary = restartSummary(c, restarts, pod.name);
  const termination = terminationLine(c);
  return el(
    "li",
    { class: "container" },
    el("span", { class: "cname" }, c.init ? `${c.name} (init)` : c.name),
    el("span", { class: `state state-${c.state}` }, state),
    el("span", { class: c.ready ? "ok" : "bad" }, c.ready ? "ready" : "not ready"),
    summary ? el("p", { class: "restarts" }, summary) : el("p", { class: "restarts muted" }, "no restarts"),
    termination ? el("p", { class: "termination" }, `Last termination: ${termination}`) : null,
  );
}

function podCard(pod: Pod, restarts: RestartRecord[]): HTMLElement {
  const healthy = isHealthy(pod);
  const warns = warnings(pod);
  const titleId = `pod-${pod.uid}`;
  return el(
    "article",
    { class: `pod-card ${healthy ? "healthy" : "unhealthy"}`, "aria-labelledby": titleId },
    el(
      "h3",
      { id: titleId },
      el("span", { class: "role" }, pod.role === "gateway" ? "Gateway" : "Harness"),
      " ",
      el("span", { class: "pname" }, pod.name),
    ),
    el(
      "p",
      { class: "pod-meta" },
      el("span", { class: `phase phase-${pod.phase.toLowerCase()}` }, pod.phase),
      el("span", { class: pod.ready ? "ok" : "bad" }, pod.ready ? "Ready" : "Not ready"),
      el("span", { class: "muted" }, `${pod.cluster} plane`),
      pod.createdAt ? el("span", { class: "muted" }, `created ${hourMinuteUtc(pod.createdAt)}`) : null,
    ),
    el(
      "ul",
      { class: "containers", "aria-label": "Containers" },
      ...pod.containers.map((c) => containerItem(pod, c, restarts)),
    ),
    warns.length > 0
      ? el(
          "div",
          { class: healthy ? "warnings earlier" : "warnings" },
          el(
            "h4",
            {},
            healthy ? "Earlier warnings (the Pod is healthy now)" : `Warning Events (${warns.length} newest)`,
          ),
          el(
            "ul",
            {},
            ...warns.map((e) =>
              el(
                "li",
                {},
                el("span", { class: "ereason" }, e.reason),
                e.count > 1 ? el("span", { class: "ecount" }, `×${e.count}`) : null,
                el("span", { class: "etime" }, hourMinuteUtc(e.lastObservedAt)),
                el("span", { class: "emsg" }, e.message),
              ),
            ),
          ),
        )
      : null,
  );
}

export class PodsView {
  private readonly root = byId("pod-cards", HTMLDivElement);

  render(runtime: Runtime | null): void {
    if (!runtime) {
      this.root.replaceChildren();
      return;
    }
    if (runtime.pods.length === 0) {
      this.root.replaceChildren(
        el(
          "p",
          { class: "no-pod", role: "status" },
          "No running Pod: this deployment has no Pods right now, so there is nothing to read.",
        ),
      );
      return;
    }
    this.root.replaceChildren(...runtime.pods.map((p) => podCard(p, runtime.restarts ?? [])));
  }
}
