/**
 * The admin API's inputs (docs/kube.md § Admin API): strict schemas for append, restart, replace,
 * event and fault requests. They are parsed with `parseStrict` (local/scenario/issues.ts), so their
 * failures are ScenarioError `path: problem` lists in the scenario's own form.
 */
import { z } from "zod";

const ref = { cluster: z.string().min(1), namespace: z.string().min(1), pod: z.string().min(1) };
export const appendInput = z.strictObject({
  ...ref,
  container: z.string().min(1),
  lines: z.array(z.tuple([z.string(), z.string()])),
});
export const restartInput = z.strictObject({
  ...ref,
  container: z.string().min(1),
  exitCode: z.number().int(),
  reason: z.string().min(1),
  signal: z.number().int().optional(),
});
export const replaceInput = z.strictObject({
  ...ref,
  newName: z.string().min(1).max(253).optional(),
  newUid: z.string().min(1).max(128),
});
export const eventInput = z.strictObject({
  cluster: z.string().min(1),
  namespace: z.string().min(1),
  event: z.unknown(),
});
export const faultInput = z.strictObject({
  cluster: z.string().min(1),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  failRate: z.number().min(0).max(1).optional(),
  status: z.number().int().min(400).max(599).nullable().optional(),
  unreachable: z.boolean().optional(),
  seed: z.number().int().optional(),
  rawLog: z
    .strictObject({
      namespace: z.string().min(1),
      pod: z.string().min(1),
      container: z.string().min(1),
      body: z.string(),
      repeat: z
        .number()
        .int()
        .min(1)
        .max(16 * 1024 * 1024)
        .optional(),
    })
    .nullable()
    .optional(),
});

export type AppendInput = z.input<typeof appendInput>;
export type RestartInput = z.input<typeof restartInput>;
export type ReplacePodInput = z.input<typeof replaceInput>;
export type AddEventInput = { cluster: string; namespace: string; event: unknown };
export type FaultInput = z.input<typeof faultInput>;
