import assert from "node:assert/strict";
import {
  argumentWords,
  expandCommand,
  type ExpandEffects,
  shellSpans,
  slashPrompt,
  substituteArguments,
} from "./expand_command.ts";
import { parseCommand } from "./command_file.ts";

Deno.test("slashPrompt: a name and the rest; not a command otherwise", () => {
  assert.deepEqual(slashPrompt("/review src/a.ts  now "), { name: "review", args: "src/a.ts  now" });
  assert.deepEqual(slashPrompt("  /frontend:component"), { name: "frontend:component", args: "" });
  assert.deepEqual(slashPrompt("/a\nsecond line"), { name: "a", args: "second line" });
  for (const p of ["review", "//x", "/", "/ spaced", "a /b"]) assert.equal(slashPrompt(p), undefined, p);
});

Deno.test("argumentWords: white space splits, quotes keep words together", () => {
  assert.deepEqual(argumentWords(`a "b c" 'd e' f`), ["a", "b c", "d e", "f"]);
  assert.deepEqual(argumentWords(""), []);
});

Deno.test("substituteArguments: $ARGUMENTS, $ARGUMENTS[N] and $N are 0-based; no placeholder appends", () => {
  const cases: [string, string, string][] = [
    ["Zero=$0 One=$1 Two=$2 Idx=$ARGUMENTS[1] All=$ARGUMENTS", "a b c", "Zero=a One=b Two=c Idx=b All=a b c"],
    ["Missing=$5.", "a", "Missing=."],
    ["Body\n", "x y", "Body\n\n\nARGUMENTS: x y"],
    ["Body\n", "", "Body\n"],
    ["$ARGUMENTS", "", ""],
  ];
  for (const [body, args, want] of cases) assert.equal(substituteArguments(body, args), want, body);
});

Deno.test("shellSpans: each !`command` of a body", () => {
  assert.deepEqual(shellSpans("a !`git status` b !`echo x`\n`plain` !``"), ["git status", "echo x"]);
});

const effects = (o: Partial<ExpandEffects> & { ran?: string[] } = {}): ExpandEffects => ({
  run: o.run ?? ((command) => {
    o.ran?.push(command);
    return Promise.resolve({ ok: true, output: `out of ${command}\n` });
  }),
  read: o.read ??
    ((path) => Promise.resolve(path === "notes.md" ? { path: "/ws/notes.md", text: "N1\nN2\n" } : undefined)),
});

Deno.test("expandCommand: header, substituted body, outputs of !`…`, and Reads of @files before them", async () => {
  const cmd = parseCommand(
    "---\ndescription: d\n---\nDo $0 with @notes.md and @missing.md: !`git diff $0`\n",
    {
      name: "do",
      source: "project",
      path: "/ws/.claude/commands/do.md",
    },
  );
  const ran: string[] = [];
  const got = await expandCommand(cmd, "x", effects({ ran }));
  assert.deepEqual(ran, ["git diff x"]);
  assert.deepEqual(got, {
    ok: true,
    blocks: [
      '<system-reminder>\nCalled the Read tool with the following input: {"file_path":"/ws/notes.md"}\n</system-reminder>',
      "<system-reminder>\nResult of calling the Read tool:\n1\tN1\n2\tN2\n3\t\n</system-reminder>",
      "<command-message>do</command-message>\n<command-name>/do</command-name>\n<command-args>x</command-args>\n",
      "Do x with @notes.md and @missing.md: out of git diff x\n",
    ],
  });
});

Deno.test("expandCommand: a refused !`command` stops the expansion with its reason", async () => {
  const cmd = parseCommand("A !`rm -rf x` B !`echo never`", { name: "c", source: "user", path: "/u/c.md" });
  const ran: string[] = [];
  const got = await expandCommand(cmd, "", {
    ...effects(),
    run: (command) => {
      ran.push(command);
      return Promise.resolve({ ok: false, message: "Bash is refused." });
    },
  });
  assert.deepEqual(got, { ok: false, message: "/c runs `rm -rf x`, which did not run: Bash is refused." });
  assert.deepEqual(ran, ["rm -rf x"]);
});
