/**
 * The name grammars of the contract (docs/api.md § Conventions): the service's IDs and the
 * Kubernetes names a request may carry. Plain patterns with no dependency, so the API, the drivers,
 * the audit checks, the scenario loader, the CLI and the console all test against these very ones.
 */

/** Namespace, Agent and deployment IDs: 1–64 of a-z, 0-9, `-` and `_`, alphanumeric at both ends. */
export const ID_PATTERN = /^[a-z0-9]([a-z0-9_-]{0,62}[a-z0-9])?$/;

/** A DNS label (containers, Kubernetes namespaces); the pattern carries the 63-character bound. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The characters of a DNS subdomain (Pod names); the 253-character bound is `isDnsSubdomain`'s. */
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const MAX_DNS_SUBDOMAIN = 253;

export const isDnsSubdomain = (value: string): boolean =>
  value.length <= MAX_DNS_SUBDOMAIN && DNS_SUBDOMAIN.test(value);
