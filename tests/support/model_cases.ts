// The model cases of tests/models_golden_test.ts: command-line flags and variables whose effect on the
// request body (model id, max_tokens, thinking, context_management, output_config, anthropic-beta)
// Claude Code 2.1.332 shows, recorded by scripts/record_claude_models.ts (tests/fixtures/claude/models/).
// No case without --model or ANTHROPIC_MODEL: Blade's default model is sonnet, Claude Code's opus.

export interface ModelCase {
  name: string;
  flags: string[];
  env?: Record<string, string>;
}

export const MODEL_CASES: ModelCase[] = [
  { name: "opus", flags: ["--model", "opus"] },
  { name: "sonnet", flags: ["--model", "sonnet"] },
  { name: "haiku", flags: ["--model", "haiku"] },
  { name: "fable", flags: ["--model", "fable"] },
  { name: "custom_id", flags: ["--model", "my-gateway-model"] },
  { name: "sonnet_4_5", flags: ["--model", "claude-sonnet-4-5"] },
  { name: "sonnet_4_5_dated", flags: ["--model", "claude-sonnet-4-5-20250929"] },
  { name: "opus_4_5", flags: ["--model", "claude-opus-4-5"] },
  { name: "opus_4_6", flags: ["--model", "claude-opus-4-6"] },
  { name: "opus_4_7", flags: ["--model", "claude-opus-4-7"] },
  { name: "sonnet_4_6", flags: ["--model", "claude-sonnet-4-6"] },
  { name: "retired_opus_4_1", flags: ["--model", "claude-opus-4-1"] },
  { name: "haiku_3_5", flags: ["--model", "claude-3-5-haiku-20241022"] },
  { name: "effort_low", flags: ["--model", "opus", "--effort", "low"] },
  { name: "effort_max_haiku", flags: ["--model", "haiku", "--effort", "max"] },
  { name: "effort_env", flags: ["--model", "sonnet"], env: { CLAUDE_CODE_EFFORT_LEVEL: "xhigh" } },
  { name: "thinking_budget", flags: ["--model", "claude-sonnet-4-5"], env: { MAX_THINKING_TOKENS: "5000" } },
  // The API's least budget is 1024: Claude Code raises a smaller one to it.
  {
    name: "thinking_budget_small",
    flags: ["--model", "claude-sonnet-4-5"],
    env: { MAX_THINKING_TOKENS: "500" },
  },
  { name: "thinking_off", flags: ["--model", "claude-sonnet-4-5"], env: { MAX_THINKING_TOKENS: "0" } },
  { name: "thinking_off_custom", flags: ["--model", "my-gateway-model"], env: { MAX_THINKING_TOKENS: "0" } },
  { name: "thinking_not_off_opus", flags: ["--model", "opus"], env: { MAX_THINKING_TOKENS: "0" } },
  { name: "max_output_small", flags: ["--model", "opus"], env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "4000" } },
  {
    name: "max_output_capped",
    flags: ["--model", "claude-sonnet-4-5"],
    env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "200000" },
  },
  { name: "thinking_display", flags: ["--model", "opus", "--thinking-display=summarized"] },
  // Messages printed (json or stream-json with --verbose): Claude Code asks for thinking `updates`.
  { name: "thinking_display_verbose", flags: ["--model", "opus", "--verbose"] },
  {
    name: "thinking_display_verbose_omitted",
    flags: ["--model", "opus", "--verbose", "--thinking-display=omitted"],
  },
  {
    name: "thinking_display_verbose_highlights",
    flags: ["--model", "opus", "--verbose", "--thinking-display=highlights"],
  },
  { name: "thinking_off_opus_4_6", flags: ["--model", "claude-opus-4-6"], env: { MAX_THINKING_TOKENS: "0" } },
  { name: "thinking_disabled_opus_4_6", flags: ["--model", "claude-opus-4-6", "--thinking", "disabled"] },
  { name: "thinking_disabled_opus", flags: ["--model", "opus", "--thinking", "disabled"] },
];

/** The fields of a request body the comparison covers. */
export const MODEL_FIELDS = [
  "model",
  "max_tokens",
  "thinking",
  "context_management",
  "output_config",
] as const;

/**
 * The child cases of tests/models_golden_test.ts: a session that delegates once (Agent with `call`) to a
 * child of `agent` (a user-level agent file with `frontmatter`), recorded by the same script
 * (tests/fixtures/claude/models/children.json): what the child's request carries.
 */
export interface ChildModelCase {
  name: string;
  flags: string[];
  /** The Agent call's input besides description and prompt. */
  call: Record<string, unknown>;
  /** The frontmatter lines of `~/.claude/agents/helper.md` (name and description added). */
  frontmatter?: string;
}

export const CHILD_MODEL_CASES: ChildModelCase[] = [
  {
    name: "agent_effort",
    flags: ["--model", "opus"],
    call: { subagent_type: "helper" },
    frontmatter: "effort: low",
  },
  {
    name: "call_effort",
    flags: ["--model", "opus"],
    call: { subagent_type: "general-purpose", effort: "high" },
  },
  {
    name: "call_effort_over_agent",
    flags: ["--model", "opus"],
    call: { subagent_type: "helper", effort: "xhigh" },
    frontmatter: "effort: low",
  },
  {
    name: "run_effort",
    flags: ["--model", "opus", "--effort", "low"],
    call: { subagent_type: "general-purpose" },
  },
  {
    name: "agent_effort_budget_model",
    flags: ["--model", "opus"],
    call: { subagent_type: "helper" },
    frontmatter: "effort: max\nmodel: claude-sonnet-4-5",
  },
];

/** The user-level agent file of a child case. */
export function childAgentFile(c: ChildModelCase): string {
  return `---\nname: helper\ndescription: Helps with one task\n${c.frontmatter ?? ""}\n---\n\nYou help.\n`;
}

/** The request's text, for telling the child's requests (its prompt opens them) from the parent's. */
export const CHILD_PROMPT = "CHILD TASK: answer in one word.";

/** The model's answers of a child case: the parent delegates once, the child answers, the parent ends. */
export function delegateOnce(c: ChildModelCase): (body: Record<string, unknown>) => Record<string, unknown> {
  return (body) => {
    const messages = (body.messages ?? []) as unknown[];
    if (JSON.stringify(messages[0] ?? "").includes("CHILD TASK")) return { text: "Done." };
    if (JSON.stringify(messages).includes("tool_result")) return { text: "All done." };
    return {
      toolCalls: [{
        name: "Agent",
        input: { description: "One task", prompt: CHILD_PROMPT, run_in_background: false, ...c.call },
      }],
    };
  };
}
