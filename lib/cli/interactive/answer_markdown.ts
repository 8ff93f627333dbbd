// Owns how an answer's Markdown looks on the terminal: pi-tui's Markdown component, with headings and
// code blocks shown without their raw markers. pi-tui prints `### ` before headings of level 3 and
// deeper and keeps a code fence's ```` ```ts ```` lines; here every heading is styled as a heading
// (level 1 underlined, the rest bold and coloured) with no `#`, a fence is a dim rule naming its
// language, and with colour off (NO_COLOR) a rule under each heading still marks it.

import { Markdown, type MarkdownTheme, visibleWidth } from "@mariozechner/pi-tui";

/** A parsed Markdown token, as far as this component reads it (pi-tui hands marked's tokens on). */
interface Token {
  type: string;
  depth?: number;
}

type RenderToken = (token: Token, width: number, next: string | undefined, context: unknown) => string[];

/**
 * The theme's code-fence style for an answer: ```` ```ts ```` becomes `── ts`, a bare fence `──`, each
 * passed to `style` (dim).
 */
export function fenceRule(style: (text: string) => string): (fence: string) => string {
  return (fence) => {
    const lang = fence.replace(/^`{3,}/, "").trim();
    return style(lang === "" ? "──" : `── ${lang}`);
  };
}

export class AnswerMarkdown extends Markdown {
  constructor(text: string, theme: MarkdownTheme, options: { color: boolean }) {
    super(text, 0, 0, theme);
    // pi-tui 0.73's renderToken is private to its types, not to JavaScript: headings are adjusted
    // around it (tests/e2e_interactive_test.ts and answer_markdown_test.ts pin the result).
    const self = this as unknown as { renderToken: RenderToken };
    const render = self.renderToken.bind(this);
    self.renderToken = (token, width, next, context) => {
      if (token.type !== "heading") return render(token, width, next, context);
      const depth = token.depth ?? 1;
      const lines = render({ ...token, depth: Math.min(depth, 2) }, width, next, context);
      if (options.color || lines.length === 0) return lines;
      const rule = (depth === 1 ? "═" : "─").repeat(Math.max(1, Math.min(width, visibleWidth(lines[0]!))));
      return [lines[0]!, rule, ...lines.slice(1)];
    };
  }
}
