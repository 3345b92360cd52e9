/**
 * The chooser: namespace and Agent inputs, the deployment list (active marked), and the log
 * selection (source, Pod, container — init or main — and "previous instance" only when that
 * container restarted).
 */

import { ID_PATTERN } from "../../lib/api/ids.ts";
import { SOURCE_IDS } from "../../lib/api/values.ts";
import type { LogSelection } from "../api.ts";
import { byId, el } from "../dom.ts";
import { hourMinuteUtc } from "../format.ts";
import type { ViewState } from "../link.ts";
import { count } from "../messages.ts";
import type { Container, Deployment, Runtime, Source, SourceId } from "../types.ts";

/** Sources to offer when the runtime could not be read (the server still decides). */
const FALLBACK_SOURCES: Source[] = SOURCE_IDS.map((id) => ({
  id,
  kind: id === "sandbox" ? "sandbox" : "container",
  pods: [],
  available: true,
  retention: "",
}));

/** What a log selection may ask for; each part is taken only if the runtime offers it. */
export type WantedSelection = Pick<ViewState, "source" | "pod" | "container" | "previous">;

/** Replaces a select's options only when they changed, so a re-read never disturbs an open list. */
function setOptions(select: HTMLSelectElement, options: { value: string; label: string }[]): void {
  const same =
    select.options.length === options.length &&
    options.every((o, i) => select.options[i]?.value === o.value && select.options[i]?.text === o.label);
  if (same) return;
  const keep = select.value;
  select.replaceChildren(...options.map((o) => el("option", { value: o.value }, o.label)));
  if (options.some((o) => o.value === keep)) select.value = keep;
}

export class ChooserView {
  readonly form = byId("agent-form", HTMLFormElement);
  readonly namespace = byId("namespace", HTMLInputElement);
  readonly agent = byId("agent", HTMLInputElement);
  readonly deployment = byId("deployment", HTMLSelectElement);
  readonly source = byId("source", HTMLSelectElement);
  readonly pod = byId("pod", HTMLSelectElement);
  readonly container = byId("container", HTMLSelectElement);
  readonly previous = byId("previous", HTMLInputElement);
  private readonly previousWrap = byId("previous-wrap", HTMLDivElement);
  private readonly podWrap = byId("pod-wrap", HTMLDivElement);
  private readonly containerWrap = byId("container-wrap", HTMLDivElement);
  private readonly retention = byId("retention", HTMLParagraphElement);
  private sources: Source[] = [];
  private runtime: Runtime | null = null;
  private deployments: Deployment[] = [];

  /** The IDs typed, or a message saying which one is malformed. */
  agentInput(): { namespaceId: string; agentId: string } | string {
    const namespaceId = this.namespace.value.trim();
    const agentId = this.agent.value.trim();
    if (!ID_PATTERN.test(namespaceId)) return "The namespace ID must be lower-case letters, digits, - or _.";
    if (!ID_PATTERN.test(agentId)) return "The Agent ID must be lower-case letters, digits, - or _.";
    return { namespaceId, agentId };
  }

  /** Fills the list and selects `wanted` when listed, else the active deployment. */
  setDeployments(list: Deployment[], wanted?: string): void {
    this.deployments = list;
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
    const chosen = list.find((d) => d.deploymentId === wanted) ?? list.find((d) => d.active) ?? list[0];
    if (chosen) this.deployment.value = chosen.deploymentId;
  }

  /** The runtime the lists were filled from (null before the first read or after a failure). */
  currentRuntime(): Runtime | null {
    return this.runtime;
  }

  deploymentList(): readonly Deployment[] {
    return this.deployments;
  }

  clearDeployments(): void {
    this.deployments = [];
    this.deployment.replaceChildren();
    this.deployment.disabled = true;
    this.setSources(null);
  }

  /**
   * Fills source, Pod and container lists from the runtime, keeping the current choice when it
   * still exists, or taking `wanted` (a deep link, a card's link) when the runtime offers it.
   */
  setSources(runtime: Runtime | null, fallback = false, wanted?: WantedSelection): void {
    const keep: WantedSelection = wanted ?? {
      source: this.source.value as SourceId,
      pod: this.pod.value,
      container: this.container.value,
      previous: this.previous.checked,
    };
    this.runtime = runtime;
    this.sources = runtime ? runtime.sources : fallback ? FALLBACK_SOURCES : [];
    setOptions(
      this.source,
      this.sources.map((s) => ({ value: s.id, label: sourceLabel(s) })),
    );
    this.source.disabled = this.sources.length === 0;
    const preferred =
      this.sources.find((s) => s.id === keep.source) ??
      this.sources.find((s) => s.available) ??
      this.sources[0];
    if (preferred) this.source.value = preferred.id;
    this.setPods(keep);
  }

  /** Refills the Pod list for the chosen source. */
  setPods(keep: WantedSelection = {}): void {
    const source = this.currentSource();
    const pods = source?.kind === "container" ? source.pods : [];
    this.podWrap.hidden = !source || source.kind === "sandbox";
    setOptions(
      this.pod,
      pods.map((p) => ({
        value: p.name,
        label: `${p.name}${p.restartCount > 0 ? ` (${count(p.restartCount, "restart")})` : ""}`,
      })),
    );
    this.pod.disabled = pods.length === 0;
    if (keep.pod && pods.some((p) => p.name === keep.pod)) this.pod.value = keep.pod;
    this.setContainers(keep);
    this.retention.textContent = source?.retention ?? "";
  }

  /** Refills the container list for the chosen Pod: the source's main container first, then init ones. */
  setContainers(keep: WantedSelection = {}): void {
    const source = this.currentSource();
    const main = this.mainContainer();
    const containers = this.podContainers();
    const names = main ? [main, ...containers.filter((c) => c.name !== main).map((c) => c.name)] : [];
    setOptions(
      this.container,
      names.map((name) => {
        const c = containers.find((x) => x.name === name);
        return { value: name, label: c?.init ? `${name} (init)` : name };
      }),
    );
    this.containerWrap.hidden = source?.kind !== "container" || names.length === 0;
    this.container.disabled = names.length < 2;
    if (keep.container && names.includes(keep.container)) this.container.value = keep.container;
    else if (main && !names.includes(this.container.value)) this.container.value = main;
    this.updatePrevious(keep.previous);
  }

  /** "Previous instance" exists only for a container that restarted. */
  updatePrevious(want?: boolean): void {
    const source = this.currentSource();
    const can = source?.kind === "container" && this.restartCount() > 0;
    this.previousWrap.hidden = !can;
    if (!can) this.previous.checked = false;
    else if (want !== undefined) this.previous.checked = want;
  }

  private currentSource(): Source | undefined {
    return this.sources.find((s) => s.id === this.source.value);
  }

  private mainContainer(): string | null {
    return this.currentSource()?.pods.find((p) => p.name === this.pod.value)?.container ?? null;
  }

  private podContainers(): Container[] {
    return this.runtime?.pods.find((p) => p.name === this.pod.value)?.containers ?? [];
  }

  private restartCount(): number {
    const chosen = this.podContainers().find((c) => c.name === this.container.value);
    if (chosen) return chosen.restartCount;
    return this.currentSource()?.pods.find((p) => p.name === this.pod.value)?.restartCount ?? 0;
  }

  selection(): LogSelection | null {
    const source = this.currentSource();
    if (!source) return null;
    const pod = source.kind === "container" && this.pod.value ? this.pod.value : null;
    const main = this.mainContainer();
    const container =
      pod && !this.containerWrap.hidden && this.container.value && this.container.value !== main
        ? this.container.value
        : null;
    return {
      source: source.id,
      pod,
      container,
      previous: !this.previousWrap.hidden && this.previous.checked,
    };
  }

  /** The selection as a deep link states it (the container named even when it is the main one). */
  viewState(): WantedSelection {
    const sel = this.selection();
    if (!sel) return {};
    const state: WantedSelection = { source: sel.source };
    if (sel.pod) state.pod = sel.pod;
    const container = sel.container ?? (sel.pod ? this.mainContainer() : null);
    if (container) state.container = container;
    if (sel.previous) state.previous = true;
    return state;
  }
}

function sourceLabel(s: Source): string {
  if (s.available) return s.id;
  return s.unavailableCode === "NOT_CONFIGURED" ? `${s.id} (not configured)` : `${s.id} (no running Pod)`;
}
