// Owns what an Agent SDK session's `initialize` changes and answers (docs/guides/agent-sdk.md): the App
// each turn runs with (the mode and model the SDK set, the `agents` of its initialize added to
// `--agents`), and the success payload: the registry's agents, the models, the account's key source,
// and the `*_applied` confirmations the SDK checks (hooks, mcpServers; plugins are not loaded).

import type { App } from "../app.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { type InitializeOptions, initializePayload } from "./sdk_control.ts";

/** The App of a turn: the SDK's mode and model (when it set them) and its initialize's agents. */
export function sessionApp(
  app: App,
  o: {
    mode?: PermissionMode | undefined;
    model?: string | undefined;
    agents?: Record<string, unknown> | undefined;
  },
): App {
  const agents = agentsJson(app, o.agents);
  return {
    ...app,
    config: {
      ...app.config,
      permissionMode: o.mode ?? app.config.permissionMode,
      model: o.model ?? app.config.model,
    },
    flags: { ...app.flags, ...(agents === undefined ? {} : { agentsJson: agents }) },
  };
}

/** `--agents` with the initialize's agents added (theirs win by name). */
function agentsJson(app: App, given: Record<string, unknown> | undefined): string | undefined {
  if (given === undefined) return undefined;
  let flag: Record<string, unknown> = {};
  try {
    flag = app.flags.agentsJson === undefined ? {} : JSON.parse(app.flags.agentsJson);
  } catch {
    return app.flags.agentsJson; // its own error is reported when the registry loads it
  }
  return JSON.stringify({ ...flag, ...given });
}

/** The `response` of a successful initialize. */
export async function initializeAnswer(
  app: App,
  o: { options: InitializeOptions; pid: number },
): Promise<Record<string, unknown>> {
  const registry = await app.registry();
  return {
    ...initializePayload({
      agents: registry.list().map((a) => ({
        name: a.name,
        description: a.description,
        ...(a.model === "inherit" ? {} : { model: a.model }),
      })),
      model: app.config.model,
      aliases: app.config.aliases,
      mode: app.config.permissionMode,
      apiKeySource: app.config.provider === "anthropic"
        ? app.config.anthropic.apiKeySource ?? "none"
        : "none",
    }),
    ...(o.options.hooks === undefined ? {} : { hooks_applied: true }),
    ...(o.options.mcpServers === undefined ? {} : { mcp_servers_applied: true }),
    ...(o.options.plugins === true ? { plugins_applied: false } : {}),
    pid: o.pid,
  };
}
