/**
 * Linux signal names by number, for the `signal=` field of the agent's restart lines (docs/restarts.md);
 * `occ agent restarts -o log` prints a termination's signal with them.
 */
export const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  6: "SIGABRT",
  9: "SIGKILL",
  10: "SIGUSR1",
  12: "SIGUSR2",
  15: "SIGTERM",
};
