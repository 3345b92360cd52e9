/**
 * The chooser: namespace and Agent inputs, the deployment list (active marked), and the log
 * selection (source, Pod, "previous instance" only when that Pod restarted).
 */
import type { LogSelection } from "../api.ts";
import { byId, el } from "../dom.ts";
import { hourMinuteUtc } from "../format.ts";
import type { Deployment, Runtime, Source, SourceId } from "../types.ts";

export const ID_PATTERN = /^[a-z0-9]([a-z0-9_-]{0,62}[a-z0-9])?$/;

/** Sources to offer when the runtime could not be read (the server still decides). */
const FALLBACK_SOURCES: Source[] = (["gateway", "agent", "sandbox"] as SourceId[]).map((id) => ({
  id,
  kind: id === "sandbox" ? "sandbox" : "container",
  pods: [],
  available: true,
  retention: "",
}));

export class ChooserView {
  readonly form = byId("agent-form", HTMLFormElement);
  readonly namespace = byId("namespace", HTMLInputElement);
  readonly agent = byId("agent", HTMLInputElement);
  readonly deployment = byId("deployment", HTMLSelectElement);
  readonly source = byId("source", HTMLSelectElement);
  readonly pod = byId("pod", HTMLSelectElement);
  readonly previous = byId("previous", HTMLInputElement);
  private readonly previousWrap = byId("previous-wrap", HTMLDivElement);
  private readonly podWrap = byId("pod-wrap", HTMLDivElement);
  private readonly retention = byId("retention", HTMLParagraphElement);
  private sources: Source[] = [];

  /** The IDs typed, or a message saying which one is malformed. */
  agentInput(): { namespaceId: string; agentId: string } | string {
    const namespaceId = this.namespace.value.trim();
    const agentId = this.agent.value.trim();
    if (!ID_PATTERN.test(namespaceId)) return "The namespace ID must be lower-case letters, digits, - or _.";
    if (!ID_PATTERN.test(agentId)) return "The Agent ID must be lower-case letters, digits, - or _.";
    return { namespaceId, agentId };
  }

  setDeployments(list: Deployment[]): void {
    this.deployment.replaceChildren(
      ...list.map((d) => {
        const parts = [d.deploymentId];
        if (d.revision !== null && d.revision !== undefined) parts.push(`rev ${d.revision}`);
        if (d.createdAt) parts.push(`created ${hourMinuteUtc(d.createdAt)}`);
        const label = `${parts.join(" · ")}${d.active ? " — active" : ""}`;
        return el("option", { value: d.deploymentId, selected: d.active }, label);
      }),
    );
    this.deployment.disabled = list.length === 0;
    const active = list.find((d) => d.active) ?? list[0];
    if (active) this.deployment.value = active.deploymentId;
  }

  clearDeployments(): void {
    this.deployment.replaceChildren();
    this.deployment.disabled = true;
    this.setSources(null);
  }

  /** Fills source and Pod lists, keeping the current choice when it still exists. */
  setSources(runtime: Runtime | null, fallback = false): void {
    const keepSource = this.source.value;
    const keepPod = this.pod.value;
    this.sources = runtime ? runtime.sources : fallback ? FALLBACK_SOURCES : [];
    this.source.replaceChildren(
      ...this.sources.map((s) =>
        el("option", { value: s.id }, s.available ? s.id : `${s.id} (no running Pod)`),
      ),
    );
    this.source.disabled = this.sources.length === 0;
    const preferred =
      this.sources.find((s) => s.id === keepSource) ??
      this.sources.find((s) => s.available) ??
      this.sources[0];
    if (preferred) this.source.value = preferred.id;
    this.setPods(keepPod);
  }

  /** Refills the Pod list for the chosen source. */
  setPods(keepPod = ""): void {
    const source = this.currentSource();
    const pods = source?.kind === "container" ? source.pods : [];
    this.podWrap.hidden = !source || source.kind === "sandbox";
    this.pod.replaceChildren(
      ...pods.map((p) =>
        el(
          "option",
          { value: p.name },
          `${p.name} (${p.container}${p.restartCount > 0 ? `, ${p.restartCount} restarts` : ""})`,
        ),
      ),
    );
    this.pod.disabled = pods.length === 0;
    if (pods.some((p) => p.name === keepPod)) this.pod.value = keepPod;
    this.updatePrevious();
    this.retention.textContent = source?.retention ?? "";
  }

  /** "Previous instance" exists only for a Pod whose container restarted. */
  updatePrevious(): void {
    const source = this.currentSource();
    const pod = source?.pods.find((p) => p.name === this.pod.value);
    const can = source?.kind === "container" && (pod?.restartCount ?? 0) > 0;
    this.previousWrap.hidden = !can;
    if (!can) this.previous.checked = false;
  }

  private currentSource(): Source | undefined {
    return this.sources.find((s) => s.id === this.source.value);
  }

  selection(): LogSelection | null {
    const source = this.currentSource();
    if (!source) return null;
    const pod = source.kind === "container" && this.pod.value ? this.pod.value : null;
    return { source: source.id, pod, previous: !this.previousWrap.hidden && this.previous.checked };
  }
}
