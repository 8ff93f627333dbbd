import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import {
  ancestorsOf,
  loadMemory,
  MAX_IMPORT_LEVELS,
  MAX_MEMORY_FILE_BYTES,
  type MemoryRoots,
} from "./load_memory.ts";
import { NestedMemory } from "./nested_memory.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "memory-" }));
  for (const [path, text] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
  return root;
}

function roots(root: string, o: Partial<MemoryRoots> = {}): MemoryRoots {
  return {
    workspace: `${root}/ws`,
    trusted: true,
    home: `${root}/home`,
    userDir: `${root}/home/.claude`,
    ...o,
  };
}

const shown = (root: string, files: { path: string; kind: string }[]) =>
  files.map((f) => `${f.kind} ${f.path.replace(root, "")}`);

Deno.test("ancestorsOf: top-most first, without the root", () => {
  assert.deepEqual(ancestorsOf("/a/b/c"), ["/a", "/a/b", "/a/b/c"]);
  assert.deepEqual(ancestorsOf("/"), []);
});

Deno.test("loadMemory: managed, user, then each folder; imports follow their file; cycles once", async () => {
  const root = await tree({
    "managed/CLAUDE.md": "policy",
    "home/.claude/CLAUDE.md": "user @~/extra.md",
    "home/extra.md": "extra @~/.claude/CLAUDE.md",
    "ws/CLAUDE.md": "project @a.md",
    "ws/a.md": "a @b.md",
    "ws/b.md": "b @a.md",
    "ws/CLAUDE.local.md": "local",
  });
  try {
    const got = await loadMemory(realFs(), roots(root, { managedDir: `${root}/managed` }));
    const wanted = [
      "managed /managed/CLAUDE.md",
      "user /home/.claude/CLAUDE.md",
      "user /home/extra.md",
      "project /ws/CLAUDE.md",
      "project /ws/a.md",
      "project /ws/b.md",
      "local /ws/CLAUDE.local.md",
    ];
    // Ancestors of the temp folder hold no memory files of their own here.
    assert.deepEqual(shown(root, got.value).filter((l) => l.includes(" /")), wanted);
    assert.equal(got.value.find((f) => f.path.endsWith("/ws/a.md"))?.importedBy, `${root}/ws/CLAUDE.md`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadMemory: imports stop after the level limit and never leave their folder", async () => {
  const chain: Record<string, string> = {
    "ws/CLAUDE.md": "@l1.md @../outside.md @/etc/hostname @missing.md",
  };
  for (let i = 1; i <= 6; i++) chain[`ws/l${i}.md`] = `level ${i} @l${i + 1}.md`;
  chain["outside.md"] = "outside";
  const root = await tree(chain);
  try {
    await Deno.symlink(`${root}/outside.md`, `${root}/ws/link.md`);
    await Deno.writeTextFile(`${root}/ws/CLAUDE.local.md`, "@link.md");
    const got = await loadMemory(realFs(), roots(root));
    const project = got.value.filter((f) => f.path.startsWith(`${root}/ws/`)).map((f) =>
      f.path.slice(root.length)
    );
    assert.equal(MAX_IMPORT_LEVELS, 5);
    assert.deepEqual(project, [
      "/ws/CLAUDE.md",
      "/ws/l1.md",
      "/ws/l2.md",
      "/ws/l3.md",
      "/ws/l4.md",
      "/ws/CLAUDE.local.md",
    ]);
    const notes = got.diagnostics.map((d) => d.message.replace(root, ""));
    assert.ok(notes.some((n) => n.includes("imports ../outside.md, which is outside")), notes.join("\n"));
    assert.ok(notes.some((n) => n.includes("imports /etc/hostname, which is outside")), notes.join("\n"));
    assert.ok(notes.some((n) => n.includes("missing.md, which does not exist")), notes.join("\n"));
    assert.ok(notes.some((n) => n.includes("imports link.md, which is outside")), notes.join("\n"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadMemory: AGENTS.md only in a project without CLAUDE.md; rules without paths: only", async () => {
  const root = await tree({
    "ws/AGENTS.md": "agents",
    "ws/.claude/rules/b.md": "---\ndescription: x\n---\nrule b",
    "ws/.claude/rules/a/deep.md": "rule deep",
    "ws/.claude/rules/scoped.md": "---\npaths: src/**\n---\nscoped",
  });
  try {
    const fs = realFs();
    const first = await loadMemory(fs, roots(root));
    assert.deepEqual(first.value.map((f) => [f.path.slice(root.length), f.content]), [
      ["/ws/AGENTS.md", "agents"],
      ["/ws/.claude/rules/a/deep.md", "rule deep"],
      ["/ws/.claude/rules/b.md", "rule b"],
    ]);
    await Deno.writeTextFile(`${root}/ws/.claude/CLAUDE.md`, "claude");
    const second = await loadMemory(fs, roots(root));
    assert.deepEqual(second.value.map((f) => f.path.slice(root.length))[0], "/ws/.claude/CLAUDE.md");
    assert.ok(!second.value.some((f) => f.path.endsWith("AGENTS.md")));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadMemory: untrusted = user files only; large and binary files skipped with a note", async () => {
  const root = await tree({
    "home/.claude/CLAUDE.md": "user",
    "home/.claude/rules/big.md": "x".repeat(MAX_MEMORY_FILE_BYTES + 1),
    "home/.claude/rules/bin.md": "a\u0000b",
    "ws/CLAUDE.md": "project",
  });
  try {
    const got = await loadMemory(realFs(), roots(root, { trusted: false }));
    assert.deepEqual(got.value.map((f) => f.path.slice(root.length)), ["/home/.claude/CLAUDE.md"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("NestedMemory: each folder below the working folder once, top-most first", async () => {
  const root = await tree({
    "ws/CLAUDE.md": "top",
    "ws/a/CLAUDE.md": "a",
    "ws/a/b/CLAUDE.local.md": "b local",
    "ws/a/b/f.txt": "",
    "ws/c/AGENTS.md": "agents under a project with CLAUDE.md: not read",
  });
  try {
    const loaded = await loadMemory(realFs(), roots(root));
    const nested = new NestedMemory(loaded.reader, `${root}/ws`);
    const first = await nested.visit(`${root}/ws/a/b/f.txt`);
    assert.deepEqual(shown(root, first), ["project /ws/a/CLAUDE.md", "local /ws/a/b/CLAUDE.local.md"]);
    assert.deepEqual(await nested.visit(`${root}/ws/a/b/other.txt`), []);
    assert.deepEqual(await nested.visit(`${root}/ws/c/x.txt`), []);
    assert.deepEqual(await nested.visit(`${root}/elsewhere/x.txt`), []);
    assert.deepEqual(await nested.visit(`${root}/ws/top.txt`), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
