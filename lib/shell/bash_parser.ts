// Owns reading a Bash command line into a syntax tree with a real bash grammar: tree-sitter-bash
// through web-tree-sitter (docs/reference/permissions.md "How rules read a command"), both
// WebAssembly modules embedded in bash_grammar.gen.ts. Loading is lazy and happens once per thread
// (~40 ms: docs/reference/performance.md "The Bash parser"), so a run that never checks a command
// never pays for it; after `loadBashParser()` parsing is synchronous. The tree is copied into plain
// objects (the WebAssembly one is freed at once). Does not decide anything about the command.

import { importNpm } from "../npm_module.ts";
import { decodeBase64 } from "./base64.ts";

/** One node of the tree: its grammar type, its source text and its children (operators included). */
export interface BashNode {
  type: string;
  /** False for operator and keyword tokens (`;`, `&&`, `|`, `>`, `if`…). */
  named: boolean;
  text: string;
  children: BashNode[];
}

export interface BashTree {
  root: BashNode;
  /** The grammar could not read some of it (an ERROR or MISSING node). */
  hasError: boolean;
}

interface TreeSitterNode {
  type: string;
  isNamed: boolean;
  isMissing: boolean;
  text: string;
  childCount: number;
  child(index: number): TreeSitterNode | null;
}

interface TreeSitterParser {
  parse(text: string): { rootNode: TreeSitterNode & { hasError: boolean }; delete(): void } | null;
}

let parser: TreeSitterParser | undefined;
let loading: Promise<void> | undefined;

/** Loads the grammar once per thread; later calls return at once. */
export function loadBashParser(): Promise<void> {
  if (parser !== undefined) return Promise.resolve();
  return loading ??= load().catch((e) => {
    loading = undefined;
    throw e;
  });
}

/** Whether `parseBash` can be called now. */
export function bashParserLoaded(): boolean {
  return parser !== undefined;
}

async function load(): Promise<void> {
  const [{ Parser, Language }, grammar] = await Promise.all([
    importNpm("web-tree-sitter", () => import("web-tree-sitter"), { exports: ["Parser", "Language"] }),
    import("./bash_grammar.gen.ts"),
  ]);
  await Parser.init({ wasmBinary: decodeBase64(grammar.TREE_SITTER_RUNTIME) });
  const bash = await Language.load(decodeBase64(grammar.TREE_SITTER_BASH));
  const p = new Parser();
  p.setLanguage(bash);
  parser = p as unknown as TreeSitterParser;
}

/** Deepest nesting copied; deeper input is reported as an error (and so never approved). */
const MAX_DEPTH = 200;

/** The tree of `text`. Throws when the parser is not loaded (call `loadBashParser()` first). */
export function parseBash(text: string): BashTree {
  if (parser === undefined) throw new Error("the Bash parser is not loaded (call loadBashParser() first)");
  const tree = parser.parse(text);
  if (tree === null) return { root: { type: "ERROR", named: true, text, children: [] }, hasError: true };
  try {
    let tooDeep = false;
    const copy = (node: TreeSitterNode, depth: number): BashNode => {
      const children: BashNode[] = [];
      if (depth >= MAX_DEPTH) tooDeep = true;
      else {
        for (let i = 0; i < node.childCount; i++) {
          const child = node.child(i);
          if (child !== null) children.push(copy(child, depth + 1));
        }
      }
      const type = node.isMissing ? "MISSING" : node.type;
      return { type, named: node.isNamed, text: node.text, children };
    };
    const root = copy(tree.rootNode, 0);
    return { root, hasError: tree.rootNode.hasError || tooDeep };
  } finally {
    tree.delete();
  }
}
