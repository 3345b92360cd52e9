/** What a use case knows about the request it serves besides its typed input. */
import type { Deadline } from "../http/deadline.ts";

export interface RequestScope {
  readonly requestId: string;
  readonly deadline: Deadline;
  readonly now: () => number;
  /** Filled in by the HTTP adapter once the event is parsed, for the summary log line. */
  principalId: string | null;
}
