/**
 * Deep links: the URL's query carries the selection (namespace, Agent, deployment, source, Pod,
 * container, previous instance), so a view can be shared and reloaded. Values are checked against
 * the contract's patterns before use; anything malformed is dropped, never sent.
 */

import { DNS_LABEL, ID_PATTERN, isDnsSubdomain } from "../lib/api/ids.ts";
import { SOURCE_IDS } from "../lib/api/values.ts";
import type { SourceId } from "./types.ts";

export interface ViewState {
  namespaceId?: string;
  agentId?: string;
  deploymentId?: string;
  source?: SourceId;
  pod?: string;
  container?: string;
  previous?: boolean;
}

/** URL parameter → state key; the order is the order they are written in. */
const KEYS = [
  ["namespace", "namespaceId"],
  ["agent", "agentId"],
  ["deployment", "deploymentId"],
  ["source", "source"],
  ["pod", "pod"],
  ["container", "container"],
] as const;

export function readViewState(search: string): ViewState {
  const q = new URLSearchParams(search);
  const state: ViewState = {};
  const get = (name: string, valid: (v: string) => boolean) => {
    const v = q.get(name);
    return v !== null && valid(v) ? v : undefined;
  };
  const ns = get("namespace", (v) => ID_PATTERN.test(v));
  const agent = get("agent", (v) => ID_PATTERN.test(v));
  if (ns === undefined || agent === undefined) return state;
  state.namespaceId = ns;
  state.agentId = agent;
  const deployment = get("deployment", (v) => ID_PATTERN.test(v));
  if (deployment === undefined) return state;
  state.deploymentId = deployment;
  const source = get("source", (v) => (SOURCE_IDS as readonly string[]).includes(v)) as SourceId | undefined;
  if (source === undefined) return state;
  state.source = source;
  if (source === "sandbox") return state;
  const pod = get("pod", isDnsSubdomain);
  if (pod === undefined) return state;
  state.pod = pod;
  const container = get("container", (v) => DNS_LABEL.test(v));
  if (container !== undefined) state.container = container;
  if (q.get("previous") === "true") state.previous = true;
  return state;
}

/**
 * The query for a state, keeping parameters that are not the selection's (such as the local
 * stack's test hooks) as they were.
 */
export function viewSearch(state: ViewState, current = ""): string {
  const q = new URLSearchParams(current);
  for (const [name] of KEYS) q.delete(name);
  q.delete("previous");
  for (const [name, key] of KEYS) {
    const value = state[key];
    if (value !== undefined) q.set(name, value);
  }
  if (state.previous) q.set("previous", "true");
  const text = q.toString();
  return text === "" ? "" : `?${text}`;
}
