// The project-context golden comparison with Claude Code 2.1.332 (docs/guides/memory.md): each case of
// tests/support/claude_context_cases.ts runs through Blade against the same fake server, and what
// reached the model is compared with what Claude Code sent (tests/fixtures/claude/context_*/, re-record
// with scripts/record_claude_context.ts): the memory block's files, labels and order, nested memory,
// a command's expansion, the skills listing, the Skill tool and what a Skill call returns, what
// subagents get. Where Blade differs on purpose, the test says how (and the migration guide lists it).

import assert from "node:assert/strict";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { CONTEXT_CASES, type ContextCase } from "./support/claude_context_cases.ts";
import { runBlade } from "./support/blade.ts";
import { writeTree } from "../scripts/record_claude_context.ts";
import { MEMORY_HEADER, NESTED_NOTE } from "../lib/memory/memory_context.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/", import.meta.url).pathname);

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  tool_use_id?: string;
}
interface Msg {
  role: string;
  content: string | Block[];
}
interface Req {
  model?: string;
  messages: Msg[];
  tools: string[];
  skillTool?: unknown;
  system?: string;
}

const caseNamed = (name: string) => CONTEXT_CASES.find((c) => c.name === name)!;

async function golden(name: string): Promise<Req[]> {
  return JSON.parse(await Deno.readTextFile(`${FIXTURES}context_${name}/requests.json`)) as Req[];
}

/** Runs a case through Blade; its requests normalised like the fixtures (/ROOT, /HOME). */
async function blade(
  c: ContextCase,
  extraEnv: Record<string, string> = {},
  o: { flags?: string[]; expectCode?: number; stderr?: (text: string) => void } = {},
): Promise<Req[]> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-home-" }));
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-root-" }));
  try {
    await writeTree(root, c.files);
    await writeTree(home, c.homeFiles);
    await Deno.mkdir(`${root}/${c.cwd}`, { recursive: true });
    await using server = startFakeAnthropicServer({ handler: c.handler(root) });
    const run = await runBlade(["-p", c.prompt, "--output-format", "json", ...(o.flags ?? c.flags)], {
      cwd: `${root}/${c.cwd}`,
      env: {
        HOME: home,
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-fake-key",
        BLADE_TRUST_WORKSPACE: "1",
        BLADE_MANAGED_DIR: "",
        ...extraEnv,
      },
    });
    assert.equal(run.code, o.expectCode ?? 0, `${c.name}: ${run.stderr}`);
    o.stderr?.(run.stderr + run.stdout);
    const normal = (v: unknown) =>
      JSON.parse(JSON.stringify(v).replaceAll(root, "/ROOT").replaceAll(home, "/HOME")) as Msg[];
    return server.requests.filter((r) => r.path === "/v1/messages").map((r) => {
      const body = r.body as unknown as {
        model: string;
        messages: unknown[];
        tools?: { name: string }[];
        system?: string | { text: string }[];
      };
      const skill = body.tools?.find((t) => t.name === "Skill");
      return {
        model: body.model,
        system: typeof body.system === "string"
          ? body.system
          : (body.system ?? []).map((b) => b.text).join("\n"),
        messages: normal(body.messages),
        tools: (body.tools ?? []).map((t) => t.name),
        ...(skill === undefined ? {} : { skillTool: normal(skill) }),
      };
    });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
}

function blocksOf(m: Msg): Block[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
}

const texts = (m: Msg) => blocksOf(m).filter((b) => b.type === "text").map((b) => b.text ?? "");

/** The memory block's entries (`Contents of …:\n\n…`), without the opening sentence, which differs. */
function memoryEntries(req: Req): string[] | undefined {
  const first = req.messages.find((m) => m.role === "user");
  const block = first === undefined
    ? undefined
    : texts(first).find((t) => t.startsWith("<system-reminder>\nCodebase"));
  if (block === undefined) return undefined;
  // Claude Code ends a subagent's block with one more line end.
  const body = block.trimEnd().slice("<system-reminder>\n".length, -"\n</system-reminder>".length);
  return body.slice(body.indexOf("\n\n") + 2).split(/\n\n(?=Contents of \/)/);
}

/** The user texts after the last tool result of a request (what followed the results). */
function afterResults(req: Req): string[] {
  const last = req.messages.at(-1)!;
  return texts(last);
}

Deno.test("memory: every layer in Claude Code's order, labels and imports; nested memory after the Read", async () => {
  const c = caseNamed("memory_layers");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  assert.equal(ours.length, theirs.length);
  const entries = memoryEntries(ours[0]!)!;
  assert.deepEqual(entries, memoryEntries(theirs[0]!));
  // Blade's own opening sentence: the files are data that can authorise nothing.
  const first = texts(ours[0]!.messages[0]!)[0]!;
  assert.ok(first.startsWith(`<system-reminder>\n${MEMORY_HEADER}\n\n`));
  assert.doesNotMatch(first, /NOT-LOADED|OVERRIDE/);
  // Every request opens with the same block (it is never part of the stored conversation).
  assert.deepEqual(memoryEntries(ours[1]!), entries);
  // Nested memory follows the result of the Read that first reached its folder: Claude Code's block,
  // and Blade's framing note before the block closes.
  const theirsNested = afterResults(theirs[1]!);
  const oursNested = afterResults(ours[1]!).map((t) => t.replace(`${NESTED_NOTE}\n`, ""));
  assert.deepEqual(oursNested, theirsNested);
});

Deno.test("memory: AGENTS.md stands in for a missing CLAUDE.md", async () => {
  const c = caseNamed("memory_agents_md");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  assert.deepEqual(memoryEntries(ours[0]!), memoryEntries(theirs[0]!));
});

Deno.test("memory: --bare loads none", async () => {
  const c = caseNamed("memory_bare");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  assert.equal(memoryEntries(theirs[0]!), undefined);
  assert.equal(memoryEntries(ours[0]!), undefined);
  assert.deepEqual(texts(ours[0]!.messages[0]!), [c.prompt]);
});

Deno.test("memory: an untrusted folder loads the user's files only", async () => {
  const c = caseNamed("memory_layers");
  const ours = await blade(c, { BLADE_TRUST_WORKSPACE: "0" });
  const entries = memoryEntries(ours[0]!)!;
  assert.deepEqual(entries.map((e) => e.slice(0, e.indexOf(" ("))), [
    "Contents of /HOME/.claude/CLAUDE.md",
    "Contents of /HOME/notes/user-extra.md",
    "Contents of /HOME/.claude/rules/style.md",
  ]);
  // No nested memory either.
  assert.deepEqual(afterResults(ours[1]!), []);
});

/** The first request's user texts that belong to a command: all but the memory and Claude Code's own notes. */
function commandBlocks(req: Req): string[] {
  return req.messages.filter((m) => m.role === "user").flatMap(texts).filter((t) =>
    !t.startsWith("<system-reminder>\nCodebase") && !t.includes("# gitStatus") &&
    !t.includes("Attribution for git") && !t.startsWith("<system-reminder>\nThe following skills")
  );
}

Deno.test("commands: a project command expands as in Claude Code: header, $0/$1/$ARGUMENTS, @file, !`command`, model", async () => {
  const c = caseNamed("command_review");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  assert.equal(ours.length, 1);
  assert.deepEqual(commandBlocks(ours[0]!), commandBlocks(theirs[0]!));
  // `model: haiku` chose the model of the turn.
  assert.match(ours[0]!.model!, /haiku/);
  // The memory block still opens the message (Claude Code puts the @file blocks before it).
  assert.ok(texts(ours[0]!.messages[0]!)[0]!.startsWith("<system-reminder>\nCodebase"));
});

Deno.test("commands: a namespaced command, and arguments appended to a body without placeholders", async () => {
  const c = caseNamed("command_namespaced");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  assert.deepEqual(commandBlocks(ours[0]!), commandBlocks(theirs[0]!));
});

Deno.test("commands: a user command (~/.claude/commands)", async () => {
  const c = caseNamed("command_user");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  assert.deepEqual(commandBlocks(ours[0]!), commandBlocks(theirs[0]!));
});

Deno.test("skills: the listing, the Skill tool's schema, and what a Skill call returns", async () => {
  const c = caseNamed("skill_call");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  // Claude Code lists its own built-in skills too; ours are listed the same way, in the same order.
  const listed = (req: Req, names: string[]) =>
    req.messages.flatMap(texts).join("\n").split("\n").filter((l) =>
      names.some((n) => l.startsWith(`- ${n}: `))
    );
  const names = ["lint-fix", "deploy"];
  assert.deepEqual(listed(ours[0]!, names), listed(theirs[0]!, names));
  assert.deepEqual(listed(ours[0]!, names), [
    "- lint-fix: Fix lint errors",
    "- deploy: Deploy the app to an environment",
  ]);
  const schema = (req: Req) => {
    const s = (req.skillTool as {
      input_schema: { properties: Record<string, { type: string }>; required: string[] };
    })
      .input_schema;
    return {
      properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, v.type])),
      required: s.required,
    };
  };
  assert.deepEqual(schema(ours[0]!), schema(theirs[0]!));
  // The call's result, then the skill's folder and instructions with its arguments, as one message.
  const last = (req: Req) =>
    blocksOf(req.messages.at(-1)!).map((b) => b.type === "tool_result" ? String(b.content) : b.text);
  assert.deepEqual(last(ours[1]!), last(theirs[1]!));
});

Deno.test("output styles: the outputStyle setting picks a project style; its section follows the environment", async () => {
  const c = caseNamed("output_style");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  const section = "# Output Style: Pirate\nSTYLE-BODY: answer as a pirate would.";
  // Claude Code sends its environment (and the style's section) as a system-role message.
  assert.ok(theirs[0]!.messages.flatMap(texts).some((t) => t.includes(`\n\n${section}\n`)));
  assert.ok(ours[0]!.system!.includes(section), ours[0]!.system);
  const intro = 'according to your "Output Style", which describes how you should respond to user queries.';
  assert.ok(theirs[0]!.system!.includes(intro));
  assert.ok(ours[0]!.system!.replace(/\n/g, " ").includes(intro), ours[0]!.system);
  // Blade's coding sentence is left out: the style does not ask to keep it.
  assert.doesNotMatch(ours[0]!.system!, /command-line coding agent/);
  // --output-style wins over the setting; a built-in style by name; an unknown one is a warning.
  const flag = await blade(c, {}, { flags: [...c.flags, "--output-style", "explanatory"] });
  assert.match(flag[0]!.system!, /# Output Style: Explanatory\nExplain as you work\./);
  let stderr = "";
  const unknown = await blade(c, {}, { flags: ["--output-style", "Nope"], stderr: (t) => (stderr = t) });
  assert.doesNotMatch(unknown[0]!.system!, /# Output Style/);
  assert.match(stderr, /warning: output style "Nope" is not built in \(Explanatory, Learning\) nor found in/);
});

Deno.test("subagents: general-purpose gets the memory, Explore none; an agent's skills: load after its task", async () => {
  const c = caseNamed("subagent_context");
  const [theirs, ours] = [await golden(c.name), await blade(c)];
  const of = (reqs: Req[], type: string) =>
    reqs.find((r) => texts(r.messages[0]!).some((t) => t.startsWith(`SUBAGENT-TASK for ${type}.`)))!;
  for (const type of ["general-purpose", "Explore", "deployer"]) {
    const [cc, b] = [of(theirs, type), of(ours, type)];
    assert.ok(cc !== undefined && b !== undefined, type);
    assert.deepEqual(memoryEntries(b), memoryEntries(cc), type);
    // Each is told about the run's skills.
    const listed = (r: Req) =>
      r.messages.flatMap(texts).some((t) => t.includes("\n- deploy: Deploy the app to an environment\n"));
    assert.ok(listed(cc) && listed(b), type);
  }
  assert.equal(memoryEntries(of(ours, "Explore")), undefined);
  // After the task: the skill's command header and its instructions (no arguments), as Claude Code sends them.
  const afterTask = (r: Req) => {
    const t = texts(r.messages[0]!).map((x) => x.replace(/\n$/, ""));
    return t.slice(t.findIndex((x) => x.startsWith("SUBAGENT-TASK")) + 1);
  };
  assert.deepEqual(afterTask(of(ours, "deployer")), afterTask(of(theirs, "deployer")));
  assert.deepEqual(of(ours, "deployer").tools.sort(), ["Read", "Skill"]);
});
