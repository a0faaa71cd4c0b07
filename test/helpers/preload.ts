// Loaded before every test file (bunfig.toml): tests compare ISO strings, so pin the zone.
process.env.TZ = "UTC";

import { afterAll } from "bun:test";
import { guardSpawns, scrubTestProcessEnv } from "./child-env";
import { logAuditReport } from "./log-audit";
import { nameSkipReasons } from "./requires";

// Tests touch only what they were given (TEST_DATABASE_URL, TEST_STORE_DATABASE_URL): nothing a
// `.env` beside the project or the shell says about the service reaches them or their children.
scrubTestProcessEnv();
guardSpawns();
// Every test an `.if` skips names its reason (test/helpers/requires.ts).
nameSkipReasons();

// Once, after the last file: the whole run's log held no secret and no answer a private key
// (test/helpers/log-audit.ts). A
// throw here is a failing test of its own, so the run fails.
afterAll(() => {
  const { audited, auditedEvents, auditedResponses, findings } = logAuditReport();
  console.log(
    `log audit: ${audited} log lines, ${auditedEvents} audit events and ${auditedResponses} responses of this run read, ${findings.length} with a secret`,
  );
  if (findings.length > 0)
    throw new Error(`secrets in the log or private keys in answers:\n${findings.join("\n")}`);
});
