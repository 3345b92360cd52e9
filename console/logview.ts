/**
 * One log view at a time: the first page, Follow (cursor polls), Refresh, Download, and what each
 * error does (the HTTP contract): 401 asks to sign in; 403 stops and is remembered for the
 * selection; 429 waits for `Retry-After`; a busy 503 backs off with jitter and keeps following; an
 * invalid cursor starts one new view; 501 stops Follow; a 504 while following retries after 2 s;
 * anything else stops Follow with its message.
 */
import { Aborted, type ApiClient, ApiError, type DeploymentRef, type LogSelection } from "./api.ts";
import { busyDelayMs, waitSeconds } from "./backoff.ts";
import { byId, el } from "./dom.ts";
import { sameInstance } from "./format.ts";
import { errorMessage, stoppedNotice, withheldNotice } from "./messages.ts";
import { Notices } from "./notices.ts";
import type { Runtime, Stream } from "./types.ts";
import type { LogPaneView } from "./views/logpane.ts";

type ReadKind = "new" | "poll" | "refresh";

export interface LogViewOptions {
  api: ApiClient;
  pane: LogPaneView;
  pollMs: number;
  /** Denials by selection key, shared with the rest of the console. */
  forbidden: Map<string, ApiError>;
  /** The stream changed under a view (restart, new Pod): the runtime is worth reading again. */
  onStreamChange(): void;
  onUnauthenticated(): void;
}

export const logsKey = (d: DeploymentRef, sel: LogSelection) =>
  `${d.namespaceId}/${d.agentId}/${d.deploymentId}/logs/${sel.source}`;

const TIMEOUT_RETRY_S = 2;

export class LogView {
  private readonly notices = new Notices("log-notice", "log-error");
  private readonly followButton = byId("follow", HTMLButtonElement);
  private readonly refreshButton = byId("refresh", HTMLButtonElement);
  private readonly downloadButton = byId("download", HTMLButtonElement);
  private readonly status = byId("follow-status", HTMLParagraphElement);

  private ref: DeploymentRef | null = null;
  private sel: LogSelection | null = null;
  /** Bumped by every selection change: late answers of an older selection are dropped. */
  private generation = 0;
  private cursor: string | null = null;
  private stream: Stream | null = null;
  /** Busy answers in a row; the backoff grows with it and resets on success. */
  private busy = 0;
  private following = false;
  private followBlocked = false;
  /** Follow is due but waits for the tab to show or the user to scroll back down. */
  private waiting = false;
  private inFlight: AbortController | null = null;
  private timer: number | null = null;

  constructor(private readonly opts: LogViewOptions) {
    this.followButton.addEventListener("click", () => this.setFollow(!this.following));
    this.refreshButton.addEventListener("click", () => this.refresh());
    this.downloadButton.addEventListener("click", () => void this.download());
    opts.pane.onBottom = () => this.resume();
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) this.resume();
      else this.renderStatus();
    });
    this.renderControls();
  }

  /** A new selection: everything from the old one goes (rows, cursor, errors, timers). */
  select(ref: DeploymentRef | null, sel: LogSelection | null): void {
    this.generation++;
    this.stopTimer();
    this.inFlight?.abort();
    this.inFlight = null;
    this.ref = ref;
    this.sel = sel;
    this.cursor = null;
    this.stream = null;
    this.busy = 0;
    this.waiting = false;
    this.followBlocked = false;
    if (sel?.previous) this.following = false;
    this.notices.clear();
    this.opts.pane.clear();
    this.opts.pane.setEmptyText(sel ? "Loading…" : "Choose a deployment and a source to read logs.");
    this.renderControls();
    if (!ref || !sel) return;
    const denied = this.opts.forbidden.get(logsKey(ref, sel));
    if (denied) {
      this.showDenied(denied);
      return;
    }
    void this.read("new");
  }

  /** The latest status, for the restart markers. */
  setRuntime(runtime: Runtime | null): void {
    this.opts.pane.setRuntime(runtime);
  }

  /** A new view of the same selection; rows and cursor stay until it succeeds. */
  refresh(): void {
    if (!this.ref || !this.sel) return;
    this.opts.forbidden.delete(logsKey(this.ref, this.sel));
    this.followBlocked = false;
    this.stopTimer();
    this.inFlight?.abort();
    this.inFlight = null;
    void this.read("refresh");
  }

  setFollow(on: boolean): void {
    if (on && (!this.sel || this.sel.previous || this.followBlocked)) return;
    this.following = on;
    this.stopTimer();
    this.waiting = false;
    if (on && !this.inFlight) {
      this.opts.pane.scrollToBottom();
      this.tick();
    }
    this.renderControls();
  }

  private paused(): "hidden" | "scrolled" | null {
    if (document.hidden) return "hidden";
    if (!this.opts.pane.atBottom()) return "scrolled";
    return null;
  }

  private tick(): void {
    this.timer = null;
    if (!this.following) return;
    if (this.paused()) {
      this.waiting = true;
      this.renderStatus();
      return;
    }
    void this.read(this.cursor ? "poll" : "new");
  }

  private resume(): void {
    if (this.following && this.waiting && !this.inFlight && !this.timer) {
      this.waiting = false;
      this.tick();
    }
    this.renderStatus();
  }

  private schedule(seconds: number, run: () => void): void {
    this.stopTimer();
    this.timer = window.setTimeout(() => {
      this.timer = null;
      run();
    }, seconds * 1000);
  }

  private stopTimer(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
  }

  private async read(kind: ReadKind, recovering = false): Promise<void> {
    const ref = this.ref;
    const sel = this.sel;
    if (!ref || !sel) return;
    const generation = this.generation;
    const abort = new AbortController();
    this.inFlight = abort;
    this.renderControls();
    const cursor = kind === "poll" ? this.cursor : null;
    try {
      const { data: page } = await this.opts.api.logs(ref, sel, cursor, abort.signal);
      if (generation !== this.generation || abort.signal.aborted) return;
      this.inFlight = null;
      const before = this.stream;
      const changed = before !== null && page.stream !== null && !sameInstance(before, page.stream);
      if (kind === "poll")
        this.opts.pane.append(page.records, changed ? { before, after: page.stream } : null);
      else this.opts.pane.replace(page.records);
      this.cursor = page.cursor;
      this.stream = page.stream;
      this.busy = 0;
      this.notices.fail("");
      if (page.stream === null) {
        this.notices.say("No running Pod for this source: there is nothing to read right now.");
        this.opts.pane.setEmptyText("No running Pod.");
      } else if (!recovering) {
        this.notices.say(withheldNotice(page.withheld));
        this.opts.pane.setEmptyText("No log lines yet.");
      }
      if (changed) this.opts.onStreamChange();
      if (this.following) this.schedule(this.opts.pollMs / 1000, () => this.tick());
    } catch (err) {
      if (generation !== this.generation || err instanceof Aborted) return;
      this.inFlight = null;
      this.failed(kind, err instanceof ApiError ? err : new ApiError(0, "NETWORK", null, null), recovering);
    } finally {
      if (generation === this.generation) this.renderControls();
    }
  }

  private failed(kind: ReadKind, err: ApiError, recovering: boolean): void {
    const ref = this.ref as DeploymentRef;
    const sel = this.sel as LogSelection;
    const wait = err.retryAfterSeconds;
    const again = () => {
      if (kind === "poll" && !this.following) return;
      void this.read(kind === "poll" && !this.cursor ? "new" : kind, recovering);
    };
    if (err.code === "RUNTIME_LOGS_BUSY" || (err.status === 503 && wait !== null)) {
      // Everyone told "busy" at once must not return at once, nor sooner than a poll would.
      const ms = busyDelayMs(this.busy++, wait, this.opts.pollMs, Math.random());
      this.notices.fail(errorMessage(err, waitSeconds(ms)));
      this.schedule(ms / 1000, again);
      return;
    }
    if (err.status === 429) {
      const seconds = wait ?? 2;
      this.notices.fail(errorMessage(err, seconds));
      this.schedule(seconds, again);
      return;
    }
    if (err.code === "RUNTIME_LOGS_CURSOR_INVALID" && kind === "poll" && !recovering) {
      this.cursor = null;
      this.notices.say(errorMessage(err));
      void this.read("new", true);
      return;
    }
    if (err.code === "RUNTIME_LOGS_TIMEOUT" && kind === "poll" && this.following) {
      this.notices.fail(errorMessage(err, TIMEOUT_RETRY_S));
      this.schedule(TIMEOUT_RETRY_S, () => this.tick());
      return;
    }
    const wasPolling = kind === "poll" && this.following;
    this.notices.fail(`${errorMessage(err)}${stoppedNotice("Follow", wasPolling)}`);
    this.following = false;
    if (err.status === 403) {
      this.opts.forbidden.set(logsKey(ref, sel), err);
      this.followBlocked = true;
    }
    if (err.status === 501) this.followBlocked = true;
    if (err.status === 401) this.opts.onUnauthenticated();
    if (kind !== "poll" && this.opts.pane.list.childElementCount === 0)
      this.opts.pane.setEmptyText("Nothing to show.");
  }

  private showDenied(err: ApiError): void {
    this.followBlocked = true;
    this.following = false;
    this.notices.fail(`${errorMessage(err)} Refresh to try again.`);
    this.opts.pane.setEmptyText("Nothing to show.");
    this.renderControls();
  }

  private async download(): Promise<void> {
    const ref = this.ref;
    const sel = this.sel;
    if (!ref || !sel) return;
    const generation = this.generation;
    this.downloadButton.disabled = true;
    let reenableIn = 0;
    try {
      const file = await this.opts.api.download(ref, sel);
      if (generation !== this.generation) return;
      saveFile(file.blob, file.filename);
      this.notices.say(`Saved ${file.filename}.`);
    } catch (err) {
      if (generation !== this.generation || err instanceof Aborted) return;
      const e = err instanceof ApiError ? err : new ApiError(0, "NETWORK", null, null);
      reenableIn = e.retryAfterSeconds ?? 0;
      this.notices.fail(
        reenableIn > 0
          ? `${errorMessage(e)} Download is available again in ${reenableIn} s.`
          : errorMessage(e),
      );
      if (e.status === 401) this.opts.onUnauthenticated();
    } finally {
      if (reenableIn > 0) window.setTimeout(() => this.renderControls(), reenableIn * 1000);
      else this.renderControls();
    }
  }

  private renderControls(): void {
    const has = this.sel !== null;
    const canFollow = has && !this.sel?.previous && !this.followBlocked;
    if (!canFollow) this.following = false;
    this.followButton.disabled = !canFollow;
    this.followButton.setAttribute("aria-pressed", String(this.following));
    this.followButton.textContent = this.following ? "Following" : "Follow";
    this.refreshButton.disabled = !has;
    this.downloadButton.disabled = !has;
    this.renderStatus();
  }

  private renderStatus(): void {
    let text: string;
    if (!this.sel) text = "";
    else if (this.sel.previous) text = "Previous instance: it no longer writes, so Follow is off.";
    else if (!this.following) text = this.followBlocked ? "Follow is stopped." : "Follow is off.";
    else {
      const paused = this.paused();
      text =
        paused === "hidden"
          ? "Follow paused while the tab is hidden."
          : paused === "scrolled"
            ? "Follow paused: you scrolled up. Scroll to the bottom to resume."
            : `Following: a new read every ${this.opts.pollMs / 1000} s.`;
    }
    this.status.textContent = text;
  }
}

/** Saves a Blob under the server's filename, through a temporary object URL. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
