/**
 * The code of the presenters, as text the read model's format is hashed from (conversationChannel):
 * every function a presenter module exports, by name, each as its source text with the layout a
 * compiler chooses taken out (comments, whitespace between tokens, trailing commas, a semicolon
 * before `}`), so the build (tsc), the sources run by ts-node and the tests' swc agree, while any
 * change to a token (a branch, a field, a literal) changes it. Hashing the code rather than what
 * it makes of sample rows covers the branches no sample reaches.
 */
export function presenterCode(module: object): string {
  const exported = module as Record<string, unknown>;
  return Object.keys(exported)
    .sort()
    .flatMap((name) => {
      const value = exported[name];
      return typeof value === 'function' ? [`${name}=${codeText(value as (...args: never[]) => unknown)}`] : [];
    })
    .join('\n');
}

/** One function's source text without its layout (see presenterCode). */
export function codeText(fn: (...args: never[]) => unknown): string {
  return withoutLayout(Function.prototype.toString.call(fn));
}

const WORD = /[\w$]/;
/** After one of these (or nothing, or `return`), a `/` begins a regular expression, not a division. */
const BEFORE_REGEX = /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\breturn)$/;

/** `source` without comments and without the whitespace, trailing commas and last semicolons a compiler lays out as it likes. */
export function withoutLayout(source: string): string {
  let out = '';
  let i = 0;
  const literal = (end: number) => {
    out += source.slice(i, end);
    i = end;
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      literal(j + 1);
    } else if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === '/' && BEFORE_REGEX.test(out)) {
      let j = i + 1;
      for (let inClass = false; j < source.length && (source[j] !== '/' || inClass); j++) {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
      }
      j++;
      while (j < source.length && WORD.test(source[j])) j++;
      literal(j);
    } else if (/\s/.test(c)) {
      let j = i;
      while (j < source.length && /\s/.test(source[j])) j++;
      // Kept only where it separates two words (`return x`, `typeof y`).
      if (WORD.test(out[out.length - 1] ?? '') && WORD.test(source[j] ?? '')) out += ' ';
      i = j;
    } else {
      if ((c === '}' || c === ']' || c === ')') && out.endsWith(',')) out = out.slice(0, -1);
      if (c === '}' && out.endsWith(';')) out = out.slice(0, -1);
      out += c;
      i++;
    }
  }
  return out;
}
