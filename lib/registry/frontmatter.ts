// Owns splitting an agent Markdown file into its frontmatter text and its body: optional BOM, LF or
// CRLF line ends, `---` delimiter lines. Does not interpret the frontmatter (parse.ts and lenient.ts do).

export interface Frontmatter {
  /** The text between the delimiter lines, LF line ends. */
  text: string;
  /** 1-based file line of the first frontmatter line (the line after the opening `---`). */
  firstLine: number;
  /** Everything after the closing `---`, trimmed. */
  body: string;
}

export type FrontmatterSplit =
  | { ok: true; frontmatter: Frontmatter }
  | { ok: false; problem: "missing" | "unclosed"; line: number };

const isDelimiter = (line: string) => line.trimEnd() === "---";

export function splitFrontmatter(source: string): FrontmatterSplit {
  const text = (source.startsWith("\uFEFF") ? source.slice(1) : source).replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  let open = 0;
  while (open < lines.length && lines[open]?.trim() === "") open++;
  if (open >= lines.length || !isDelimiter(lines[open] ?? "")) {
    return { ok: false, problem: "missing", line: Math.min(open, lines.length - 1) + 1 };
  }
  for (let close = open + 1; close < lines.length; close++) {
    if (isDelimiter(lines[close] ?? "")) {
      return {
        ok: true,
        frontmatter: {
          text: lines.slice(open + 1, close).join("\n"),
          firstLine: open + 2,
          body: lines.slice(close + 1).join("\n").trim(),
        },
      };
    }
  }
  return { ok: false, problem: "unclosed", line: open + 1 };
}
