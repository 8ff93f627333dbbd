// Owns reading Claude Code's settings files for Blade (docs/guides/migrating-from-claude-code.md):
// `~/.claude/settings.json`, the project's `.claude/settings.json` and `.claude/settings.local.json`
// (project files only in a trusted folder — except `permissions.deny`, which always applies), and a
// `--settings <file|json>` layer for one run. Honoured keys: permissions.allow|deny|ask,
// permissions.defaultMode, permissions.additionalDirectories, model, availableModels, env, outputStyle,
// apiKeyHelper, disabledMcpjsonServers (kept from untrusted files too: it only turns servers off), hooks
// (kept as written, with their source: lib/hooks/ reads them). Unknown keys are ignored (named in a
// warning), never an error;
// a file that is not JSON is. Blade's own settings win where both speak (config.ts).

import type { Fs } from "../sys/fs.ts";
import { readJsonFile } from "./json_file.ts";
import { BladeError } from "../errors.ts";
import { allInOrder } from "../sys/concurrency.ts";

/** Claude Code's setting sources (`--setting-sources user,project,local`). */
export type SettingSource = "user" | "project" | "local";

export const SETTING_SOURCES: readonly SettingSource[] = ["user", "project", "local"];

/** `--setting-sources`: a comma-separated list of sources (empty: none); a usage error for another word. */
export function settingSourcesOf(value: string): Set<SettingSource> {
  const words = value.split(",").map((w) => w.trim()).filter((w) => w !== "");
  for (const w of words) {
    if (!(SETTING_SOURCES as readonly string[]).includes(w)) {
      throw new BladeError("usage", `Unknown setting source "${w.slice(0, 40)}" in --setting-sources.`, {
        exitCode: 2,
        hint: `Use a comma-separated list of ${SETTING_SOURCES.join(", ")} (empty: none).`,
      });
    }
  }
  return new Set(words as SettingSource[]);
}

export interface ClaudeSettings {
  allow: string[];
  deny: string[];
  ask: string[];
  defaultMode?: string;
  model?: string;
  /** The models a subagent may be given (lib/manager/child_model.ts); the last layer naming it wins. */
  availableModels?: string[];
  /** Variables for the commands the session runs (not Blade's own process). */
  env: Record<string, string>;
  /** `.mcp.json` servers the user turned off in Claude Code (lib/mcp/sources.ts leaves them out). */
  disabledMcpjsonServers: string[];
  /** `outputStyle`: the output style of the main session (lib/styles). */
  outputStyle?: string;
  /** `apiKeyHelper`: a shell command printing the API key (provider/api_key_helper.ts). */
  apiKeyHelper?: string;
  /** `permissions.additionalDirectories`: folders added as `--add-dir` adds them. */
  additionalDirectories: string[];
  /** The `hooks` objects of the layers, each with where it came from (lib/protocol/hook_config.ts reads them). */
  hooks: HookLayer[];
  /** `path: key` of every key Blade ignored (a warning on stderr). */
  ignored: string[];
}

/** One settings layer's `hooks` object, as written. */
export interface HookLayer {
  source: SettingSource | "flag";
  where: string;
  hooks: unknown;
}

export function emptyClaudeSettings(): ClaudeSettings {
  return {
    allow: [],
    deny: [],
    ask: [],
    env: {},
    disabledMcpjsonServers: [],
    additionalDirectories: [],
    hooks: [],
    ignored: [],
  };
}

const HONOURED = new Set([
  "permissions",
  "model",
  "availableModels",
  "env",
  "disabledMcpjsonServers",
  "outputStyle",
  "apiKeyHelper",
  "hooks",
]);
const PERMISSION_KEYS = new Set(["allow", "deny", "ask", "defaultMode", "additionalDirectories"]);

function strings(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new BladeError("config_invalid", `${where} must be a list of rule strings.`, {
      hint: 'Example: "allow": ["Read", "Bash(npm test:*)"]',
    });
  }
  return value as string[];
}

/**
 * One settings object (a file's JSON or `--settings` JSON) as Claude settings; `where` names it,
 * `source` says which layer it is (its hooks carry it; default `flag`).
 */
export function claudeSettingsOf(
  json: unknown,
  where: string,
  options: { source?: SettingSource | "flag" } = {},
): ClaudeSettings {
  const out = emptyClaudeSettings();
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new BladeError("config_invalid", `${where} must be a JSON object.`, {
      hint: "Fix the file or remove it.",
    });
  }
  const o = json as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!HONOURED.has(key)) out.ignored.push(`${where}: ${key}`);
  if (o.hooks !== undefined) out.hooks.push({ source: options.source ?? "flag", where, hooks: o.hooks });
  if (typeof o.model === "string" && o.model !== "") out.model = o.model;
  if (typeof o.outputStyle === "string" && o.outputStyle !== "") out.outputStyle = o.outputStyle;
  if (typeof o.apiKeyHelper === "string" && o.apiKeyHelper.trim() !== "") out.apiKeyHelper = o.apiKeyHelper;
  const models = o.availableModels;
  if (Array.isArray(models) && models.every((m) => typeof m === "string")) out.availableModels = models;
  else if (models !== undefined) out.ignored.push(`${where}: availableModels (not a list of model names)`);
  if (typeof o.env === "object" && o.env !== null) {
    for (const [k, v] of Object.entries(o.env as Record<string, unknown>)) {
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out.env[k] = String(v);
    }
  }
  const off = o.disabledMcpjsonServers;
  if (Array.isArray(off) && off.every((v) => typeof v === "string")) out.disabledMcpjsonServers = off;
  else if (off !== undefined) out.ignored.push(`${where}: disabledMcpjsonServers (not a list of names)`);
  const p = o.permissions;
  if (typeof p === "object" && p !== null) {
    const perms = p as Record<string, unknown>;
    for (const key of Object.keys(perms)) {
      if (!PERMISSION_KEYS.has(key)) out.ignored.push(`${where}: permissions.${key}`);
    }
    out.allow = strings(perms.allow, `${where}: permissions.allow`);
    out.deny = strings(perms.deny, `${where}: permissions.deny`);
    out.ask = strings(perms.ask, `${where}: permissions.ask`);
    if (typeof perms.defaultMode === "string") out.defaultMode = perms.defaultMode;
    out.additionalDirectories = strings(
      perms.additionalDirectories,
      `${where}: permissions.additionalDirectories`,
    )
      .map((d) => d.trim()).filter((d) => d !== "");
  }
  return out;
}

async function readFile(
  fs: Fs,
  path: string,
  o: { source?: SettingSource | "flag" } = {},
): Promise<ClaudeSettings | undefined> {
  const json = await readJsonFile(fs, path);
  return json === undefined ? undefined : claudeSettingsOf(json, path, o);
}

/** Later layers win for model and defaultMode; rules and env add up (env: later wins per name). */
export function mergeClaudeSettings(layers: readonly ClaudeSettings[]): ClaudeSettings {
  const out = emptyClaudeSettings();
  for (const l of layers) {
    out.allow.push(...l.allow);
    out.deny.push(...l.deny);
    out.ask.push(...l.ask);
    if (l.defaultMode !== undefined) out.defaultMode = l.defaultMode;
    if (l.model !== undefined) out.model = l.model;
    if (l.outputStyle !== undefined) out.outputStyle = l.outputStyle;
    if (l.apiKeyHelper !== undefined) out.apiKeyHelper = l.apiKeyHelper;
    out.additionalDirectories.push(...l.additionalDirectories);
    if (l.availableModels !== undefined) out.availableModels = l.availableModels;
    Object.assign(out.env, l.env);
    out.disabledMcpjsonServers.push(...l.disabledMcpjsonServers);
    out.hooks.push(...l.hooks);
    out.ignored.push(...l.ignored);
  }
  return out;
}

/** `--settings`: a JSON text (starts with `{`) or a file path (relative to the working folder). */
export async function settingsFlagLayer(fs: Fs, value: string, cwd: string): Promise<ClaudeSettings> {
  if (value.trim().startsWith("{")) {
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch (e) {
      throw new BladeError("usage", `--settings is not valid JSON: ${(e as Error).message}`, {
        exitCode: 2,
        hint: `Pass a settings file or JSON text, e.g. --settings '{"model":"opus"}'.`,
      });
    }
    return claudeSettingsOf(json, "--settings");
  }
  const path = value.startsWith("/") ? value : `${cwd}/${value}`;
  const layer = await readFile(fs, path);
  if (layer === undefined) {
    throw new BladeError("file_not_found", `--settings: cannot read ${path}.`, {
      hint: "Pass an existing settings file or JSON text.",
    });
  }
  return layer;
}

/** The Claude Code settings of a run, untrusted project files reduced to their deny rules. */
export async function readClaudeSettings(
  fs: Fs,
  o: {
    userDir: string | undefined;
    workspace: string;
    trusted: boolean;
    /** `--setting-sources`: which files are read (default: all). */
    sources?: ReadonlySet<SettingSource>;
  },
): Promise<ClaudeSettings> {
  const layers: ClaudeSettings[] = [];
  const read = (source: SettingSource, path: string) =>
    o.sources === undefined || o.sources.has(source)
      ? readFile(fs, path, { source })
      : Promise.resolve(undefined);
  // Read together; a broken file is reported as if they were read in order.
  const [user, ...projects] = await allInOrder([
    o.userDir === undefined ? Promise.resolve(undefined) : read("user", `${o.userDir}/settings.json`),
    read("project", `${o.workspace}/.claude/settings.json`),
    read("local", `${o.workspace}/.claude/settings.local.json`),
  ]);
  if (user !== undefined) layers.push(user);
  for (const project of projects) {
    if (project === undefined) continue;
    // Deny beats trust: an untrusted repository may still forbid, never allow or configure.
    layers.push(
      o.trusted ? project : {
        ...emptyClaudeSettings(),
        deny: project.deny,
        disabledMcpjsonServers: project.disabledMcpjsonServers,
      },
    );
  }
  return mergeClaudeSettings(layers);
}
