/**
 * The console's entry: sign-in, the Agent/deployment chooser, Pod cards and the log view, wired
 * together. Selection changes clear what belonged to the old selection; denials are remembered per
 * selection until the user asks again.
 */
import { Aborted, ApiClient, ApiError, type DeploymentRef } from "./api.ts";
import { readConfig } from "./config.ts";
import { byId } from "./dom.ts";
import { LogView } from "./logview.ts";
import { errorMessage } from "./messages.ts";
import { Notices } from "./notices.ts";
import { session } from "./session.ts";
import type { Runtime } from "./types.ts";
import { ChooserView } from "./views/chooser.ts";
import { LogPaneView } from "./views/logpane.ts";
import { PodsView } from "./views/pods.ts";
import { fetchLocalPrincipals, SignInView } from "./views/signin.ts";

const MAX_WAITS = 3;

function boot(): void {
  const config = readConfig(window.location);
  const api = new ApiClient(() => session.token());
  const forbidden = new Map<string, ApiError>();
  const notices = new Notices("app-notice", "app-error");
  const app = byId("app", HTMLElement);
  const who = byId("who", HTMLSpanElement);
  const signOutButton = byId("sign-out", HTMLButtonElement);
  const reloadButton = byId("reload-runtime", HTMLButtonElement);
  const chooser = new ChooserView();
  const pods = new PodsView();
  const pane = new LogPaneView();
  let ref: DeploymentRef | null = null;
  /** Bumped on every Agent or deployment change; stale answers are dropped. */
  let generation = 0;
  let inFlight: AbortController | null = null;

  const signIn = new SignInView((token) => {
    session.signIn(token);
    showApp();
  });
  const logs = new LogView({
    api,
    pane,
    pollMs: config.pollMs,
    forbidden,
    onStreamChange: () => void loadRuntime(true),
    onUnauthenticated: () => signOut("Your token was not accepted (HTTP 401). Sign in again."),
  });

  function showApp(): void {
    const token = session.token() ?? "";
    who.textContent = token.startsWith("local:") ? `Signed in as ${token.slice(6)} (local)` : "Signed in";
    signOutButton.hidden = false;
    signIn.hide();
    app.hidden = false;
    chooser.namespace.focus();
  }

  function signOut(message = ""): void {
    session.signOut();
    generation++;
    inFlight?.abort();
    forbidden.clear();
    ref = null;
    logs.select(null, null);
    pods.render(null);
    chooser.clearDeployments();
    notices.clear();
    app.hidden = true;
    who.textContent = "";
    signOutButton.hidden = true;
    signIn.show(message);
  }

  /** Runs a read, waiting out 429 and busy 503 (`Retry-After`) a few times; null when it failed. */
  async function guarded<T>(key: string, run: (signal: AbortSignal) => Promise<T>): Promise<T | null> {
    const denied = forbidden.get(key);
    if (denied) {
      notices.fail(`${errorMessage(denied)} Use Reload to try again.`);
      return null;
    }
    const mine = generation;
    inFlight?.abort();
    const abort = new AbortController();
    inFlight = abort;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await run(abort.signal);
        if (mine !== generation) return null;
        notices.fail("");
        return result;
      } catch (err) {
        if (mine !== generation || err instanceof Aborted) return null;
        const e = err instanceof ApiError ? err : new ApiError(0, "NETWORK", null, null);
        const wait = e.retryAfterSeconds;
        if ((e.status === 429 || (e.status === 503 && wait !== null)) && attempt < MAX_WAITS) {
          notices.fail(errorMessage(e, wait ?? 1));
          await new Promise((done) => window.setTimeout(done, (wait ?? 1) * 1000));
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

  async function loadDeployments(): Promise<void> {
    const input = chooser.agentInput();
    generation++;
    ref = null;
    logs.select(null, null);
    pods.render(null);
    chooser.clearDeployments();
    notices.clear();
    if (typeof input === "string") {
      notices.fail(input);
      return;
    }
    const { namespaceId, agentId } = input;
    // Submitting the form is an explicit ask: an earlier denial of this list is not held against it.
    forbidden.delete(`${namespaceId}/${agentId}/deployments`);
    const result = await guarded(`${namespaceId}/${agentId}/deployments`, (signal) =>
      api.deployments(namespaceId, agentId, signal),
    );
    if (!result) return;
    if (result.data.length === 0) {
      notices.say("This Agent has no deployments.");
      return;
    }
    chooser.setDeployments(result.data);
    notices.say(`${result.data.length} deployments; the active one is selected.`);
    chooseDeployment(namespaceId, agentId);
  }

  function chooseDeployment(namespaceId: string, agentId: string): void {
    generation++;
    ref = { namespaceId, agentId, deploymentId: chooser.deployment.value };
    logs.select(null, null);
    pods.render(null);
    chooser.setSources(null);
    void loadRuntime(false);
  }

  /** Reads the runtime; `keepLogs` when only the cards and lists need updating (a restart). */
  async function loadRuntime(keepLogs: boolean): Promise<void> {
    const current = ref;
    if (!current) return;
    const before = JSON.stringify(chooser.selection());
    const key = `${current.namespaceId}/${current.agentId}/${current.deploymentId}/runtime`;
    const result = await guarded(key, (signal) => api.runtime(current, signal));
    if (current !== ref) return;
    const runtime: Runtime | null = result?.data ?? null;
    pods.render(runtime);
    chooser.setSources(runtime, runtime === null);
    if (!keepLogs || JSON.stringify(chooser.selection()) !== before)
      logs.select(current, chooser.selection());
  }

  chooser.form.addEventListener("submit", (event) => {
    event.preventDefault();
    void loadDeployments();
  });
  chooser.deployment.addEventListener("change", () => {
    if (ref) chooseDeployment(ref.namespaceId, ref.agentId);
  });
  chooser.source.addEventListener("change", () => {
    chooser.setPods();
    logs.select(ref, chooser.selection());
  });
  chooser.pod.addEventListener("change", () => {
    chooser.updatePrevious();
    logs.select(ref, chooser.selection());
  });
  chooser.previous.addEventListener("change", () => logs.select(ref, chooser.selection()));
  reloadButton.addEventListener("click", () => {
    if (!ref) return;
    forbidden.delete(`${ref.namespaceId}/${ref.agentId}/${ref.deploymentId}/runtime`);
    void loadRuntime(true);
  });
  signOutButton.addEventListener("click", () => signOut());

  if (config.local) void fetchLocalPrincipals().then((p) => signIn.offerPrincipals(p));
  if (session.token()) showApp();
  else signIn.show();
}

boot();
