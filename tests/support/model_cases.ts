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
];

/** The fields of a request body the comparison covers. */
export const MODEL_FIELDS = [
  "model",
  "max_tokens",
  "thinking",
  "context_management",
  "output_config",
] as const;
