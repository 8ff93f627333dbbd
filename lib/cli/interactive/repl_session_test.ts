import assert from "node:assert/strict";
import { notificationDelays } from "./repl_session.ts";

Deno.test("notificationDelays: Claude Code 2.1.332's 6 seconds and minute; the variables set them, nonsense does not", () => {
  assert.deepEqual(notificationDelays(() => undefined), { permissionMs: 6_000, idleMs: 60_000 });
  const env: Record<string, string> = {
    BLADE_PERMISSION_NOTIFICATION_MS: "300",
    BLADE_IDLE_NOTIFICATION_MS: "1500",
  };
  assert.deepEqual(notificationDelays((n) => env[n]), { permissionMs: 300, idleMs: 1_500 });
  const bad: Record<string, string> = {
    BLADE_PERMISSION_NOTIFICATION_MS: "-1",
    BLADE_IDLE_NOTIFICATION_MS: "soon",
  };
  assert.deepEqual(notificationDelays((n) => bad[n]), { permissionMs: 6_000, idleMs: 60_000 });
});
