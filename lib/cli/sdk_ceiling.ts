// Owns how far the Agent SDK's `set_permission_mode` may widen a session's mode (docs/guides/agent-sdk.md):
// widening the top-level session is the SDK host's choice — the capability ceiling is about children,
// which keep the grant they were started with — up to `auto`, and up to `bypassPermissions` only when
// the launch allowed it (`--allow-dangerously-skip-permissions`, or it started there). The host is the
// user's own program, which also wrote the command line: its requests grant as the command line does,
// also in an untrusted folder (permissions/command_line_grant.ts). Pure; table-tested.

import type { PermissionMode } from "../protocol/permission_mode.ts";
import { MODE_ORDER } from "../permissions/ceiling.ts";

export function sdkModeCeiling(o: {
  launched: PermissionMode;
  allowBypass: boolean;
}): { mode: PermissionMode; source: string } {
  if (o.allowBypass || o.launched === "yolo") return { mode: "yolo", source: "" };
  const widest: PermissionMode = MODE_ORDER.indexOf(o.launched) > MODE_ORDER.indexOf("auto")
    ? o.launched
    : "auto";
  return {
    mode: widest,
    source:
      "bypassPermissions needs --allow-dangerously-skip-permissions (the SDK's allowDangerouslySkipPermissions)",
  };
}
