// Owns the interactive session's styles: a few ANSI styles, or none at all when colour is off
// (NO_COLOR, not a terminal), and the pi-tui themes built from them. Styles wrap text that was
// already made terminal-safe (lib/cli/sanitize.ts); they never see raw model output.

import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";
import { fenceRule } from "./answer_markdown.ts";

type Style = (text: string) => string;

export interface Theme {
  color: boolean;
  bold: Style;
  dim: Style;
  italic: Style;
  accent: Style;
  ok: Style;
  error: Style;
  warn: Style;
  markdown: MarkdownTheme;
  editor: EditorTheme;
  select: SelectListTheme;
}

function sgr(on: number, off: number): Style {
  return (text) => `\x1b[${on}m${text}\x1b[${off}m`;
}

export function makeTheme(color: boolean): Theme {
  const id: Style = (text) => text;
  const pick = (style: Style): Style => (color ? style : id);
  const bold = pick(sgr(1, 22));
  const dim = pick(sgr(2, 22));
  const italic = pick(sgr(3, 23));
  const accent = pick(sgr(36, 39));
  const ok = pick(sgr(32, 39));
  const error = pick(sgr(31, 39));
  const warn = pick(sgr(33, 39));
  const select: SelectListTheme = {
    selectedPrefix: accent,
    selectedText: bold,
    description: dim,
    scrollInfo: dim,
    noMatch: dim,
  };
  return {
    color,
    bold,
    dim,
    italic,
    accent,
    ok,
    error,
    warn,
    markdown: {
      heading: (t) => bold(accent(t)),
      link: accent,
      linkUrl: dim,
      code: accent,
      codeBlock: id,
      codeBlockBorder: fenceRule(dim),
      quote: italic,
      quoteBorder: dim,
      hr: dim,
      listBullet: accent,
      bold,
      italic,
      strikethrough: pick(sgr(9, 29)),
      underline: pick(sgr(4, 24)),
    },
    editor: { borderColor: dim, selectList: select },
    select,
  };
}
