#!/usr/bin/env node
// Launcher for the TypeScript CLI: tsx compiles cli/main.ts on the fly, so `npx occ` needs no build step.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
