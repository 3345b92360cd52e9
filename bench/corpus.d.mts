// Types of the vendored bench corpus (corpus.mjs, kept byte-for-byte as published so figures
// compare across runs and projects; docs/quality.md § Bench corpus).
export const REALISTIC_MAX_BYTES: number;
export const HOSTILE_LINE_BYTES: number;
export function realistic(seed?: number): string;
export function realisticWithSecrets(seed?: number): { chunk: string; secrets: string[] };
export function hostile(seed?: number): Array<{ name: string; line: string }>;
export function toEntries(chunk: string): Array<{ time: string; text: string }>;
export function toLines(chunk: string): string[];
export function baseline(chunk: string): number;
