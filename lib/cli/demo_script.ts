// Owns the demo's fixture: a tiny project with a typo and the scripted model's script that fixes it
// by delegating the search to the Explore subagent (parent → Task → child → parent → Edit → answer).

export const DEMO_FILES: Readonly<Record<string, string>> = {
  "src/greet.ts": 'export function greet(name: string): string {\n  return "Helo, " + name + "!";\n}\n',
  "src/main.ts": 'import { greet } from "./greet.ts";\n\nconsole.log(greet("world"));\n',
  "README.md": "# hello\n\nPrints a friendly greeting.\n",
};

export const DEMO_PROMPT =
  "Our greeting prints 'Helo' instead of 'Hello'. Find where it comes from and fix it.";

export const DEMO_SCRIPT = `# The demo's scripted model. Same format as docs/guides/scripted-provider.md.
agents:
  main:
    - turns:
        - text: "I'll have an Explore agent find where the greeting text is built."
          tool_calls:
            - name: Task
              input:
                subagent_type: Explore
                description: Find the greeting text
                prompt: "Find the source line that builds the greeting text 'Helo'. Report the file and line number."
        - text: "The explorer found it. Let me read the file before editing."
          tool_calls:
            - name: Read
              input: { file_path: src/greet.ts }
        - tool_calls:
            - name: Edit
              input: { file_path: src/greet.ts, old_string: '"Helo, "', new_string: '"Hello, "' }
        - text: "Fixed: src/greet.ts line 2 now builds \\"Hello, <name>!\\" (the Explore agent traced the typo there)."
  Explore:
    - turns:
        - text: "Searching for the greeting."
          tool_calls:
            - name: Grep
              input: { pattern: "Helo", output_mode: content }
        - text: "The greeting is built in src/greet.ts, line 2: return \\"Helo, \\" + name + \\"!\\"; (typo: Helo)."
`;
