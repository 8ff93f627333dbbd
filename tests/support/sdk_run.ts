// Runs one Agent SDK case (tests/support/sdk_cases.ts): its program of tests/sdk/programs/ under Node,
// with the SDK pointed at a CLI (an executable file) through `pathToClaudeCodeExecutable`, against the
// case's fake Anthropic server, in a fresh workspace and HOME. Returns what the program reported, with
// the workspace's path written as /WORKSPACE. Used by tests/sdk_test.ts and scripts/record_sdk_goldens.ts.

import { startFakeAnthropicServer } from "../../lib/testing/fake_anthropic_server.ts";
import { stdioTestServer } from "../../lib/testing/mcp_test_server.ts";
import type { SdkCase } from "./sdk_cases.ts";

export const SDK_DIR = decodeURIComponent(new URL("../sdk/", import.meta.url).pathname);

/** Whether the SDK is installed (`npm ci --prefix tests/sdk --omit=optional`) and Node can run it. */
export async function sdkAvailable(): Promise<string | undefined> {
  try {
    await Deno.stat(`${SDK_DIR}node_modules/@anthropic-ai/claude-agent-sdk/package.json`);
  } catch {
    return "the Agent SDK is not installed (npm ci --prefix tests/sdk --omit=optional)";
  }
  try {
    const out = await new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
    return out.success ? undefined : "node does not run";
  } catch {
    return "node is not installed";
  }
}

export interface SdkRun {
  code: number;
  /** The program's report (its last stdout line), parsed. */
  report: unknown;
  stderr: string;
}

/**
 * Runs `c` with the SDK starting `cli` (an executable: Claude Code's binary, or a script that runs Blade).
 * `env` adds variables for the CLI (the SDK passes its own environment on).
 */
export async function runSdkCase(c: SdkCase, cli: string, env: Record<string, string> = {}): Promise<SdkRun> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-sdk-" }));
  const workspace = `${root}/work`;
  const home = `${root}/home`;
  await Deno.mkdir(workspace);
  await Deno.mkdir(home);
  try {
    await using server = startFakeAnthropicServer({ handler: c.handler(workspace) });
    const server_ = stdioTestServer([], {
      ...(env.DENO_DIR === undefined ? {} : { DENO_DIR: env.DENO_DIR }),
    });
    const out = await new Deno.Command("node", {
      args: [`${SDK_DIR}programs/${c.name}.mjs`],
      cwd: workspace,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: home,
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-fake-key",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Claude Code as root refuses --dangerously-skip-permissions without it.
        IS_SANDBOX: "1",
        NO_COLOR: "1",
        SDK_CLI: cli,
        SDK_CWD: workspace,
        MCP_SERVER: JSON.stringify(server_),
        ...c.env?.(workspace),
        ...env,
      },
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).output();
    const stdout = new TextDecoder().decode(out.stdout).trim();
    const stderr = new TextDecoder().decode(out.stderr);
    const last = stdout.split("\n").at(-1) ?? "";
    let report: unknown;
    try {
      report = JSON.parse(last.replaceAll(workspace, "/WORKSPACE"));
    } catch {
      report = undefined;
    }
    return { code: out.code, report, stderr };
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}
