// The runs tests/migration_table_test.ts checks the migration guide's rows with: `blade` with a row's
// flags, files and variables in a fresh folder (HOME, storage root and workspace of its own) against the
// loopback fake Anthropic server, in this process (runCli with the real ports, as the flag sweep runs
// it) or, when it needs a standard input, as a real process (tests/support/blade.ts). A run keeps what
// the model was sent (each request's body and headers) and what Blade printed, with readers for both.

import { runCli } from "../../lib/cli/main.ts";
import { captureIo } from "../../lib/cli/io.ts";
import { fakeEnv } from "../../lib/testing/fakes.ts";
import { realPorts } from "../../lib/sys/mod.ts";
import {
  type FakeAnthropicServer,
  type FakeHandler,
  type FakeResponse,
  fakeTurn,
  startFakeAnthropicServer,
} from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";
import { runBlade } from "./blade.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

export interface ProbeOptions {
  /** Variables on top of the run's own (HOME, the storage root, the fake server, a key); undefined unsets. */
  env?: Record<string, string | undefined>;
  /** Files written first: a path relative to the workspace, or `~/…` in the run's HOME. */
  files?: Record<string, string>;
  /** The model's answers in order (default: "Hi." to every request), or a handler deciding each. */
  answers?: FakeResponse[] | FakeHandler<AnthropicRequestBody>;
  /** Default true: the workspace is trusted (BLADE_TRUST_WORKSPACE=1). */
  trusted?: boolean;
  /** The workspace is a git repository with one commit. */
  git?: boolean;
  /** Standard input: the run is a real process. */
  stdin?: string;
  /** Run in the folders of an earlier run (its sessions, settings and files). */
  after?: ProbeRun;
}

export interface ProbeRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Every request the model server received. */
  requests: FakeAnthropicServer["requests"];
  root: string;
  ws: string;
  home: string;
  storage: string;
  /** Request `i`'s body (default: the first). */
  body(i?: number): Json;
  /** Request `i`'s system prompt as one text. */
  system(i?: number): string;
  /** The tool names request `i` offered. */
  tools(i?: number): string[];
  /** Every text of request `i`'s messages (user and assistant, tool results included), joined. */
  said(i?: number): string;
  /** The tool results request `i` carried, in order. */
  toolResults(i?: number): { content: string; isError: boolean }[];
  /** Stdout's JSON lines (stream-json), or its one JSON value as one line. */
  lines(): Json[];
  /** The result object (`json`: stdout; stream-json: the last result line). */
  result(): Json;
}

const roots: string[] = [];
const kept: string[] = [];

/** Removes the folders of the runs made since the last call, or (`all`) those kept too. */
export async function cleanProbes(o: { all?: boolean } = {}): Promise<void> {
  const gone = [...roots.splice(0), ...(o.all === true ? kept.splice(0) : [])];
  for (const root of gone) await Deno.remove(root, { recursive: true }).catch(() => {});
}

/** Keeps a run's folders until `cleanProbes({ all: true })` (a run several checks read). */
export function keepProbe(run: ProbeRun): ProbeRun {
  const at = roots.indexOf(run.root);
  if (at >= 0) kept.push(...roots.splice(at, 1));
  return run;
}

async function git(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
}

async function folders(
  o: ProbeOptions,
): Promise<{ root: string; ws: string; home: string; storage: string }> {
  if (o.after !== undefined) {
    const { root, ws, home, storage } = o.after;
    return { root, ws, home, storage };
  }
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-migration-" }));
  roots.push(root);
  const made = { root, ws: `${root}/ws`, home: `${root}/home`, storage: `${root}/storage` };
  await Deno.mkdir(made.ws);
  await Deno.mkdir(made.home);
  return made;
}

async function writeFiles(where: { ws: string; home: string }, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    const path = name.startsWith("~/") ? `${where.home}/${name.slice(2)}` : `${where.ws}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: Json) =>
    b.type === "text"
      ? b.text
      : b.type === "tool_result"
      ? textOf(b.content)
      : b.type === "tool_use"
      ? JSON.stringify(b.input)
      : ""
  ).join("\n");
}

/** `blade <args>` in a fresh folder (or an earlier run's), against a fake model server of its own. */
export async function probe(args: string[], o: ProbeOptions = {}): Promise<ProbeRun> {
  const where = await folders(o);
  await writeFiles(where, o.files ?? {});
  if (o.git === true && o.after === undefined) {
    await git(where.ws, "init", "-q");
    await git(where.ws, "add", "-A");
    await git(where.ws, "commit", "-q", "--allow-empty", "-m", "start");
  }
  const answers = o.answers ?? (() => fakeTurn({ text: "Hi." }));
  await using server = startFakeAnthropicServer(
    typeof answers === "function" ? { handler: answers } : { responses: answers },
  );
  const vars: Record<string, string | undefined> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: where.home,
    BLADE_STORAGE_ROOT: where.storage,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-probe-key",
    ...(o.trusted === false ? {} : { BLADE_TRUST_WORKSPACE: "1" }),
    ...o.env,
  };
  const env = Object.fromEntries(
    Object.entries(vars).filter((e): e is [string, string] => e[1] !== undefined),
  );
  let out: { code: number; stdout: string; stderr: string };
  if (o.stdin !== undefined) {
    out = await runBlade(args, { cwd: where.ws, env, stdin: o.stdin });
  } else {
    const io = captureIo();
    const ports = { ...realPorts(), env: fakeEnv(env, { cwd: where.ws, home: where.home }) };
    const code = await runCli(args, ports, io);
    out = { code, stdout: io.stdout(), stderr: io.stderr() };
  }
  const requests = [...server.requests];
  const body = (i = 0): Json => {
    const request = requests[i];
    if (request === undefined) throw new Error(`no request ${i} (${requests.length} made)\n${out.stderr}`);
    return request.body as unknown as Json;
  };
  const lines = (): Json[] => {
    const text = out.stdout.trim();
    if (text.startsWith("[") || !text.includes("\n")) return text === "" ? [] : [JSON.parse(text)];
    return text.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  };
  return {
    ...out,
    ...where,
    requests,
    body,
    system: (i) => {
      const system = body(i).system;
      return typeof system === "string" ? system : (system ?? []).map((b: Json) => b.text).join("\n");
    },
    tools: (i) => (body(i).tools ?? []).map((t: Json) => t.name),
    said: (i) => (body(i).messages as Json[]).map((m) => textOf(m.content)).join("\n"),
    toolResults: (i) =>
      (body(i).messages as Json[]).flatMap((m) => Array.isArray(m.content) ? m.content : [])
        .filter((b: Json) => b.type === "tool_result")
        .map((b: Json) => ({ content: textOf(b.content), isError: b.is_error === true })),
    lines,
    result: () => {
      const all = lines();
      const last = all.findLast((l) => l.type === "result") ?? all.at(-1);
      if (last === undefined) throw new Error(`no result on stdout\n${out.stderr}`);
      return Array.isArray(last) ? last.at(-1) : last;
    },
  };
}

/** A model that calls `calls` (one request each), then answers `text`; `{{result}}` is the last tool result. */
export function calling(
  calls: { name: string; input: Record<string, unknown> }[],
  o: { text?: string } = {},
): FakeHandler<AnthropicRequestBody> {
  return (request) => {
    const messages = (request.body as unknown as Json).messages as Json[];
    const done = messages.flatMap((m) => Array.isArray(m.content) ? m.content : [])
      .filter((b: Json) => b.type === "tool_result");
    const next = calls[done.length];
    if (next !== undefined) return fakeTurn({ toolCalls: [next] });
    const last = done.at(-1);
    return fakeTurn({
      text: (o.text ?? "Done.").replace("{{result}}", last === undefined ? "" : textOf(last.content)),
    });
  };
}

/**
 * A main session that delegates to one subagent (`Task`, in the background when asked) and a child that
 * lists the folder (one Glob call) and reports; a request is the child's when its task is in it.
 */
export function delegating(o: { background?: boolean } = {}): FakeHandler<AnthropicRequestBody> {
  return (request) => {
    const messages = (request.body as unknown as Json).messages as Json[];
    const results = messages.flatMap((m) => Array.isArray(m.content) ? m.content : [])
      .filter((b: Json) => b.type === "tool_result").length;
    if (textOf(messages[0]?.content).includes("CHILD TASK")) {
      return results === 0
        ? fakeTurn({ text: "Looking.", toolCalls: [{ name: "Glob", input: { pattern: "*" } }] })
        : fakeTurn({ text: "Child found the files." });
    }
    if (results === 0) {
      return fakeTurn({
        toolCalls: [{
          name: "Task",
          input: {
            description: "Look around",
            prompt: "CHILD TASK: list the files here.",
            subagent_type: "general-purpose",
            ...(o.background === true ? { run_in_background: true } : {}),
          },
        }],
      });
    }
    return fakeTurn({ text: results === 1 ? "Delegated." : "All done." });
  };
}
