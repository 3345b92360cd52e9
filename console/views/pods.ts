/**
 * Pod cards: phase, readiness, per-container restarts with the last attribution, last termination,
 * up to five Warning Events (muted when the Pod is healthy now: they are history), and links to the
 * Pod's logs (a Gateway card also to its Harness's output). Without a running Pod, a link to the
 * active deployment when another one is chosen.
 */
import { byId, el } from "../dom.ts";
import { hourMinuteUtc, isHealthy, readiness, restartSummary, terminationLine, warnings } from "../format.ts";
import { type ViewState, viewSearch } from "../link.ts";
import type { Container, DeploymentPath, Pod, RestartRecord, Runtime } from "../types.ts";

/** Where the cards are and what they may link to. */
export interface PodsContext {
  ref: DeploymentPath;
  /** The Agent's active deployment, when it is not the chosen one. */
  activeDeploymentId: string | null;
}

function containerItem(pod: Pod, c: Container, restarts: RestartRecord[]): HTMLLIElement {
  const state = c.reason ? `${c.state} (${c.reason})` : c.state;
  const summary = restartSummary(c, restarts, pod.name);
  const termination = terminationLine(c);
  const ready = readiness(c);
  return el(
    "li",
    { class: "container" },
    el("span", { class: "cname" }, c.init ? `${c.name} (init)` : c.name),
    el("span", { class: `state state-${c.state}` }, state),
    el("span", { class: ready.tone }, ready.text),
    summary ? el("p", { class: "restarts" }, summary) : el("p", { class: "restarts muted" }, "no restarts"),
    termination ? el("p", { class: "termination" }, `Last termination: ${termination}`) : null,
  );
}

function podCard(
  pod: Pod,
  runtime: Runtime,
  link: (state: ViewState, text: string) => HTMLElement,
  ref: DeploymentPath,
): HTMLElement {
  const restarts = runtime.restarts ?? [];
  const healthy = isHealthy(pod);
  const base = { namespaceId: ref.namespaceId, agentId: ref.agentId, deploymentId: ref.deploymentId };
  const harness =
    pod.role === "gateway" ? runtime.sources.find((s) => s.id === "agent" && s.available) : undefined;
  const harnessPod = harness?.pods[0];
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
    el(
      "p",
      { class: "card-links" },
      link(
        { ...base, source: pod.role, pod: pod.name },
        pod.role === "gateway" ? "Gateway logs" : "Harness logs",
      ),
      harnessPod
        ? link(
            { ...base, source: "agent", pod: harnessPod.name, container: harnessPod.container },
            "Harness output",
          )
        : null,
    ),
  );
}

export class PodsView {
  private readonly root = byId("pod-cards", HTMLDivElement);

  /** `open` is called when a card's link is followed in this tab (the links work as URLs too). */
  constructor(private readonly open: (state: ViewState) => void) {}

  private link = (state: ViewState, text: string): HTMLElement => {
    const a = el("a", { href: viewSearch(state, window.location.search) || "?", class: "view-link" }, text);
    a.addEventListener("click", (event) => {
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      this.open(state);
    });
    return a;
  };

  render(runtime: Runtime | null, context: PodsContext | null = null): void {
    if (!runtime || !context) {
      this.root.replaceChildren();
      return;
    }
    if (runtime.pods.length === 0) {
      const active = context.activeDeploymentId;
      const said = el(
        "p",
        { class: "no-pod", role: "status" },
        "No running Pod: this deployment has no Pods right now, so there is nothing to read.",
      );
      if (!active) {
        this.root.replaceChildren(said);
        return;
      }
      const { namespaceId, agentId } = context.ref;
      const link = this.link(
        { namespaceId, agentId, deploymentId: active },
        `the logs of the active deployment, ${active}`,
      );
      this.root.replaceChildren(said, el("p", { class: "no-pod-link" }, "Read ", link, "."));
      return;
    }
    this.root.replaceChildren(...runtime.pods.map((p) => podCard(p, runtime, this.link, context.ref)));
  }
}
