// The tool goldens of Claude Code 2.1.332 (tests/fixtures/claude/tools/, recorded by
// scripts/record_claude_tools.ts from tests/support/claude_tool_cases.ts), against Blade driven by the
// same scripted cases on the same fake server:
// - the tool list: which tools both offer, and that every call Claude Code's schema accepts Blade's
//   accepts too (every property known, types and enums compatible, nothing more required), except the
//   differences listed below with their reasons (docs/reference/tools.md);
// - each case's tool results, compared as the case says (exact text where both are deterministic).

import assert from "node:assert/strict";
import { type FakeAnthropicServer, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { caseHandler, TOOL_CASES, type ToolCase } from "./support/claude_tool_cases.ts";
import { type BladeSandbox, bladeSandbox } from "./support/blade.ts";

type Json = Record<string, unknown>;

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/tools/", import.meta.url).pathname);

interface RecordedRequest {
  model: string;
  tools?: string[];
  last?: Json[];
  side?: Json;
}

interface Fixture {
  case: string;
  requests: RecordedRequest[];
  tools?: { name: string; input_schema: Json }[];
  deferred?: { inline: string[]; deferred: string[] };
}

async function fixture(name: string): Promise<Fixture> {
  return JSON.parse(await Deno.readTextFile(`${FIXTURES}${name}.json`)) as Fixture;
}

/** Claude Code's tools Blade does not offer, and why. */
const CLAUDE_ONLY_TOOLS: Record<string, string> = {
  CronCreate: "scheduled prompts: not a Blade feature",
  CronDelete: "scheduled prompts: not a Blade feature",
  CronList: "scheduled prompts: not a Blade feature",
  EnterWorktree: "Blade isolates a subagent with Agent's isolation: worktree instead",
  ExitWorktree: "Blade isolates a subagent with Agent's isolation: worktree instead",
  ListAgents: "agent teams and cross-session messages: not a Blade feature",
  SendMessage: "agent teams and cross-session messages: not a Blade feature",
  ReportFindings: "Claude Code's review UI; Blade's review agent answers in JSON",
  ScheduleWakeup: "the /loop command: not a Blade feature",
  Skill: "offered when the session has skills (docs/guides/memory.md); this run has none",
  Workflow: "workflow scripts: not a Blade feature",
};

/** Blade's tools Claude Code 2.1.332 no longer offers (it searches with Bash and reads output files). */
const BLADE_ONLY_TOOLS: Record<string, string> = {
  Glob: "Claude Code 2.1 offered it; Blade keeps it (faster than a shell find, checked against path rules)",
  Grep: "Claude Code 2.1 offered it; Blade keeps it (ripgrep-backed, checked against path rules)",
  TaskOutput: "Claude Code 2.1 offered it; Blade keeps it to read background tasks (no output files)",
};

/**
 * What a call valid for Claude Code's schema gets in Blade where Blade's schema differs. "ignored":
 * Blade drops the property (as it drops every unknown property); other entries say what Blade does.
 */
const KNOWN_DIFFERENCES: Record<string, string> = {
  "Agent.model": "fable is taken for a model id (Blade's aliases are sonnet, opus, haiku and inherit)",
  "Bash.timeout": "a whole number of milliseconds in Blade (Claude Code: any number)",
  "Bash.dangerouslyDisableSandbox": "ignored: Blade's OS sandbox has no per-call opt-out",
  "Read.pages": "ignored: Blade reads no PDF pages",
  "Read.allow_large": "ignored: Blade's Read has its own bounds",
  "Monitor.ws": "dropped: Blade watches commands only (a call without a command is an error result)",
  "Monitor.timeout_ms": "a whole number of milliseconds in Blade (Claude Code: any number)",
};

function typeOk(claude: Json, blade: Json): boolean {
  if (claude.type === blade.type) return true;
  return claude.type === "number" && blade.type === "integer" ? false : claude.type === undefined;
}

/** The differences between Claude Code's and Blade's schema of one tool, as `Tool.property` keys. */
function schemaDifferences(tool: string, claude: Json, blade: Json): string[] {
  const out: string[] = [];
  const cProps = (claude.properties ?? {}) as Record<string, Json>;
  const bProps = (blade.properties ?? {}) as Record<string, Json>;
  for (const [name, c] of Object.entries(cProps)) {
    const b = bProps[name];
    const key = `${tool}.${name}`;
    if (b === undefined) {
      out.push(key);
      continue;
    }
    const enumOk = !Array.isArray(c.enum) ||
      (Array.isArray(b.enum) ? (c.enum as unknown[]).every((v) => (b.enum as unknown[]).includes(v)) : false);
    const freeString = !Array.isArray(b.enum) && b.type === "string";
    if (!typeOk(c, b) || (!enumOk && !freeString) || (Array.isArray(c.enum) && freeString)) out.push(key);
  }
  const cRequired = new Set((claude.required ?? []) as string[]);
  for (const r of (blade.required ?? []) as string[]) {
    if (!cRequired.has(r)) out.push(`${tool}.${r} (required)`);
  }
  return out;
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=golden@blade.invalid", "-c", "user.name=golden", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** Runs Blade on a case against the case's fake server; returns the server (its requests). */
async function runCase(
  sandbox: BladeSandbox,
  c: ToolCase,
  extra: string[] = [],
): Promise<FakeAnthropicServer> {
  for (const [file, text] of Object.entries(c.files ?? {})) await sandbox.write(file, text);
  if (c.git !== undefined) {
    await git(sandbox.workspace, "init", "-q");
    await git(sandbox.workspace, "add", "-A");
    await git(sandbox.workspace, "commit", "-q", "--allow-empty", "-m", "init");
    for (const [file, text] of Object.entries(c.git.staged)) {
      await sandbox.write(file, text);
      await git(sandbox.workspace, "add", file);
    }
  }
  const server = startFakeAnthropicServer({ handler: caseHandler(c, sandbox.workspace) });
  const result = await sandbox.run([
    "-p",
    "Do the task.",
    "--output-format",
    "json",
    "--trust-workspace",
    ...(c.mode === undefined ? [] : ["--permission-mode", c.mode]),
    ...(c.flags ?? []),
    ...extra,
  ], { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key", ...c.env } });
  assert.ok(result.stdout.includes('"type":"result"'), `${c.name}: ${result.stderr}`);
  return server;
}

/** The tool results at the end of each request of the session (side requests left out), in order. */
function results(requests: { last?: Json[] }[]): { content: string; isError: boolean }[] {
  return requests.flatMap((r) =>
    (r.last ?? []).filter((b) => b.type === "tool_result").map((b) => ({
      content: typeof b.content === "string"
        ? b.content
        : (b.content as Json[]).map((x) => String(x.text ?? "")).join(""),
      isError: b.is_error === true,
    }))
  );
}

/** Blade's requests as the fixture keeps Claude Code's: the last message's blocks. */
function bladeRequests(server: FakeAnthropicServer): { last?: Json[]; tools: Json[]; body: Json }[] {
  return server.requests.map((r) => {
    const body = r.body as unknown as Json;
    const messages = (body.messages ?? []) as { content: unknown }[];
    const last = messages.at(-1)?.content;
    return {
      body,
      tools: (body.tools ?? []) as Json[],
      last: typeof last === "string" ? [{ type: "text", text: last }] : last as Json[],
    };
  });
}

function caseNamed(name: string): ToolCase {
  return TOOL_CASES.find((c) => c.name === name)!;
}

Deno.test("tool goldens: Blade offers Claude Code's tools with schemas that accept Claude Code's calls", async () => {
  const cc = await fixture("tool_list");
  await using sandbox = await bladeSandbox();
  await using server = await runCase(sandbox, caseNamed("tool_list"));
  const blade = bladeRequests(server)[0]!.tools.map((t) => ({
    name: String(t.name),
    schema: t.input_schema as Json,
  }));
  const ccNames = cc.tools!.map((t) => t.name);
  const bladeNames = blade.map((t) => t.name);
  assert.deepEqual(
    ccNames.filter((n) => !bladeNames.includes(n)).sort(),
    Object.keys(CLAUDE_ONLY_TOOLS).sort(),
    "Claude Code's tools Blade lacks",
  );
  assert.deepEqual(
    bladeNames.filter((n) => !ccNames.includes(n)).sort(),
    Object.keys(BLADE_ONLY_TOOLS).sort(),
    "Blade's tools Claude Code lacks",
  );
  const found: string[] = [];
  for (const c of cc.tools!) {
    const b = blade.find((t) => t.name === c.name);
    if (b !== undefined) found.push(...schemaDifferences(c.name, c.input_schema, b.schema));
  }
  assert.deepEqual(found.sort(), Object.keys(KNOWN_DIFFERENCES).sort(), "schema differences");
  // Older names are not in the list (Claude Code sends neither): calls with them still work.
  assert.equal(bladeNames.includes("Task") || bladeNames.includes("KillShell"), false);
});

Deno.test("tool goldens: Read renders a notebook and NotebookEdit answers as Claude Code does", async () => {
  const c = caseNamed("notebook");
  const cc = results((await fixture("notebook")).requests);
  await using sandbox = await bladeSandbox();
  await using server = await runCase(sandbox, c);
  const blade = results(bladeRequests(server));
  assert.equal(blade.length, cc.length);
  // The two Reads, the replace, the delete and the unknown cell: the same text (new cell ids aside).
  const newIds = (r: { content: string; isError: boolean }) => ({
    ...r,
    // Claude Code wraps some errors in <tool_use_error> tags; the text inside is what is compared.
    content: r.content.replace(/cell id="[0-9a-f]{8}"/g, 'cell id="NEW"')
      .replace(/^<tool_use_error>([\s\S]*)<\/tool_use_error>$/, "$1"),
  });
  for (const i of [0, 1, 3, 4, 5]) assert.deepEqual(newIds(blade[i]!), newIds(cc[i]!), `step ${i}`);
  // The insert names a new random cell id.
  const inserted = /^Inserted cell [0-9a-f]{8} with x = 1$/;
  assert.match(cc[2]!.content, inserted);
  assert.match(blade[2]!.content, inserted);
  // The notebook on disk: the same cells and sources (ids of inserted cells differ).
  const onDisk = (r: { content: string }) =>
    (JSON.parse(r.content) as { cells: Json[] }).cells.map((cell) => [cell.cell_type, cell.source]);
  const written = JSON.parse(await Deno.readTextFile(`${sandbox.workspace}/nb.ipynb`)) as { cells: Json[] };
  assert.deepEqual(written.cells.map((cell) => [cell.cell_type, cell.source]), onDisk(cc[6]!));
});

Deno.test("tool goldens: Read numbers lines, shows a part and warns as Claude Code does", async () => {
  const c = caseNamed("read_format");
  const cc = results((await fixture("read_format")).requests);
  await using sandbox = await bladeSandbox();
  await using server = await runCase(sandbox, c);
  const blade = results(bladeRequests(server));
  assert.equal(blade.length, cc.length);
  // Past 9 and 99 lines, offset and limit, past the end, an empty file, an offset near the end of a
  // long file, a CRLF file, tabs and no final newline: the same text.
  for (const i of [0, 1, 2, 3, 5, 7, 8]) assert.deepEqual(blade[i], cc[i], `step ${i}`);
  // Blade's own bounds (docs/reference/tools.md "Read"): a line is cut at 2000 characters, and a Read
  // without a limit stops at 2000 lines, saying so; Claude Code shows both whole (it refuses files over
  // 256 KB instead: read_limits.json). Around them, the same lines.
  const [wideBlade, wideCc] = [blade[4]!.content.split("\n"), cc[4]!.content.split("\n")];
  assert.equal(wideBlade[0], `1\t${"x".repeat(2000)}… [line truncated, 2500 chars]`);
  assert.equal(wideCc[0], `1\t${"x".repeat(2500)}`);
  assert.deepEqual(wideBlade.slice(1), wideCc.slice(1));
  const [bigBlade, bigCc] = [blade[6]!.content.split("\n"), cc[6]!.content.split("\n")];
  assert.deepEqual(bigBlade.slice(0, 2000), bigCc.slice(0, 2000));
  assert.deepEqual(bigBlade.slice(2000), [
    "",
    "(Showing lines 1-2000 of 2101. Use offset and limit to read other parts.)",
  ]);
  assert.equal(bigCc.length, 2101);
});

Deno.test("tool goldens: Read of a part of a large file is Claude Code's; the whole file is bounded differently", async () => {
  const c = caseNamed("read_limits");
  const cc = results((await fixture("read_limits")).requests);
  await using sandbox = await bladeSandbox();
  await using server = await runCase(sandbox, c);
  const blade = results(bladeRequests(server));
  assert.deepEqual(blade[1], cc[1], "offset 4990, limit 5");
  // Over 256 KB Claude Code refuses the file (pointing to offset, limit and allow_large); Blade shows its
  // first 2000 lines, each cut at 2000 characters, and says how to read the rest.
  assert.match(cc[0]!.content, /^File content \(467\.7KB\) exceeds maximum allowed size \(256KB\)/);
  assert.match(cc[2]!.content, /^File content \(293KB\) exceeds maximum allowed size \(256KB\)/);
  assert.match(
    blade[0]!.content,
    /\n\(Showing lines 1-2000 of 5001\. Use offset and limit to read other parts\.\)$/,
  );
  assert.match(blade[2]!.content, /^1\tz{2000}… \[line truncated, 300000 chars\]\n2\t$/);
});

Deno.test("tool goldens: WebSearch sends Anthropic's server tool and renders its results as Claude Code does", async () => {
  const cc = await fixture("web_search");
  await using sandbox = await bladeSandbox();
  await using server = await runCase(sandbox, caseNamed("web_search"));
  const requests = bladeRequests(server);
  assert.deepEqual(results(requests), results(cc.requests));
  // The search request: the same server tool with the call's domain filters, the query as the prompt.
  const ccSide = cc.requests.find((r) => r.side !== undefined)!.side! as { tools: Json[]; messages: Json[] };
  const side = requests.find((r) => !r.tools.some((t) => t.name === "Bash"))!;
  assert.deepEqual(side.tools, ccSide.tools);
  assert.deepEqual(side.body.messages, ccSide.messages);
});

Deno.test("tool goldens: WebFetch domain rules allow the same calls as Claude Code's", async () => {
  const cc = results((await fixture("web_rules")).requests);
  await using sandbox = await bladeSandbox();
  await using server = await runCase(sandbox, caseNamed("web_rules"));
  const blade = results(bladeRequests(server));
  const refused = (r: { content: string }) => /haven't granted it yet|^Permission denied:/.test(r.content);
  assert.deepEqual(blade.map(refused), cc.map(refused));
  assert.deepEqual(cc.map(refused), [false, true, false, true, true]);
  // Blade's refusal names the rule that would allow the call.
  assert.match(blade[1]!.content, /--allowed-tools "WebFetch\(domain:docs\.example\.invalid\)"/);
  assert.match(blade[4]!.content, /--allowed-tools "WebSearch"/);
});

for (const mode of ["default", "plan", "dontAsk"]) {
  Deno.test(`tool goldens: read-only commands run without a rule in ${mode} mode, as in Claude Code`, async () => {
    const cc = results((await fixture(`read_only_${mode}`)).requests);
    await using sandbox = await bladeSandbox();
    await using server = await runCase(sandbox, caseNamed(`read_only_${mode}`));
    const blade = results(bladeRequests(server));
    // ls, git status, git diff --staged, cat notes.txt run; a redirection and touch are refused.
    assert.deepEqual(cc.slice(0, 6).map((r) => r.isError), [false, false, false, false, true, true]);
    assert.deepEqual(blade.slice(0, 6).map((r) => r.isError), [false, false, false, false, true, true]);
    for (const i of [0, 1, 2, 3]) assert.equal(blade[i]!.content, cc[i]!.content, `step ${i}`);
    // Claude Code also runs a pipe of read-only commands and an expansion; Blade asks for a rule
    // (exactly one plain command only: docs/reference/tools.md).
    assert.deepEqual(cc.slice(6).map((r) => r.isError), [false, false]);
    assert.deepEqual(blade.slice(6).map((r) => r.isError), [true, true]);
  });
}

/** The notification blocks of the requests' last messages, ids and tool call ids normalised. */
function notifications(requests: { last?: Json[] }[]): string[] {
  return requests.flatMap((r) => (r.last ?? []).filter((b) => b.type === "text")).map((b) =>
    /<task-notification>[\s\S]*?<\/task-notification>/.exec(String(b.text))?.[0] ?? ""
  ).filter((t) => t !== "").map((t) =>
    t.replace(/<task-id>[^<]*</g, "<task-id>ID<").replace(/<tool-use-id>[^<]*</g, "<tool-use-id>CALL<")
      .replace(/<output-file>[^<]*<\/output-file>\n/g, "")
  );
}

Deno.test("tool goldens: a background command's end and a Monitor's events are told as Claude Code tells them", async () => {
  for (const name of ["background_shell", "monitor"]) {
    const cc = notifications((await fixture(name)).requests);
    await using sandbox = await bladeSandbox();
    await using server = await runCase(sandbox, caseNamed(name));
    const blade = notifications(bladeRequests(server));
    if (name === "background_shell") assert.deepEqual(blade, cc);
    else {
      // The same notices in order; how the lines group into events depends on timing.
      assert.deepEqual(blade.at(-1), cc.at(-1));
      const lines = (list: string[]) =>
        list.slice(0, -1).map((n) => /<event>([\s\S]*)<\/event>/.exec(n)?.[1]).join("\n");
      assert.equal(lines(blade), lines(cc));
    }
  }
});
