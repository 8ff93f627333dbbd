import assert from "node:assert/strict";
import { join } from "node:path";
import { realPorts } from "../sys/mod.ts";
import { gitRepo } from "../testing/git_repo.ts";
import { processGit } from "./git.ts";
import { readProjectKey } from "./project_identity.ts";

Deno.test("readProjectKey: two clones at different paths agree; subfolders, shallow clones and plain folders differ", async () => {
  await using repo = await gitRepo({ "README.md": "# p\n", "packages/api/a.ts": "export {};\n" });
  const ports = realPorts();
  const git = processGit(ports.process, ports.env);
  const root = (await repo.git(["rev-list", "--max-parents=0", "HEAD"])).trim();
  await repo.commitAll("second");
  const here = await readProjectKey(git, repo.root);
  assert.equal(here, `git:${root}`);
  assert.equal(await readProjectKey(git, join(repo.root, "packages/api")), `git:${root}:packages/api`);

  // Plain git for the set-up (Blade's own git refuses every transport, clones included).
  const plainGit = async (args: string[]) => {
    const r = await ports.process.run("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", ...args]);
    assert.equal(r.code, 0, r.stderr);
  };
  // A full clone elsewhere, on another branch with more commits: the same key.
  const clone = join(repo.dir, "elsewhere", "checkout");
  await plainGit(["clone", "--quiet", repo.root, clone]);
  await plainGit(["-C", clone, "checkout", "--quiet", "-b", "feature"]);
  await plainGit(["-C", clone, "commit", "--quiet", "--allow-empty", "-m", "x"]);
  assert.equal(await readProjectKey(git, clone), here);

  // A shallow clone's oldest commit is not the root: no key (its runs go by path).
  const shallow = join(repo.dir, "shallow");
  await plainGit(["clone", "--quiet", "--depth=1", `file://${repo.root}`, shallow]);
  assert.equal(await readProjectKey(git, shallow), undefined);

  // Not a repository, and a repository with no commit yet: no key.
  const plain = join(repo.dir, "storage");
  assert.equal(await readProjectKey(git, plain), undefined);
  await using empty = await gitRepo({}, { commit: false });
  assert.equal(await readProjectKey(git, empty.root), undefined);
});
