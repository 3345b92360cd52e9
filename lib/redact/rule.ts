/**
 * One rule family of the chain. A rule declares its triggers: lower-case words (`.` stands for any
 * one character) at least one of which must occur in a string for the rule to be able to match, so
 * the chain skips it otherwise. Adding a rule means adding one module and listing it in the index.
 */
export interface Rule {
  readonly name: string;
  /** Trigger words; empty when the rule is triggered only by `longRun`. */
  readonly words: readonly string[];
  /**
   * Whether the trigger scan confirms that a word occurs before the rule runs (default). A rule whose
   * own scan finds its words as cheaply as a confirmation would (the provider catalog: hundreds of
   * prefixes) sets false and runs wherever a pair of characters that starts one of its words occurs.
   */
  readonly confirm?: boolean;
  /** Also triggered by a run of ≥ 40 characters of the base64 or base64url alphabet. */
  readonly longRun?: boolean;
  /** Whether `apply` reads the lower-cased text. */
  readonly needsLower?: boolean;
  /** The text with every match replaced by one marker; `lower` is `s.toLowerCase()` or "". */
  apply(s: string, lower: string): string;
}
