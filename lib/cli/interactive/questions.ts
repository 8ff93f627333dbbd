// Owns the interactive session's own questions (guided /agents create, /resume's picker): a question
// answered with the next line typed in the editor, or a choice list shown in place of the editor.
// Either is cancelled with Esc or Ctrl-C (undefined). Approval questions are approvals.ts.

import { type Component, type SelectItem, SelectList } from "@mariozechner/pi-tui";
import type { Theme } from "./theme.ts";
import type { SessionView } from "./view.ts";
import { clean } from "./summary.ts";

export interface QuestionHost {
  view: SessionView;
  theme: Theme;
  /** Shows `component` in place of the editor (focused); undefined puts the editor back. */
  swapInput(component: Component | undefined): void;
}

export class Questions {
  #host: QuestionHost;
  #line: ((answer: string | undefined) => void) | undefined;
  #choice: (() => void) | undefined;

  constructor(host: QuestionHost) {
    this.#host = host;
  }

  /** A question waits for the next typed line. */
  get waitingForLine(): boolean {
    return this.#line !== undefined;
  }

  /** A choice list is on screen. */
  get choosing(): boolean {
    return this.#choice !== undefined;
  }

  /** Asks; the next line typed answers it. */
  ask(question: string): Promise<string | undefined> {
    this.#host.view.print(this.#host.theme.accent(`? ${question}`));
    return new Promise((resolve) => (this.#line = resolve));
  }

  /** The typed line that answers the waiting question. */
  answer(line: string): void {
    this.#host.view.print(`  ${clean(line)}`);
    this.#settle(line);
  }

  /** Cancels whatever is asked (Esc, Ctrl-C, Ctrl-D, leaving). */
  cancel(): void {
    this.#settle(undefined);
    this.#choice?.();
  }

  #settle(answer: string | undefined): void {
    const resolve = this.#line;
    this.#line = undefined;
    resolve?.(answer);
  }

  /** A choice list in place of the editor. */
  choose(title: string, items: SelectItem[]): Promise<string | undefined> {
    const { view, theme } = this.#host;
    view.print(theme.accent(`? ${title}`));
    const list = new SelectList(items, Math.min(items.length, 10), theme.select);
    return new Promise((resolve) => {
      const done = (value: string | undefined) => {
        this.#choice = undefined;
        this.#host.swapInput(undefined);
        if (value !== undefined) view.print(`  → ${clean(value)}`);
        resolve(value);
      };
      list.onSelect = (item) => done(item.value);
      list.onCancel = () => done(undefined);
      this.#choice = () => done(undefined);
      this.#host.swapInput(list);
    });
  }
}
