/** The CDK app (`cdk.json`: `npx tsx infra/app.ts`). */
import { buildApp } from "./build-app.ts";

buildApp().app.synth();
