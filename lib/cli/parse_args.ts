// Owns reading a command line into option values and positionals: node:util's `parseArgs` in strict
// mode, same results and same messages, for the options Blade's commands declare (string and boolean,
// a short letter, `multiple`). node:util itself costs every start about 7 ms of CPU (Deno evaluates
// Node's util, errors and inspect modules behind it; docs/reference/performance.md), and every
// command parses its flags first. lib/cli/parse_args_test.ts compares the two over many command lines.

export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
  readonly multiple?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type ValueOf<O extends OptionSpec> = O["type"] extends "string"
  ? (O["multiple"] extends true ? string[] : string)
  : (O["multiple"] extends true ? boolean[] : boolean);

export type ParsedValues<T extends OptionSpecs> = { -readonly [K in keyof T]?: ValueOf<T[K]> };

export interface ParseArgsConfig<T extends OptionSpecs> {
  args: readonly string[];
  options: T;
  allowPositionals?: boolean;
  /** Always strict, as every Blade command is; accepted for node:util's call shape. */
  strict?: true;
}

/** A command line the options do not allow; the message is node:util's. */
export class ParseArgsError extends TypeError {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = "TypeError";
  }
}

interface OptionToken {
  name: string;
  rawName: string;
  value: string | undefined;
  inlineValue: boolean;
}

const own = (options: OptionSpecs, name: string): OptionSpec | undefined =>
  Object.hasOwn(options, name) ? options[name] : undefined;

function longNameOf(short: string, options: OptionSpecs): string {
  for (const [name, spec] of Object.entries(options)) if (spec.short === short) return name;
  return short;
}

const isString = (options: OptionSpecs, name: string) => own(options, name)?.type === "string";

/** node:util's tokens: options (with their values) and positionals, in order. */
function tokensOf(args: readonly string[], options: OptionSpecs): (OptionToken | { positional: string })[] {
  const tokens: (OptionToken | { positional: string })[] = [];
  const rest = [...args];
  while (rest.length > 0) {
    const arg = rest.shift()!;
    const next = rest[0];
    if (arg === "--") {
      for (const p of rest) tokens.push({ positional: p });
      break;
    }
    const shortForm = arg.length >= 2 && arg[0] === "-" && arg[1] !== "-";
    if (shortForm && arg.length === 2) {
      const name = longNameOf(arg[1]!, options);
      const takes = isString(options, name) && next !== undefined;
      tokens.push({ name, rawName: arg, value: takes ? rest.shift() : undefined, inlineValue: false });
    } else if (shortForm && !isString(options, longNameOf(arg[1]!, options))) {
      // A group of short options (-abc); a string option inside takes the rest as its value.
      const expanded: string[] = [];
      for (let i = 1; i < arg.length; i++) {
        if (!isString(options, longNameOf(arg[i]!, options)) || i === arg.length - 1) {
          expanded.push(`-${arg[i]}`);
        } else {
          expanded.push(`-${arg.slice(i)}`);
          break;
        }
      }
      rest.unshift(...expanded);
    } else if (shortForm) {
      tokens.push({
        name: longNameOf(arg[1]!, options),
        rawName: arg.slice(0, 2),
        value: arg.slice(2),
        inlineValue: true,
      });
    } else if (arg.length > 2 && arg.startsWith("--") && !arg.includes("=", 3)) {
      const name = arg.slice(2);
      const takes = isString(options, name) && next !== undefined;
      tokens.push({ name, rawName: arg, value: takes ? rest.shift() : undefined, inlineValue: false });
    } else if (arg.length > 2 && arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq);
      tokens.push({ name, rawName: `--${name}`, value: arg.slice(eq + 1), inlineValue: true });
    } else {
      tokens.push({ positional: arg });
    }
  }
  return tokens;
}

function checkOption(token: OptionToken, options: OptionSpecs, allowPositionals: boolean): OptionSpec {
  const spec = own(options, token.name);
  if (spec === undefined) {
    const dashDash = allowPositionals
      ? `. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- ${
        JSON.stringify(token.rawName)
      }`
      : "";
    throw new ParseArgsError(`Unknown option '${token.rawName}'${dashDash}`, "ERR_PARSE_ARGS_UNKNOWN_OPTION");
  }
  const shortAndLong = `${spec.short ? `-${spec.short}, ` : ""}--${token.name}`;
  if (spec.type === "string" && token.value === undefined) {
    throw new ParseArgsError(
      `Option '${shortAndLong} <value>' argument missing`,
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
    );
  }
  if (spec.type === "boolean" && token.value !== undefined) {
    throw new ParseArgsError(
      `Option '${shortAndLong}' does not take an argument`,
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
    );
  }
  const value = token.value;
  if (!token.inlineValue && value !== undefined && value.length > 1 && value[0] === "-") {
    const example = token.rawName.startsWith("--")
      ? `'${token.rawName}=-XYZ'`
      : `'--${token.name}=-XYZ' or '${token.rawName}-XYZ'`;
    throw new ParseArgsError(
      `Option '${token.rawName}' argument is ambiguous.\nDid you forget to specify the option argument for '${token.rawName}'?\nTo specify an option argument starting with a dash use ${example}.`,
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
    );
  }
  return spec;
}

/** node:util `parseArgs({ args, options, allowPositionals, strict: true })`. */
export function parseArgs<T extends OptionSpecs>(
  config: ParseArgsConfig<T>,
): { values: ParsedValues<T>; positionals: string[] } {
  const allowPositionals = config.allowPositionals === true;
  const values: Record<string, unknown> = Object.create(null);
  const positionals: string[] = [];
  for (const token of tokensOf(config.args, config.options)) {
    if ("positional" in token) {
      if (!allowPositionals) {
        throw new ParseArgsError(
          `Unexpected argument '${token.positional}'. This command does not take positional arguments`,
          "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL",
        );
      }
      positionals.push(token.positional);
      continue;
    }
    const spec = checkOption(token, config.options, allowPositionals);
    if (token.name === "__proto__") continue;
    const value = token.value ?? true;
    if (spec.multiple === true) {
      const list = values[token.name] as unknown[] | undefined;
      if (list === undefined) values[token.name] = [value];
      else list.push(value);
    } else {
      values[token.name] = value;
    }
  }
  return { values: values as ParsedValues<T>, positionals };
}
