import assert from "node:assert/strict";
import { classifyCommand } from "./commands.ts";
import { loadBashParser } from "../shell/bash_parser.ts";
import { readCommandLine } from "../shell/command_line.ts";

await loadBashParser();

const WS = "/work/repo";

// [command, expected kind]; the reason of a rejection is checked separately below.
const TABLE: [string, "verification" | "read-only" | "rejected"][] = [
  // verification commands
  ["npm test", "verification"],
  ["npm run lint", "verification"],
  ["npm run build", "verification"],
  ["npm run type-check", "verification"],
  ["npm run test:unit", "verification"],
  ["pnpm test", "verification"],
  ["pnpm lint", "verification"],
  ["pnpm run typecheck", "verification"],
  ["yarn test", "verification"],
  ["yarn build", "verification"],
  ["bun test", "verification"],
  ["bun run check", "verification"],
  ["deno test", "verification"],
  ["deno test --allow-read tests/", "verification"],
  ["deno lint", "verification"],
  ["deno check main.ts", "verification"],
  ["deno task test", "verification"],
  ["deno fmt --check", "verification"],
  ["node --test", "verification"],
  ["pytest -q tests/test_a.py", "verification"],
  ["python -m pytest -x", "verification"],
  ["ruff check .", "verification"],
  ["mypy src", "verification"],
  ["pyright", "verification"],
  ["tsc --noEmit", "verification"],
  ["npx tsc --noEmit -p tsconfig.json", "verification"],
  ["eslint src", "verification"],
  ["npx eslint .", "verification"],
  ["biome check .", "verification"],
  ["jest --ci", "verification"],
  ["vitest run", "verification"],
  ["go build ./...", "verification"],
  ["go test ./...", "verification"],
  ["go vet ./...", "verification"],
  ["cargo build", "verification"],
  ["cargo check --all-targets", "verification"],
  ["cargo clippy -- -D warnings", "verification"],
  ["cargo test", "verification"],
  ["cd packages/a && npm test", "verification"],
  ["npm test 2>&1 | tail -n 50", "verification"],
  ["deno test 2>&1 | head -100", "verification"],
  ["CI=1 npm test", "verification"],
  ["npm run lint && npm test", "verification"],
  // read-only inspection
  ["git status", "read-only"],
  ["git diff HEAD~1 -- src/a.ts", "read-only"],
  ["git log --oneline -5", "read-only"],
  ["ls -la src", "read-only"],
  ["cat package.json", "read-only"],
  ["grep -rn 'TODO' src", "read-only"],
  ["find . -name '*.ts'", "read-only"],
  ["sed -n 1,20p src/a.ts", "read-only"],
  ["wc -l src/a.ts", "read-only"],
  // rejected: mutating flags
  ["eslint --fix src", "rejected"],
  ["npm run lint -- --fix", "rejected"],
  ["jest -u", "rejected"],
  ["vitest --update", "rejected"],
  ["jest --watch", "rejected"],
  ["tsc --watch", "rejected"],
  ["tsc -w", "rejected"],
  ["biome check --write .", "rejected"],
  ["ruff check --fix .", "rejected"],
  ["deno fmt", "rejected"],
  ["deno test --watch", "rejected"],
  ["cargo clippy --fix", "rejected"],
  ["prettier --write .", "rejected"],
  ["deno test -- --update", "rejected"],
  // rejected: not a check, or it writes
  ["npm install", "rejected"],
  ["npm publish", "rejected"],
  ["npm run deploy", "rejected"],
  ["rm -rf dist", "rejected"],
  ["git commit -am wip", "rejected"],
  ["git checkout -- src", "rejected"],
  ["git stash", "rejected"],
  ["echo hi > out.txt", "rejected"],
  ["npm test > log.txt", "rejected"],
  ["npm test $(rm -rf /)", "rejected"],
  ["npm test `whoami`", "rejected"],
  ["(npm test)", "rejected"],
  ["npm test & rm -rf x", "rejected"],
  ["npm test; rm -rf x", "rejected"],
  ["cd /etc && npm test", "rejected"],
  ["cd ../other && npm test", "rejected"],
  ["cd src; npm test", "rejected"],
  ["npm test | tee log.txt", "rejected"],
  ["npm test | tail -f", "rejected"],
  ["npm test | head -n 5 | sh", "rejected"],
  ["find . -delete", "rejected"],
  ["find . -exec rm {} ;", "rejected"],
  ["sed -i s/a/b/ f", "rejected"],
  ["sort -o out.txt in.txt", "rejected"],
  ["curl https://example.com", "rejected"],
  ["make test", "rejected"],
  ["NODE_OPTIONS=--require=./evil.js npm test", "rejected"],
  ['echo "$ANTHROPIC_API_KEY"', "rejected"],
  ["npm test 'unterminated", "rejected"],
  ["npm test |& tee log.txt", "rejected"],
  ["npm test 2>&1 < input.txt", "rejected"],
  // rejected: read-only programs with an option that runs a program or writes a file
  ["git grep -Otouch -e a", "rejected"],
  ["git grep --open-files-in-pager=sh -e a", "rejected"],
  ["sort -S 16k --compress-program=sh big.txt", "rejected"],
  ["sed -n '1w out.txt' src/a.ts", "rejected"],
  ["sed -n 'e touch x' src/a.ts", "rejected"],
  ["sed -n -e 1p -e 'w x' src/a.ts", "rejected"],
  ["sed -n 's/a/b/w out.txt' src/a.ts", "rejected"],
  ["sed -n -f script.sed src/a.ts", "rejected"],
  ["sed -ni s/a/b/ src/a.ts", "rejected"],
  ["sed -n -i.bak s/a/b/ src/a.ts", "rejected"],
  ["sed -n --in-place s/a/b/ src/a.ts", "rejected"],
  ["sed -ne 'w x' src/a.ts", "rejected"],
  ["sed -n --expression='1r /etc/passwd' src/a.ts", "rejected"],
  ["uniq -c in.txt out.txt", "rejected"],
  ["file -C -m magic", "rejected"],
  ["tree -R -H . -L 1", "rejected"],
  ["rg --hostname-bin=sh x", "rejected"],
  // rejected: verification commands that install, never end, or write a report over any file
  ["vitest watch", "rejected"],
  ["vitest dev", "rejected"],
  ["mypy --install-types src", "rejected"],
  ["eslint -o src/a.ts .", "rejected"],
  ["eslint --output-file=src/a.ts .", "rejected"],
  ["node --test --test-reporter-destination=src/a.ts", "rejected"],
  ["pytest --junitxml=src/a.py", "rejected"],
  ["go build -o src/main.go ./...", "rejected"],
  ["tsc --outDir src", "rejected"],
  // accepted: the safe forms of the same programs
  ["go build -o /dev/null ./...", "verification"],
  ["git ls-files -o --exclude-standard", "read-only"],
  ["git grep -n -o TODO", "read-only"],
  ["sed -n '/^export/p;1=' src/a.ts", "read-only"],
  ["sed -n -e '10,20p' src/a.ts", "read-only"],
  ["sed -ne '/start/,/end/p' src/a.ts", "read-only"],
  ["sed -n --sandbox 's/a/b/p' src/a.ts", "read-only"],
  ["sort -u -k2 in.txt", "read-only"],
  ["uniq -c -f 1 in.txt", "read-only"],
  ["vitest run --reporter=dot", "verification"],
];

Deno.test(`verification command recogniser: ${TABLE.length} commands`, () => {
  const wrong = TABLE.filter(([cmd, kind]) => classifyCommand(cmd, WS).kind !== kind)
    .map(([cmd, kind]) => `${cmd}: expected ${kind}, got ${JSON.stringify(classifyCommand(cmd, WS))}`);
  assert.deepEqual(wrong, []);
  assert.ok(TABLE.length >= 40);
});

Deno.test("a rejection says why", () => {
  assert.deepEqual(classifyCommand("eslint --fix src", WS), {
    kind: "rejected",
    reason: "--fix changes files or never ends",
  });
  assert.deepEqual(classifyCommand("cd /etc && npm test", WS), {
    kind: "rejected",
    reason: "cd must name one folder inside the workspace",
  });
  assert.deepEqual(classifyCommand("npm test > log.txt", WS), {
    kind: "rejected",
    reason: "it redirects to a file (> log.txt)",
  });
  assert.deepEqual(classifyCommand("npm test 2>&1 | tail -n 5", WS), {
    kind: "verification",
    command: "npm test 2>&1 | tail -n 5",
  });
});

Deno.test("the bash parse records the operator before each command", () => {
  const line = readCommandLine(`cd 'a b' && npm test -- "x y" | head -5; ls; pwd || true`);
  assert.deepEqual(line.plain, [
    { words: ["cd", "a b"] },
    { words: ["npm", "test", "--", "x y"], separator: "&&" },
    { words: ["head", "-5"], separator: "|" },
    { words: ["ls"], separator: ";" },
    { words: ["pwd"], separator: ";" },
    { words: ["true"], separator: "||" },
  ]);
});
