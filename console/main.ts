/**
 * The console's entry: sign-in, the Agent/deployment chooser, Pod cards and the log view, wired
 * together. The URL carries the selection (a deep link), the status is re-read while the tab is
 * visible, and selection changes clear what belonged to the old selection; denials are remembered
 * per selection until the user asks again.
 */
import { Aborted, ApiClient, ApiError, type DeploymentRef } from "./api.ts";
import { busyDelayMs, waitSeconds } from "./backoff.ts";
import { readConfig } from "./config.ts";
import { byId } from "./dom.ts";
import { hourMinuteUtc } from "./format.ts";
import { readViewState, type ViewState, viewSearch } from "./link.ts";
import { LogView } from "./logview.ts";
import { deploymentsNotice, errorMessage, stoppedNotice } from "./messages.ts";
import { Notices } from "./notices.ts";
import { session } from "./session.ts";
import type { Runtime } from "./types.ts";
import { ChooserView, type WantedSelection } from "./views/chooser.ts";
import { LogPaneView } from "./views/logpane.ts";
import { PodsView } from "./views/pods.ts";
import { fetchLocalPrincipals, SignInView } from "./views/signin.ts";

const MAX_WAITS = 3;
/** Status answers that say this deployment cannot be read: polling it again would not help. */
const UNREADABLE = new Set([400, 403, 404, 501]);

type RuntimeRead = "first" | "poll" | "restart" | "reload";

function boot(): void {
  const config = readConfig(window.location);
  const api = new ApiClient(() => session.token());
  const forbidden = new Map<string, ApiError>();
  const notices = new Notices("app-notice", "app-error");
  const app = byId("app", HTMLElement);
  const who = byId("who", HTMLSpanElement);
  const signOutButton = byId("sign-out", HTMLButtonElement);
  const reloadButton = byId("reload-runtime", HTMLButtonElement);
  const statusNote = byId("runtime-status", HTMLParagraphElement);
  const chooser = new ChooserView();
  const pods = new PodsView((state) => open(state));
  const pane = new LogPaneView();
  let ref: DeploymentRef | null = null;
  /** The selection a deep link or a card asked for, until the runtime says what exists. */
  let wanted: WantedSelection = {};
  /** Bumped on every Agent or deployment change; stale answers are dropped. */
  let generation = 0;
  let listAbort: AbortController | null = null;
  let runtimeAbort: AbortController | null = null;
  const status = { timer: null as number | null, stopped: false, lastRead: 0, busy: 0 };

  const signIn = new SignInView((token) => {
    session.signIn(token);
    showApp();
  });
  const logs = new LogView({
    api,
    pane,
    pollMs: config.pollMs,
    forbidden,
    onStreamChange: () => void loadRuntime("restart"),
    onUnauthenticated: () => signOut("Your token was not accepted (HTTP 401). Sign in again."),
  });

  /** Writes the selection into the URL (replacing the entry: the back button leaves the console). */
  function syncUrl(): void {
    let state: ViewState = {};
    if (ref) state = { ...ref, ...(chooser.selection() ? chooser.viewState() : wanted) };
    const search = viewSearch(state, window.location.search);
    if (search !== window.location.search)
      window.history.replaceState(null, "", `${window.location.pathname}${search}`);
  }

  function showApp(): void {
    const token = session.token() ?? "";
    who.textContent = token.startsWith("local:") ? `Signed in as ${token.slice(6)} (local)` : "Signed in";
    signOutButton.hidden = false;
    signIn.hide();
    app.hidden = false;
    const link = readViewState(window.location.search);
    if (link.namespaceId && link.agentId) {
      chooser.namespace.value = link.namespaceId;
      chooser.agent.value = link.agentId;
      void loadDeployments(link);
    } else chooser.namespace.focus();
  }

  function signOut(message = ""): void {
    session.signOut();
    generation++;
    listAbort?.abort();
    runtimeAbort?.abort();
    stopStatus();
    forbidden.clear();
    ref = null;
    logs.select(null, null);
    pods.render(null);
    chooser.clearDeployments();
    notices.clear();
    statusNote.textContent = "";
    app.hidden = true;
    who.textContent = "";
    signOutButton.hidden = true;
    signIn.show(message);
  }

  /** Reads the deployment list, waiting out 429 and busy 503 a few times; null when it failed. */
  async function readList(key: string, namespaceId: string, agentId: string) {
    const denied = forbidden.get(key);
    if (denied) {
      notices.fail(`${errorMessage(denied)} Use Reload to try again.`);
      return null;
    }
    const mine = generation;
    listAbort?.abort();
    const abort = new AbortController();
    listAbort = abort;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await api.deployments(namespaceId, agentId, abort.signal);
        if (mine !== generation) return null;
        notices.fail("");
        return result;
      } catch (err) {
        if (mine !== generation || err instanceof Aborted) return null;
        const e = err instanceof ApiError ? err : new ApiError(0, "NETWORK", null, null);
        const busy = e.status === 503 && (e.code === "RUNTIME_LOGS_BUSY" || e.retryAfterSeconds !== null);
        if ((e.status === 429 || busy) && attempt < MAX_WAITS) {
          const ms = busy
            ? busyDelayMs(attempt, e.retryAfterSeconds, config.pollMs, Math.random())
            : (e.retryAfterSeconds ?? 1) * 1000;
          notices.fail(errorMessage(e, waitSeconds(ms)));
          await new Promise((done) => window.setTimeout(done, ms));
          if (mine !== generation) return null;
          continue;
        }
        notices.fail(errorMessage(e));
        if (e.status === 403) forbidden.set(key, e);
        if (e.status === 401) signOut("Your token was not accepted (HTTP 401). Sign in again.");
        return null;
      }
    }
  }

  async function loadDeployments(link: ViewState = {}): Promise<void> {
    const input = chooser.agentInput();
    generation++;
    ref = null;
    runtimeAbort?.abort();
    stopStatus();
    statusNote.textContent = "";
    logs.select(null, null);
    pods.render(null);
    chooser.clearDeployments();
    notices.clear();
    if (typeof input === "string") {
      notices.fail(input);
      return;
    }
    const { namespaceId, agentId } = input;
    const key = `${namespaceId}/${agentId}/deployments`;
    // Submitting the form is an explicit ask: an earlier denial of this list is not held against it.
    forbidden.delete(key);
    const result = await readList(key, namespaceId, agentId);
    if (!result) return;
    const list = result.data;
    chooser.setDeployments(list, link.deploymentId);
    if (list.length === 0) {
      notices.say(deploymentsNotice(list, ""));
      return;
    }
    const missing = link.deploymentId !== undefined && chooser.deployment.value !== link.deploymentId;
    chooseDeployment(missing ? {} : link);
    if (missing) notices.say(`The linked deployment ${link.deploymentId} is not listed. ${notices.text()}`);
  }

  function chooseDeployment(want: WantedSelection = {}): void {
    const input = chooser.agentInput();
    if (typeof input === "string" || chooser.deployment.value === "") return;
    generation++;
    runtimeAbort?.abort();
    stopStatus();
    status.stopped = false;
    status.busy = 0;
    ref = { ...input, deploymentId: chooser.deployment.value };
    wanted = want;
    logs.select(null, null);
    logs.setRuntime(null);
    pods.render(null);
    chooser.setSources(null);
    notices.clear();
    notices.say(deploymentsNotice(chooser.deploymentList(), ref.deploymentId));
    statusNote.textContent = "";
    syncUrl();
    void loadRuntime("first");
  }

  function podsContext(current: DeploymentRef) {
    const active = chooser.deploymentList().find((d) => d.active)?.deploymentId ?? null;
    return { ref: current, activeDeploymentId: active === current.deploymentId ? null : active };
  }

  /**
   * Reads the runtime. The first read of a deployment starts its log view; later reads (polls, a
   * restart seen in the logs, Reload) update the cards and lists and restart the view only when
   * the selection had to change.
   */
  async function loadRuntime(kind: RuntimeRead): Promise<void> {
    const current = ref;
    if (!current) return;
    const key = `${current.namespaceId}/${current.agentId}/${current.deploymentId}/runtime`;
    const mine = generation;
    stopStatus();
    const denied = forbidden.get(key);
    if (denied) {
      status.stopped = true;
      notices.fail(`${errorMessage(denied)} Use Reload to try again.`);
      return;
    }
    runtimeAbort?.abort();
    const abort = new AbortController();
    runtimeAbort = abort;
    let runtime: Runtime;
    try {
      runtime = (await api.runtime(current, abort.signal)).data;
    } catch (err) {
      if (mine !== generation || err instanceof Aborted || abort.signal.aborted) return;
      runtimeAbort = null;
      runtimeFailed(
        kind,
        key,
        current,
        err instanceof ApiError ? err : new ApiError(0, "NETWORK", null, null),
      );
      return;
    }
    if (mine !== generation || current !== ref) return;
    runtimeAbort = null;
    status.lastRead = Date.now();
    status.busy = 0;
    notices.fail("");
    const before = JSON.stringify(chooser.selection());
    const want = kind === "first" ? wanted : undefined;
    wanted = {};
    pods.render(runtime, podsContext(current));
    chooser.setSources(runtime, false, want);
    logs.setRuntime(runtime);
    if (kind === "first" || JSON.stringify(chooser.selection()) !== before)
      logs.select(current, chooser.selection());
    syncUrl();
    statusNote.textContent = `Status read at ${hourMinuteUtc(runtime.observedAt)}; re-read every ${config.statusMs / 1000} s while this tab is visible.`;
    scheduleStatus(config.statusMs);
  }

  function runtimeFailed(kind: RuntimeRead, key: string, current: DeploymentRef, e: ApiError): void {
    const polling = kind === "poll" || kind === "restart";
    if (e.status === 401) {
      signOut("Your token was not accepted (HTTP 401). Sign in again.");
      return;
    }
    if (UNREADABLE.has(e.status)) {
      // A denial or a deployment that cannot be read: stop asking until the user reloads.
      status.stopped = true;
      if (e.status === 403) forbidden.set(key, e);
      notices.fail(`${errorMessage(e)}${stoppedNotice("Status polling", polling)}`);
      statusNote.textContent = polling ? "Status polling stopped. Use Reload runtime to read it again." : "";
    } else {
      // Transient (busy, limited, unavailable, slow): keep the cards and read again later.
      const busy = e.status === 503 && (e.code === "RUNTIME_LOGS_BUSY" || e.retryAfterSeconds !== null);
      const ms = busy
        ? busyDelayMs(status.busy++, e.retryAfterSeconds, config.statusMs, Math.random())
        : e.status === 429
          ? Math.max((e.retryAfterSeconds ?? 2) * 1000, config.statusMs)
          : config.statusMs;
      notices.fail(errorMessage(e, waitSeconds(ms)));
      scheduleStatus(ms);
    }
    if (kind === "first") {
      // Without a runtime the server still decides: offer every source and try the logs.
      pods.render(null);
      chooser.setSources(null, true, wanted);
      wanted = {};
      logs.select(current, chooser.selection());
      syncUrl();
    }
  }

  function scheduleStatus(ms: number): void {
    stopStatus();
    if (!ref || status.stopped || document.hidden) return;
    status.timer = window.setTimeout(() => {
      status.timer = null;
      void loadRuntime("poll");
    }, ms);
  }

  function stopStatus(): void {
    if (status.timer !== null) window.clearTimeout(status.timer);
    status.timer = null;
  }

  /** Back in view (tab shown or window focused): read the status now unless it is fresh. */
  function refocus(): void {
    if (document.hidden) {
      stopStatus();
      return;
    }
    if (!ref || status.stopped || runtimeAbort) return;
    if (Date.now() - status.lastRead >= Math.min(1000, config.statusMs)) void loadRuntime("poll");
    else if (status.timer === null) scheduleStatus(config.statusMs);
  }

  /** Opens a view from a link inside the page (a Pod card, "the active deployment"). */
  function open(state: ViewState): void {
    const want: WantedSelection = {};
    if (state.source) want.source = state.source;
    if (state.pod) want.pod = state.pod;
    if (state.container) want.container = state.container;
    if (state.previous) want.previous = true;
    const sameAgent = ref && state.namespaceId === ref.namespaceId && state.agentId === ref.agentId;
    if (sameAgent && state.deploymentId === ref?.deploymentId) {
      chooser.setSources(chooser.currentRuntime(), false, want);
      logs.select(ref, chooser.selection());
      syncUrl();
    } else if (sameAgent && state.deploymentId) {
      chooser.deployment.value = state.deploymentId;
      chooseDeployment(want);
    } else if (state.namespaceId && state.agentId) {
      chooser.namespace.value = state.namespaceId;
      chooser.agent.value = state.agentId;
      void loadDeployments(state);
    }
    byId("logs", HTMLElement).scrollIntoView({ block: "start" });
  }

  chooser.form.addEventListener("submit", (event) => {
    event.preventDefault();
    void loadDeployments();
  });
  chooser.deployment.addEventListener("change", () => chooseDeployment());
  const selectionChanged = () => {
    logs.select(ref, chooser.selection());
    syncUrl();
  };
  chooser.source.addEventListener("change", () => {
    chooser.setPods();
    selectionChanged();
  });
  chooser.pod.addEventListener("change", () => {
    chooser.setContainers();
    selectionChanged();
  });
  chooser.container.addEventListener("change", () => {
    chooser.updatePrevious();
    selectionChanged();
  });
  chooser.previous.addEventListener("change", selectionChanged);
  reloadButton.addEventListener("click", () => {
    if (!ref) return;
    forbidden.delete(`${ref.namespaceId}/${ref.agentId}/${ref.deploymentId}/runtime`);
    status.stopped = false;
    void loadRuntime("reload");
  });
  signOutButton.addEventListener("click", () => signOut());
  document.addEventListener("visibilitychange", refocus);
  window.addEventListener("focus", refocus);

  if (config.local) void fetchLocalPrincipals().then((p) => signIn.offerPrincipals(p));
  if (session.token()) showApp();
  else signIn.show();
}

boot();
