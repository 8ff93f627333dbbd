// Owns the environment Claude Code 2.1.332 runs in when a script records it against one of our fake
// model servers (CONTRIBUTING.md, "Tests"): a temporary HOME, the fake server's URL
// and a fake key, no telemetry and no other traffic. Scripts add what their case needs (IS_SANDBOX=1
// for --dangerously-skip-permissions as root, a case's own variables).

/** The variables of a Claude Code run in `home` against the fake server at `baseUrl`, plus `env`. */
export function claudeCodeEnv(
  home: string,
  baseUrl: string,
  o: { env?: Record<string, string> } = {},
): Record<string, string> {
  return {
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-fake-key",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...o.env,
  };
}
