/**
 * One rule family of the chain. A rule declares its triggers: lower-case words (`.` stands for any
 * one character), or case-sensitive prefixes, at least one of which must occur in a string for the
 * rule to be able to match, so the chain skips it otherwise. Adding a rule means adding one module
 * and listing it in the index.
 */
export interface Rule {
  readonly name: string;
  /** Trigger words, any ASCII case; empty when the rule is triggered otherwise. */
  readonly words: readonly string[];
  /**
   * Trigger prefixes, exact case, for a rule that compares them exactly itself (the provider
   * catalog): the rule runs where one of them occurs whole.
   */
  readonly prefixes?: readonly string[];
  /** Also triggered by a run of ≥ 40 characters of the base64 or base64url alphabet. */
  readonly longRun?: boolean;
  /**
   * Also runs wherever the text holds a marker by its turn: a marker joins the runs around it
   * (markers shield nothing), so it may complete a run no trigger saw.
   */
  readonly joinsMarks?: boolean;
  /** The text with every match replaced by one marker. */
  apply(s: string): string;
}
